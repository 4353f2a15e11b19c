import type { Notification, RealtimeBroker } from '../types.js';

/** One process: notifications go straight to this process's subscribers. */
export class MemoryBroker implements RealtimeBroker {
  readonly driver = 'memory';
  readonly #listeners = new Set<(n: Notification) => void>();

  async publish(notification: Notification): Promise<void> {
    for (const listener of this.#listeners) listener(notification);
  }

  subscribe(listener: (n: Notification) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  async check(): Promise<void> {}

  async close(): Promise<void> {
    this.#listeners.clear();
  }
}
