/**
 * Who gets the next rendering slot (issue 33, item 12): the waiting requests of each user in their
 * order; the user with fewest renderings under way first, the users in turn among equals, so one
 * user's flood of previews makes another's small one wait for the first slot to free, not for the flood. Bounded twice: at most `maxWaiting` in all (each waiting
 * request holds its document in a temporary file) and at most `maxPerOwner` for one user, so a
 * flood fills its own share and leaves the rest to everyone else.
 */
export class FairQueue<T> {
  /** Waiting items by owner; the map's order is the owners' turn (served owners go to the back). */
  readonly #byOwner = new Map<string, T[]>();
  #size = 0;

  constructor(
    private readonly maxWaiting: number,
    private readonly maxPerOwner: number,
  ) {}

  get size(): number {
    return this.#size;
  }

  /** Queues an item, or says why not: the queue is full, or this owner's share is. */
  push(owner: string, item: T): 'queued' | 'full' | 'owner-full' {
    if (this.#size >= this.maxWaiting) return 'full';
    const mine = this.#byOwner.get(owner);
    if ((mine?.length ?? 0) >= this.maxPerOwner) return 'owner-full';
    if (mine) mine.push(item);
    else this.#byOwner.set(owner, [item]);
    this.#size++;
    return 'queued';
  }

  /**
   * The next item and its owner: the oldest of the owner with fewest renderings under way
   * (`running`; a user with none goes before a flood's), the first in turn among equals; that
   * owner then goes to the back of the turn.
   */
  shift(running: (owner: string) => number = () => 0): { owner: string; item: T } | undefined {
    let chosen: string | undefined;
    let fewest = Infinity;
    for (const owner of this.#byOwner.keys()) {
      const n = running(owner);
      if (n < fewest) [chosen, fewest] = [owner, n];
      if (n === 0) break;
    }
    if (chosen === undefined) return undefined;
    const items = this.#byOwner.get(chosen)!;
    const item = items.shift()!;
    this.#size--;
    this.#byOwner.delete(chosen);
    if (items.length) this.#byOwner.set(chosen, items);
    return { owner: chosen, item };
  }

  /** Takes everything out (shutdown). */
  drain(): T[] {
    const all = [...this.#byOwner.values()].flat();
    this.#byOwner.clear();
    this.#size = 0;
    return all;
  }
}

/** One user's share of the waiting places: a quarter, so a flood leaves three quarters to others (at least 1 when any may wait). */
export const perOwnerShare = (maxWaiting: number): number => (maxWaiting <= 0 ? 0 : Math.max(1, Math.ceil(maxWaiting / 4)));
