import { Subscribers } from '../subscribers.js';
import type { Notification, RealtimeBroker } from '../types.js';

/** One process: notifications go straight to this process's subscribers. */
export class MemoryBroker implements RealtimeBroker {
  readonly driver = 'memory';
  readonly #subscribers = new Subscribers();

  async publish(notification: Notification): Promise<void> {
    this.#subscribers.deliver(notification);
  }

  subscribe(listener: (n: Notification) => void): () => void {
    return this.#subscribers.add(listener);
  }

  async check(): Promise<void> {}

  async close(): Promise<void> {
    this.#subscribers.clear();
  }
}
