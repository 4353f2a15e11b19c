import type { RealtimeMessage } from './types.js';

/** This process's subscribers (its stream hub, tests): every driver hands them what it delivers. */
export class Subscribers {
  readonly #listeners = new Set<(m: RealtimeMessage) => void>();
  #closed = false;

  /** Registers a listener; once closed, registers nothing (the broker is closed: RealtimeBroker.subscribe). */
  add(listener: (m: RealtimeMessage) => void): () => void {
    if (this.#closed) return () => {};
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

  /** Throws once closed: a closed broker publishes nothing (RealtimeBroker.publish). */
  assertOpen(message: RealtimeMessage): void {
    if (this.#closed) throw new Error(`The realtime broker is closed: ${message.event} was not published`);
  }

  /** Forgets every listener and takes no more (the broker closes). */
  close(): void {
    this.#closed = true;
    this.#listeners.clear();
  }
}
