import type { ExpressionBuilder } from 'kysely';
import type { ProjectScope } from '../domain/visibility.js';
import { EMAIL_CATEGORIES, type EmailCategory } from '../mail/rules.js';
import type { Database, DB } from './index.js';
import { reusable } from './reusable.js';
import type { Tables } from './schema.js';
import { customersClients, seeingInternal, viewersOf } from './visibility.js';

/** A stored event of an outbox row (mail/outbox.ts writes it; names are read when the email is sent). */
export interface OutboxEvent {
  action: string;
  actorId: string;
  at: string;
  details: Record<string, unknown>;
}

/** An outbox row a dispatcher has claimed. */
export interface ClaimedMail {
  id: string;
  recipientId: string;
  projectId: string | null;
  events: OutboxEvent[];
  attempts: number;
  createdAt: string;
}

const parseEvents = (v: unknown): OutboxEvent[] => (typeof v === 'string' ? JSON.parse(v) : v) as OutboxEvent[];

/**
 * Who may be told, by the audience's shape (every upload asks): each compiled once (db/reusable.ts).
 * Whatever the audience, only users who may see the project (db/visibility.ts).
 */
const activeRecipients = (db: DB, exceptId: string, category: string, pocId: string, customerId: string | null) =>
  db
    .selectFrom('users')
    .select('id')
    .where('active', '=', true)
    .where('id', '!=', exceptId)
    .where((eb) => eb.not(eb.exists(eb.selectFrom('email_optouts').select('user_id').whereRef('email_optouts.user_id', '=', 'users.id').where('email_optouts.category', '=', category))))
    .where(viewersOf({ pocId, customerId }))
    .orderBy('id');
/** The owner's side of a project: its POC, and the CLIENTs of its customer (who follow their company's projects). */
const ownersSide = (pocId: string, customerId: string | null) => (eb: ExpressionBuilder<Tables, 'users'>) =>
  eb.or([eb('users.id', '=', pocId), customersClients(customerId)(eb)]);
const recipientQueries = {
  admins: reusable((db, exceptId: string, category: string, pocId: string, customerId: string | null) =>
    activeRecipients(db, exceptId, category, pocId, customerId).where('role', '=', 'ADMIN'),
  ),
  poc: reusable((db, exceptId: string, category: string, pocId: string, customerId: string | null) =>
    activeRecipients(db, exceptId, category, pocId, customerId).where(ownersSide(pocId, customerId)),
  ),
  adminsAndPoc: reusable((db, exceptId: string, category: string, pocId: string, customerId: string | null) =>
    activeRecipients(db, exceptId, category, pocId, customerId).where((eb) => eb.or([eb('role', '=', 'ADMIN'), ownersSide(pocId, customerId)(eb)])),
  ),
  /** Everyone who may see the project (a comment). */
  viewers: reusable((db, exceptId: string, category: string, pocId: string, customerId: string | null) => activeRecipients(db, exceptId, category, pocId, customerId)),
  /** The CLIENTs of the project's customer (a proof posted). */
  clients: reusable((db, exceptId: string, category: string, pocId: string, customerId: string | null) =>
    activeRecipients(db, exceptId, category, pocId, customerId).where(customersClients(customerId)),
  ),
  /** The admins and the project's owner alone (an answer to a proof). */
  adminsAndOwner: reusable((db, exceptId: string, category: string, pocId: string, customerId: string | null) =>
    activeRecipients(db, exceptId, category, pocId, customerId).where((eb) => eb.or([eb('role', '=', 'ADMIN'), eb('users.id', '=', pocId)])),
  ),
  /** Those of them who see internal notes (an internal comment). */
  shopViewers: reusable((db, exceptId: string, category: string, pocId: string, customerId: string | null) =>
    activeRecipients(db, exceptId, category, pocId, customerId).where(seeingInternal),
  ),
};

/** The outbox (migration 006): emails to come, written in the change's transaction, claimed by dispatchers. */
export function outboxRepo(db: DB, dialect: Database['dialect']) {
  return {
    /**
     * The active users to tell about the project: the admins and/or its owner's side (its POC and the
     * CLIENTs of its customer), or everyone (`viewers`; `shopOnly`: only those who see internal notes),
     * among those who may see it, except the actor and anyone who switched the category off. Ordered by
     * id, one lock order for every transaction.
     */
    async recipients(a: { admins: boolean; poc: boolean; viewers?: boolean; shopOnly?: boolean; clients?: boolean; ownerOnly?: boolean; project: ProjectScope; category: EmailCategory; exceptId: string }): Promise<string[]> {
      // A placeholder for "no customer" keeps one compiled shape: no user has an empty customer id.
      const args = [a.exceptId, a.category, a.project.pocId, a.project.customerId ?? ''] as const;
      const query = a.viewers ? (a.shopOnly ? recipientQueries.shopViewers : recipientQueries.viewers)(db, dialect, ...args)
        : a.clients ? recipientQueries.clients(db, dialect, ...args)
        : a.ownerOnly ? recipientQueries.adminsAndOwner(db, dialect, ...args)
        : a.admins && a.poc ? recipientQueries.adminsAndPoc(db, dialect, ...args)
        : a.admins ? recipientQueries.admins(db, dialect, ...args)
        : a.poc ? recipientQueries.poc(db, dialect, ...args)
        : undefined;
      if (!query) return [];
      const { rows } = await db.executeQuery(query);
      return rows.map((r) => r.id);
    },

    /**
     * Adds an event to the recipient's open email about the project (one not yet tried nor claimed),
     * or starts one due at `dueAt`. The open row is locked first (PostgreSQL), so a dispatcher
     * claiming it meanwhile either takes it before the event joins (and the event starts a new row)
     * or after; a unique index keeps one open row, so two changes at the same moment cannot both
     * start one: the second finds the first's row and joins it.
     */
    async queue(id: string, recipientId: string, projectId: string, event: OutboxEvent, now: string, dueAt: string): Promise<void> {
      for (let attempt = 1; ; attempt++) {
        const open = await db
          .selectFrom('outbox')
          .select(['id', 'events'])
          .where('recipient_id', '=', recipientId)
          .where('project_id', '=', projectId)
          .where('status', '=', 'pending')
          .where('attempts', '=', 0)
          .where('locked_until', 'is', null)
          .$if(dialect === 'postgres', (q) => q.forUpdate())
          .executeTakeFirst();
        if (open) {
          const updated = await db
            .updateTable('outbox')
            .set({ events: JSON.stringify([...parseEvents(open.events), event]) })
            .where('id', '=', open.id)
            .where('attempts', '=', 0)
            .where('locked_until', 'is', null)
            .executeTakeFirst();
          if (Number(updated.numUpdatedRows) === 1) return;
        }
        const inserted = await db
          .insertInto('outbox')
          .values({ id, recipient_id: recipientId, project_id: projectId, events: JSON.stringify([event]), status: 'pending', attempts: 0, created_at: now, due_at: dueAt })
          .onConflict((oc) => oc.doNothing())
          .executeTakeFirst();
        if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1) return;
        // Another change started the open row meanwhile (or a dispatcher claimed it): look again.
        if (attempt === 5) throw new Error('could not queue the email: the open outbox row kept changing');
      }
    },

    /** A row of its own, never joined by a change's events (a due-date digest: mail/outbox.ts). */
    async add(id: string, recipientId: string, projectId: string | null, events: OutboxEvent[], now: string, dueAt: string): Promise<void> {
      await db
        .insertInto('outbox')
        .values({ id, recipient_id: recipientId, project_id: projectId, events: JSON.stringify(events), status: 'pending', attempts: 0, created_at: now, due_at: dueAt })
        .execute();
    },

    /** An email about no project (a webhook switched off): to each active admin, due now, never joined with another. */
    async queueToAdmins(event: OutboxEvent, now: string, newId: () => string): Promise<void> {
      const admins = await db.selectFrom('users').select('id').where('role', '=', 'ADMIN').where('active', '=', true).execute();
      if (!admins.length) return;
      await db
        .insertInto('outbox')
        .values(admins.map((a) => ({ id: newId(), recipient_id: a.id, project_id: null, events: JSON.stringify([event]), status: 'pending', attempts: 0, created_at: now, due_at: now })))
        .execute();
    },

    /**
     * Claims up to `limit` due emails as `claimId` until `leaseUntil` (its holder renews the lease by
     * `claimId` while it works: renew; a dispatcher that dies lets them go when the lease ends) and
     * counts the attempt. PostgreSQL: FOR UPDATE SKIP LOCKED, so instances claiming at once take
     * different rows; SQLite: one statement under its single writer.
     */
    async claim(now: string, leaseUntil: string, limit: number, claimId: string): Promise<ClaimedMail[]> {
      const rows = await db
        .updateTable('outbox')
        .set((eb) => ({ locked_until: leaseUntil, claim_id: claimId, attempts: eb('attempts', '+', 1) }))
        .where('id', 'in', (eb) =>
          eb
            .selectFrom('outbox')
            .select('id')
            .where('status', '=', 'pending')
            .where('due_at', '<=', now)
            .where((w) => w.or([w('locked_until', 'is', null), w('locked_until', '<', now)]))
            .orderBy('due_at')
            .limit(limit)
            .$if(dialect === 'postgres', (q) => q.forUpdate().skipLocked()),
        )
        .returning(['id', 'recipient_id', 'project_id', 'events', 'attempts', 'created_at'])
        .execute();
      return rows.map((r) => ({ id: r.id, recipientId: r.recipient_id, projectId: r.project_id, events: parseEvents(r.events), attempts: Number(r.attempts), createdAt: r.created_at }));
    },

    /** Ends a claimed email: sent, dropped (nobody to send it to any more) or failed (given up). */
    async finish(id: string, status: 'sent' | 'dropped' | 'failed', now: string, error: string | null = null): Promise<void> {
      await db.updateTable('outbox').set({ status, sent_at: status === 'sent' ? now : null, locked_until: null, claim_id: null, last_error: error }).where('id', '=', id).execute();
    },

    /** The heartbeat of the claims still at work: their rows' leases last until `leaseUntil`. */
    async renew(claimIds: readonly string[], leaseUntil: string): Promise<void> {
      if (!claimIds.length) return;
      await db.updateTable('outbox').set({ locked_until: leaseUntil }).where('claim_id', 'in', [...claimIds]).where('status', '=', 'pending').execute();
    },

    /** A failed attempt: released, due again at `dueAt`. */
    async retryAt(id: string, dueAt: string, error: string): Promise<void> {
      await db.updateTable('outbox').set({ due_at: dueAt, locked_until: null, claim_id: null, last_error: error }).where('id', '=', id).execute();
    },

    /**
     * Emails not yet sent that first became due by `now` (created `batchSeconds` earlier: a retry's
     * later due_at does not hide an email from the count): how many, and since when the oldest is due.
     */
    async backlog(now: string, batchSeconds: number): Promise<{ count: number; oldestDueAt: string | null }> {
      const row = await db
        .selectFrom('outbox')
        .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.min('created_at').as('oldest')])
        .where('status', '=', 'pending')
        .where('created_at', '<=', new Date(Date.parse(now) - batchSeconds * 1000).toISOString())
        .executeTakeFirst();
      const oldest = row?.oldest as string | null | undefined;
      return { count: Number(row?.n ?? 0), oldestDueAt: oldest ? new Date(Date.parse(oldest) + batchSeconds * 1000).toISOString() : null };
    },

    /** Sent and dropped emails older than `before` go; failed ones stay for inspection. */
    async deleteFinished(before: string): Promise<void> {
      await db.deleteFrom('outbox').where('status', 'in', ['sent', 'dropped']).where('created_at', '<', before).execute();
    },
  };
}

/** The email categories each user switched off. */
export function emailOptoutsRepo(db: DB) {
  return {
    async list(userId: string): Promise<EmailCategory[]> {
      const rows = await db.selectFrom('email_optouts').select('category').where('user_id', '=', userId).execute();
      return rows.map((r) => r.category as EmailCategory);
    },
    /** Switches each given category on (true) or off (false); anything but a known category is no row of ours. */
    async set(userId: string, choices: Partial<Record<EmailCategory, boolean>>): Promise<void> {
      const entries = (Object.entries(choices) as [EmailCategory, boolean][]).filter(([c]) => EMAIL_CATEGORIES.includes(c));
      const on = entries.filter(([, v]) => v).map(([c]) => c);
      const off = entries.filter(([, v]) => !v).map(([c]) => c);
      if (on.length) await db.deleteFrom('email_optouts').where('user_id', '=', userId).where('category', 'in', on).execute();
      if (off.length) {
        await db
          .insertInto('email_optouts')
          .values(off.map((category) => ({ user_id: userId, category })))
          .onConflict((oc) => oc.columns(['user_id', 'category']).doNothing())
          .execute();
      }
    },
  };
}

/** Password-reset links (migration 006): only the token's hash is stored; each works once, until it expires. */
export function passwordResetsRepo(db: DB) {
  return {
    async create(tokenHash: string, userId: string, now: string, expiresAt: string): Promise<void> {
      await db.insertInto('password_resets').values({ token_hash: tokenHash, user_id: userId, created_at: now, expires_at: expiresAt }).execute();
    },
    /** The user of a token that is neither used nor expired, or undefined; spends nothing. */
    async findUsable(tokenHash: string, now: string): Promise<string | undefined> {
      const row = await db
        .selectFrom('password_resets')
        .select('user_id')
        .where('token_hash', '=', tokenHash)
        .where('used_at', 'is', null)
        .where('expires_at', '>', now)
        .executeTakeFirst();
      return row?.user_id;
    },
    /** Spends the token in one statement (so two uses at once cannot both succeed): its user, or undefined when unknown, used or expired. */
    async consume(tokenHash: string, now: string): Promise<string | undefined> {
      const row = await db
        .updateTable('password_resets')
        .set({ used_at: now })
        .where('token_hash', '=', tokenHash)
        .where('used_at', 'is', null)
        .where('expires_at', '>', now)
        .returning('user_id')
        .executeTakeFirst();
      return row?.user_id;
    },
    /** After a reset, the user's other outstanding links stop working too. */
    async spendAllForUser(userId: string, now: string): Promise<void> {
      await db.updateTable('password_resets').set({ used_at: now }).where('user_id', '=', userId).where('used_at', 'is', null).execute();
    },
    async deleteExpired(now: string): Promise<void> {
      await db.deleteFrom('password_resets').where('expires_at', '<=', now).execute();
    },
  };
}

