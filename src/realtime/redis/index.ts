// PLACEHOLDER: replaced by the real driver.
import type { RealtimeConfig } from '../../config.js';
import type { RealtimeBroker } from '../types.js';

export class RedisBroker implements RealtimeBroker {
  readonly driver = 'redis';
  static async connect(_settings: Extract<RealtimeConfig, { driver: 'redis' }>): Promise<RedisBroker> { throw new Error('not implemented'); }
  async publish(): Promise<void> { throw new Error('not implemented'); }
  subscribe(): () => void { throw new Error('not implemented'); }
  async check(): Promise<void> { throw new Error('not implemented'); }
  async close(): Promise<void> {}
}
