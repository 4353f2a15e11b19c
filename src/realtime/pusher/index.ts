// PLACEHOLDER: replaced by the real driver.
import type { RealtimeConfig } from '../../config.js';
import type { RealtimeBroker } from '../types.js';

export class PusherBroker implements RealtimeBroker {
  readonly driver = 'pusher';
  constructor(readonly settings: Extract<RealtimeConfig, { driver: 'pusher' }>) {}
  async publish(): Promise<void> { throw new Error('not implemented'); }
  subscribe(): () => void { throw new Error('not implemented'); }
  async check(): Promise<void> { throw new Error('not implemented'); }
  async close(): Promise<void> {}
}
