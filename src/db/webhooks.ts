import type { Selectable } from 'kysely';
import type { Webhook } from '../domain/webhooks.js';
import type { DB, Dialect } from './index.js';
import { reusable } from './reusable.js';
import type { WebhooksTable } from './schema.js';

const parseList = (v: unknown): string[] => (typeof v === 'string' ? JSON.parse(v) : v) as string[];

const toWebhook = (r: Selectable<WebhooksTable>): Webhook => ({
  id: r.id,
  url: r.url,
  events: parseList(r.events),
  description: r.description,
  secret: r.secret,
  previousSecret: r.previous_secret,
  previousSecretExpiresAt: r.previous_secret_expires_at,
  active: Boolean(r.active),
  failingSince: r.failing_since,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

/** Every change asks which endpoints listen (webhooks/outbox.ts): compiled once. */
const activeEndpoints = reusable((db) => db.selectFrom('webhooks').select(['id', 'events']).where('active', '=', true).orderBy('id'));

export type WebhookChange = Partial<Pick<Webhook, 'url' | 'events' | 'description' | 'active' | 'secret' | 'previousSecret' | 'previousSecretExpiresAt'>>;

/** The endpoints admins registered (migration 020). */
export function webhooksRepo(db: DB, dialect: Dialect) {
  return {
    async insert(w: Webhook): Promise<void> {
      await db
        .insertInto('webhooks')
        .values({
          id: w.id,
          url: w.url,
          events: JSON.stringify(w.events),
          description: w.description,
          secret: w.secret,
          previous_secret: w.previousSecret,
          previous_secret_expires_at: w.previousSecretExpiresAt,
          active: w.active,
          failing_since: w.failingSince,
          created_at: w.createdAt,
          updated_at: w.updatedAt,
        })
        .execute();
    },
    async findById(id: string): Promise<Webhook | undefined> {
      const row = await db.selectFrom('webhooks').selectAll().where('id', '=', id).executeTakeFirst();
      return row && toWebhook(row);
    },
    /** These endpoints (a dispatcher's claim), by id; deleted ones are missing. */
    async findMany(ids: readonly string[]): Promise<Map<string, Webhook>> {
      if (!ids.length) return new Map();
      const rows = await db.selectFrom('webhooks').selectAll().where('id', 'in', [...new Set(ids)]).execute();
      return new Map(rows.map((r) => [r.id, toWebhook(r)]));
    },
    async list(): Promise<Webhook[]> {
      return (await db.selectFrom('webhooks').selectAll().orderBy('created_at').orderBy('id').execute()).map(toWebhook);
    },
    /** The active endpoints and what they listen to. */
    async listening(): Promise<{ id: string; events: string[] }[]> {
      const { rows } = await db.executeQuery(activeEndpoints(db, dialect));
      return rows.map((r) => ({ id: r.id, events: parseList(r.events) }));
    },
    async update(id: string, c: WebhookChange, now: string): Promise<Webhook | undefined> {
      const row = await db
        .updateTable('webhooks')
        .set({
          url: c.url,
          events: c.events && JSON.stringify(c.events),
          description: c.description,
          active: c.active,
          secret: c.secret,
          previous_secret: c.previousSecret,
          previous_secret_expires_at: c.previousSecretExpiresAt,
          // Switched on again: its failures so far no longer count towards deactivation.
          ...(c.active === true ? { failing_since: null } : {}),
          updated_at: now,
        })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst();
      return row && toWebhook(row);
    },
    async delete(id: string): Promise<boolean> {
      const result = await db.deleteFrom('webhooks').where('id', '=', id).executeTakeFirst();
      return Number(result.numDeletedRows) === 1;
    },
    /** A failed attempt: the endpoint's failing run starts now unless it had started already; answers when it started. */
    async failing(id: string, now: string): Promise<string | null> {
      await db.updateTable('webhooks').set({ failing_since: now }).where('id', '=', id).where('failing_since', 'is', null).execute();
      const row = await db.selectFrom('webhooks').select('failing_since').where('id', '=', id).executeTakeFirst();
      return row?.failing_since ?? null;
    },
    async healthy(id: string): Promise<void> {
      await db.updateTable('webhooks').set({ failing_since: null }).where('id', '=', id).where('failing_since', 'is not', null).execute();
    },
    /** Switches an active endpoint off; true for the one caller that did (instances may try at once). */
    async deactivate(id: string, now: string): Promise<boolean> {
      const result = await db.updateTable('webhooks').set({ active: false, updated_at: now }).where('id', '=', id).where('active', '=', true).executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
  };
}
