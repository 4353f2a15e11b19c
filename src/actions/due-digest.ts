import type { Deps } from '../deps.js';
import { nowIso } from '../deps.js';
import { digestDayAt, digestReachOf } from '../domain/due-digest.js';
import { viewerOf } from '../domain/visibility.js';
import { newId } from '../ids.js';
import { queueDueDigest } from '../mail/outbox.js';

/**
 * One round of the morning due-date digest (the `due-date digest` job, every DUE_DIGEST_CHECK_MS):
 * once DUE_DIGEST_HOUR has come in TIMEZONE by the service's clock, each active POC and ADMIN whose
 * digest for today is not yet decided gets it decided, each in a transaction of its own: the claim
 * (due_digests, one per person and day across instances) and, when anything the person may see
 * (a POC: and owns) is overdue or due today, the email's outbox row. The email itself is composed
 * when it is sent (mail/dispatcher.ts). Returns how many digests were queued.
 */
export async function queueDueDigests(deps: Pick<Deps, 'config' | 'clock' | 'store'>, signal?: AbortSignal): Promise<number> {
  const settings = deps.config.dueDigest;
  const day = settings && digestDayAt(deps.config.timeZone, settings.hour, deps.clock.now());
  if (!day) return 0;
  let queued = 0;
  for (const person of await deps.store.dueDigests.undecided(day, 'dueDigest')) {
    if (signal?.aborted) break;
    const reach = digestReachOf(person.role);
    if (!reach) continue;
    const made = await deps.store.transaction(async (store) => {
      // Decided once: an empty day is claimed too, so a project falling due later that day sends no second, afternoon digest.
      const at = nowIso();
      if (!(await store.dueDigests.claim(person.id, day, at))) return false;
      const [any] = await store.projects.dueBy(viewerOf(person), day, { pocId: reach === 'own' ? person.id : undefined, limit: 1 });
      if (!any) return false;
      const id = newId();
      await queueDueDigest(store, { id, recipientId: person.id, day, at });
      await store.dueDigests.noteEmail(person.id, day, id);
      return true;
    });
    if (made) queued++;
  }
  return queued;
}

