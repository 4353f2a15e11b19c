import type { RealtimeMessage } from './types.js';

/** This process's subscribers (its stream hub, tests): every driver hands them what it delivers. */
export class Subscribers {
  readonly #listeners = new Set<(m: RealtimeMessage) => void>();

  add(listener: (m: RealtimeMessage) => void): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  /** One listener's failure reaches neither the others nor the transport (ioredis would rethrow it as uncaught). */
  deliver(message: RealtimeMessage, onError: (err: unknown) => void = () => {}): void {
    for (const listener of this.#listeners) {
      try {
        listener(message);
      } catch (err) {
        onError(err);
      }
    }
  }

  clear(): void {
    this.#listeners.clear();
  }
}
