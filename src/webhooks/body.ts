import { performance } from 'node:perf_hooks';
import type { Config } from '../config.js';
import type { DocumentAccess } from '../domain/documents.js';
import type { Store } from '../db/store.js';
import { duplicatesOf } from '../domain/duplicates.js';
import type { FileUploadWithNames } from '../domain/model.js';
import { type WebhookEvent, documentsAsOf } from '../domain/webhooks.js';
import { presentFile } from '../presenters/index.js';
import { needsDocuments, webhookBody, webhookBodyWith } from '../presenters/webhooks.js';

/** Bodies kept, by their size: an event's endpoints are claimed about together, and a body may hold a megabyte of documents. */
const KEPT_BYTES = 32 * 1024 * 1024;

/** One read of a project's documents, shared by the bodies of every event it may serve (see Documents). */
interface Documents {
  /** The claim round (EventBodies.claimed) under way when the read began. */
  round: number;
  files: Promise<FileUploadWithNames[]>;
  /** Each document's JSON, by what it depends on (its state at an event's time, the document it repeats). */
  json: Map<string, string>;
  /** The duplicates of the whole list, when no document in it is withdrawn (then they hold for any event's time). */
  duplicates?: ReturnType<typeof duplicatesOf> | null;
}

/**
 * The bodies of the events being delivered, each made once for all its endpoints (and its retries
 * while it is kept): a project event reads the project's documents as they stood at the event's
 * time (the files table only grows; a withdrawal after the event is not shown), the rest was stored
 * with the event (webhooks/outbox.ts). Names (uploader, voider) are read when sent.
 *
 * A project's documents are read once for the events of many claims: a read begun after an event's
 * delivery was claimed holds every document recorded by the event (its change committed before
 * the delivery was made), so it serves that event; each document is presented and encoded once
 * per read, and a body is those pieces joined.
 */
export class EventBodies {
  readonly #made = new Map<string, { body: Promise<Buffer>; bytes: number }>();
  #keptBytes = 0;
  /** The latest read of each project's documents. */
  readonly #documents = new Map<string, Documents>();
  #round = 0;
  #claiming = false;
  /** The round each event's delivery was claimed in (the oldest, when claimed again). */
  readonly #claimedIn = new Map<string, number>();

  constructor(
    private readonly store: Store,
    private readonly config: Pick<Config, 'timeZone' | 'documentAccess' | 'publicUrl'>,
    /** Told the time each body took to read and make. */
    private readonly spent: (ms: number) => void = () => {},
  ) {}

  has(eventId: string): boolean {
    return this.#made.has(eventId);
  }

  /** A claim is about to be made: the events it returns are told by claimed() (reads begun from now serve them). */
  claiming(): number {
    this.#claiming = true;
    return ++this.#round;
  }

  /** The events of the deliveries just claimed in `round` (none when the claim failed). */
  claimed(round: number, eventIds: Iterable<string>): void {
    this.#claiming = false;
    for (const id of eventIds) if (!this.#claimedIn.has(id)) this.#claimedIn.set(id, round);
    // Bounded: the oldest entries go first (an event whose round is forgotten is served by a fresh read).
    while (this.#claimedIn.size > 4096) this.#claimedIn.delete(this.#claimedIn.keys().next().value!);
  }

  /** The body of an event: kept (has()), made from `event`, or read (one kept a moment ago may have gone since). */
  body(eventId: string, event?: WebhookEvent): Promise<Buffer> {
    const kept = this.#made.get(eventId);
    if (kept) return kept.body;
    const entry = { body: this.#make(eventId, event), bytes: 0 };
    this.#made.set(eventId, entry);
    entry.body.then(
      (b) => {
        if (this.#made.get(eventId) !== entry) return;
        entry.bytes = b.length;
        this.#keptBytes += b.length;
        for (const [id, e] of this.#made) {
          if (this.#keptBytes <= KEPT_BYTES || e === entry) break;
          this.#forget(id);
        }
      },
      () => this.#forget(eventId),
    );
    return entry.body;
  }

  #forget(eventId: string): void {
    const e = this.#made.get(eventId);
    if (!e) return;
    this.#keptBytes -= e.bytes;
    this.#made.delete(eventId);
  }

  async #make(eventId: string, given: WebhookEvent | undefined): Promise<Buffer> {
    const event = given ?? (await this.store.webhookDeliveries.events([eventId])).get(eventId);
    if (!event) throw new Error(`the webhook event ${eventId} was not found`);
    // The reading counts too (on SQLite it runs on the event loop; on PostgreSQL its wait is counted as well, which errs on the side of waiting).
    const started = performance.now();
    const body = needsDocuments(event.payload)
      ? await this.#withDocuments(event, this.#read(event.payload.project.id, this.#claimedIn.get(eventId) ?? Infinity))
      : webhookBody(event, null, this.config.timeZone, this.#access);
    // As bytes: signed and sent to each endpoint without being encoded again.
    const bytes = Buffer.from(body);
    this.spent(performance.now() - started);
    return bytes;
  }

  get #access() {
    return { mode: this.config.documentAccess.mode, publicUrl: this.config.publicUrl };
  }

  /** A read of the project's documents that serves an event claimed in `round`: the latest one if it began since, else a new one. */
  #read(projectId: string, round: number): Documents {
    const latest = this.#documents.get(projectId);
    if (latest && latest.round >= round) return latest;
    // Begun while a claim is under way, a read may precede a change that claim finds: it serves the rounds before only.
    const read: Documents = { round: this.#claiming ? this.#round - 1 : this.#round, files: this.store.files.listForProject(projectId), json: new Map() };
    read.files.catch(() => this.#documents.get(projectId) === read && this.#documents.delete(projectId));
    this.#documents.set(projectId, read);
    // One read per project is kept; a few projects at most are being delivered at once.
    if (this.#documents.size > 64) this.#documents.delete(this.#documents.keys().next().value!);
    return read;
  }

  async #withDocuments(event: WebhookEvent, read: Documents): Promise<string> {
    return bodyWithDocuments(event, await read.files, read, this.#access, this.config.timeZone);
  }
}

/**
 * webhookBody (presenters/webhooks.ts) of a project event, its documents as they stood at the
 * event's time taken from `files` (a read of the project's documents made after the event): the
 * same bytes, each document's JSON made once for every event `shared` serves.
 */
export function bodyWithDocuments(
  event: WebhookEvent,
  files: readonly FileUploadWithNames[],
  shared: Pick<Documents, 'json' | 'duplicates'>,
  access: DocumentAccess,
  timeZone: string,
): string {
  const listed = documentsAsOf(files, event.createdAt);
  shared.duplicates ??= files.some((f) => f.voidedAt !== null) ? null : duplicatesOf(files);
  // A document withdrawn in the list changes the duplicates of the times before it: worked out for this event's list.
  const duplicates = shared.duplicates ?? duplicatesOf(listed);
  const pieces = listed.map((f) => {
    const duplicate = duplicates.get(f.id) ?? null;
    const key = `${f.id}\u0000${f.voidedAt ?? ''}\u0000${duplicate?.id ?? ''}`;
    let text = shared.json.get(key);
    if (text === undefined) shared.json.set(key, (text = JSON.stringify(presentFile(f, duplicate, access))));
    return text;
  });
  return webhookBodyWith(
    event,
    `[${pieces.join(',')}]`,
    (id) => {
      const at = listed.findIndex((f) => f.id === id);
      return at < 0 ? 'null' : pieces[at]!;
    },
    timeZone,
  );
}
