import type { Notification } from './types.js';

/** This process's subscribers (its SSE streams): every driver hands them what it delivers. */
export class Subscribers {
  readonly #listeners = new Set<(n: Notification) => void>();

  add(listener: (n: Notification) => void): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  /** One listener's failure reaches neither the others nor the transport (ioredis would rethrow it as uncaught). */
  deliver(notification: Notification, onError: (err: unknown) => void = () => {}): void {
    for (const listener of this.#listeners) {
      try {
        listener(notification);
      } catch (err) {
        onError(err);
      }
    }
  }

  clear(): void {
    this.#listeners.clear();
  }
}
