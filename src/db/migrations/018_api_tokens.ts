import type { Kysely } from 'kysely';
import type { Dialect } from '../index.js';

/**
 * Personal API tokens (interface.md, additions of 2026-11-24): only the SHA-256 of a token is kept
 * (`token_hash`, unique: the lookup of every Bearer request). A revoked token keeps its row with
 * `revoked_at`, so its use is told apart from a guess (which counts towards throttling).
 */
export function apiTokens(dialect: Dialect) {
  const ts = dialect === 'postgres' ? 'timestamptz' : 'text';
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('api_tokens')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('scope', 'text', (c) => c.notNull())
        .addColumn('token_hash', 'text', (c) => c.notNull().unique())
        .addColumn('created_at', ts, (c) => c.notNull())
        .addColumn('expires_at', ts)
        .addColumn('last_used_at', ts)
        .addColumn('revoked_at', ts)
        .execute();
      await db.schema.createIndex('api_tokens_user_id_created_at').on('api_tokens').columns(['user_id', 'created_at', 'id']).execute();
      await db.schema.createIndex('api_tokens_created_at_id').on('api_tokens').columns(['created_at', 'id']).execute();
    },
  };
}
