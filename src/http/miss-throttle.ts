/**
 * A budget of misses per client address (issue 33, item 18): in public document mode a document's
 * address is its project's id and a name with the upload's millisecond, so knowing a project, an
 * outsider could try the likely second's 1,000 names in about a second. Each address may miss
 * (`404`) `burst` times at once, and earns one more miss every `refillMs`; past that, every request
 * of the kind from that address (found or not, or a 429 would tell a hit from a miss) is a `429`
 * until the next miss is earned. Only misses spend: a page loading any number of documents that
 * exist never is throttled. Kept in memory per instance, at most `maxAddresses` (the ones with a
 * full budget are forgotten first; past that, the oldest).
 */
export interface MissThrottleOptions {
  burst: number;
  refillMs: number;
  maxAddresses: number;
}

/** 30 misses at once, then one every 10 s: a 1,100-name scan takes about 3 hours. */
export const FILE_MISSES: MissThrottleOptions = { burst: 30, refillMs: 10_000, maxAddresses: 10_000 };

interface Budget {
  tokens: number;
  at: number;
}

export class MissThrottle {
  readonly #budgets = new Map<string, Budget>();

  constructor(
    private readonly options: MissThrottleOptions = FILE_MISSES,
    private readonly now: () => number = Date.now,
  ) {}

  #current(address: string): Budget | undefined {
    const b = this.#budgets.get(address);
    if (!b) return undefined;
    const t = this.now();
    b.tokens = Math.min(this.options.burst, b.tokens + Math.max(0, t - b.at) / this.options.refillMs);
    b.at = t;
    if (b.tokens >= this.options.burst) {
      this.#budgets.delete(address);
      return undefined;
    }
    return b;
  }

  /** Seconds this address must wait before it may ask again, or 0 when it may ask now. */
  retryAfter(address: string): number {
    const b = this.#current(address);
    if (!b || b.tokens >= 1) return 0;
    return Math.max(1, Math.ceil(((1 - b.tokens) * this.options.refillMs) / 1000));
  }

  /** Spends one miss of this address's budget. */
  miss(address: string): void {
    const b = this.#current(address) ?? { tokens: this.options.burst, at: this.now() };
    b.tokens = Math.max(0, b.tokens - 1);
    // Re-inserted: the map's order is the order of last misses, so the oldest goes first when full.
    this.#budgets.delete(address);
    this.#budgets.set(address, b);
    if (this.#budgets.size > this.options.maxAddresses) this.#prune();
  }

  /** Addresses tracked (for tests). */
  get size(): number {
    return this.#budgets.size;
  }

  #prune(): void {
    for (const address of [...this.#budgets.keys()]) this.#current(address);
    while (this.#budgets.size > this.options.maxAddresses) this.#budgets.delete(this.#budgets.keys().next().value!);
  }
}
