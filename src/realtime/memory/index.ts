import { Subscribers } from '../subscribers.js';
import type { RealtimeBroker, RealtimeMessage } from '../types.js';

/** One process: messages go straight to this process's subscribers. */
export class MemoryBroker implements RealtimeBroker {
  readonly driver = 'memory';
  readonly #subscribers = new Subscribers();

  async publish(message: RealtimeMessage): Promise<void> {
    this.#subscribers.assertOpen(message);
    this.#subscribers.deliver(message);
  }

  subscribe(listener: (m: RealtimeMessage) => void): () => void {
    return this.#subscribers.add(listener);
  }

  async check(): Promise<void> {}

  /** One process: every signal is published here. */
  signalEpoch(): number | null {
    return 0;
  }

  async close(): Promise<void> {
    this.#subscribers.close();
  }
}
