import { performance } from 'node:perf_hooks';
import type { Config } from '../config.js';
import type { Store } from '../db/store.js';
import { type WebhookEvent, documentsAsOf } from '../domain/webhooks.js';
import { needsDocuments, webhookBody } from '../presenters/webhooks.js';

/** Bodies kept: an event's endpoints are claimed about together, so a few dozen cover them. */
const KEPT = 64;

/**
 * The bodies of the events being delivered, each made once for all its endpoints (and its retries
 * while it is kept): a project event reads the project's documents as they stood at the event's
 * time (the files table only grows; a withdrawal after the event is not shown), the rest was stored
 * with the event (webhooks/outbox.ts). Names (uploader, voider) are read when sent.
 */
export class EventBodies {
  readonly #made = new Map<string, Promise<Buffer>>();

  constructor(
    private readonly store: Store,
    private readonly config: Pick<Config, 'timeZone' | 'documentAccess' | 'publicUrl'>,
    /** Told the time each body took to read and make. */
    private readonly spent: (ms: number) => void = () => {},
  ) {}

  has(eventId: string): boolean {
    return this.#made.has(eventId);
  }

  /** The body of an event: kept (has()), made from `event`, or read (one kept a moment ago may have gone since). */
  body(eventId: string, event?: WebhookEvent): Promise<Buffer> {
    let made = this.#made.get(eventId);
    if (!made) {
      made = this.#make(eventId, event);
      this.#made.set(eventId, made);
      made.catch(() => this.#made.delete(eventId));
      if (this.#made.size > KEPT) this.#made.delete(this.#made.keys().next().value!);
    }
    return made;
  }

  async #make(eventId: string, given: WebhookEvent | undefined): Promise<Buffer> {
    const event = given ?? (await this.store.webhookDeliveries.events([eventId])).get(eventId);
    if (!event) throw new Error(`the webhook event ${eventId} was not found`);
    // The reading counts too (on SQLite it runs on the event loop; on PostgreSQL its wait is counted as well, which errs on the side of waiting).
    const started = performance.now();
    const read = needsDocuments(event.payload) ? await this.store.files.listForProject(event.payload.project.id) : null;
    const documents = read && documentsAsOf(read, event.createdAt);
    // As bytes: signed and sent to each endpoint without being encoded again.
    const body = Buffer.from(webhookBody(event, documents, this.config.timeZone, { mode: this.config.documentAccess.mode, publicUrl: this.config.publicUrl }));
    this.spent(performance.now() - started);
    return body;
  }
}
