import type { ApiToken, TokenScope } from '../domain/api-tokens.js';
import type { User } from '../domain/model.js';
import type { Database, DB } from './index.js';
import { reusable } from './reusable.js';
import { USER_COLUMNS, toUser } from './rows.js';

export type { ApiToken };

/** A token found by its hash for a Bearer request: its user read fresh (role, active) in the same query. */
export interface FoundToken extends ApiToken {
  revokedAt: string | null;
  user: User;
}

const TOKEN_COLUMNS = ['api_tokens.id', 'api_tokens.user_id', 'api_tokens.name', 'api_tokens.scope', 'api_tokens.created_at', 'api_tokens.expires_at', 'api_tokens.last_used_at'] as const;

interface TokenRow {
  id: string;
  user_id: string;
  name: string;
  scope: string;
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
}

const toToken = (r: TokenRow): ApiToken => ({
  id: r.id,
  userId: r.user_id,
  name: r.name,
  scope: r.scope as TokenScope,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
  lastUsedAt: r.last_used_at,
});

/** Every Bearer request's lookup, compiled once (reusable.ts). */
const hot = {
  byHash: reusable((db, tokenHash: string) =>
    db
      .selectFrom('api_tokens')
      .innerJoin('users', 'users.id', 'api_tokens.user_id')
      .select([
        'api_tokens.id as token_id',
        'api_tokens.name as token_name',
        'api_tokens.scope',
        'api_tokens.created_at as token_created_at',
        'api_tokens.expires_at',
        'api_tokens.last_used_at',
        'api_tokens.revoked_at',
      ])
      .select(USER_COLUMNS.map((c) => `users.${c}` as const))
      .where('api_tokens.token_hash', '=', tokenHash),
  ),
};

/** API tokens by their hash (only the hash is stored); revoked ones keep their row, listed no more. */
export function apiTokensRepo(db: DB, dialect: Database['dialect']) {
  return {
    async insert(token: ApiToken, tokenHash: string): Promise<void> {
      await db
        .insertInto('api_tokens')
        .values({
          id: token.id,
          user_id: token.userId,
          name: token.name,
          scope: token.scope,
          token_hash: tokenHash,
          created_at: token.createdAt,
          expires_at: token.expiresAt,
          last_used_at: token.lastUsedAt,
          revoked_at: null,
        })
        .execute();
    },
    /** The token behind a Bearer request, revoked or expired ones included (the caller judges), with its user. */
    async findByHash(tokenHash: string): Promise<FoundToken | undefined> {
      const [row] = (await db.executeQuery(hot.byHash(db, dialect, tokenHash))).rows;
      if (!row) return undefined;
      const user = toUser(row);
      const token = toToken({ ...row, id: row.token_id, user_id: row.id, name: row.token_name, created_at: row.token_created_at });
      return { ...token, revokedAt: row.revoked_at, user };
    },
    /** One user's tokens not revoked (expired ones included, so the owner sees they ended), newest first. */
    async listForUser(userId: string): Promise<ApiToken[]> {
      const rows = await db
        .selectFrom('api_tokens')
        .select(TOKEN_COLUMNS)
        .where('user_id', '=', userId)
        .where('revoked_at', 'is', null)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .execute();
      return rows.map(toToken);
    },
    /** Everyone's tokens not revoked, with their owner's name, newest first (ADMIN). */
    async listAll(): Promise<(ApiToken & { userName: string })[]> {
      const rows = await db
        .selectFrom('api_tokens')
        .innerJoin('users', 'users.id', 'api_tokens.user_id')
        .select(TOKEN_COLUMNS)
        .select('users.name as user_name')
        .where('api_tokens.revoked_at', 'is', null)
        .orderBy('api_tokens.created_at', 'desc')
        .orderBy('api_tokens.id', 'desc')
        .execute();
      return rows.map((r) => ({ ...toToken(r), userName: r.user_name }));
    },
    /** Revokes one token not yet revoked (of `userId` when given); its hash, or undefined when there was none. */
    async revoke(id: string, now: string, userId?: string): Promise<string | undefined> {
      let query = db.updateTable('api_tokens').set({ revoked_at: now }).where('id', '=', id).where('revoked_at', 'is', null);
      if (userId !== undefined) query = query.where('user_id', '=', userId);
      const row = await query.returning('token_hash').executeTakeFirst();
      return row?.token_hash;
    },
    /** Revokes every token of a user (deactivation). */
    async revokeForUser(userId: string, now: string): Promise<void> {
      await db.updateTable('api_tokens').set({ revoked_at: now }).where('user_id', '=', userId).where('revoked_at', 'is', null).execute();
    },
    /** Records a use (called at most once a minute per token per instance). */
    async touch(id: string, now: string): Promise<void> {
      await db.updateTable('api_tokens').set({ last_used_at: now }).where('id', '=', id).execute();
    },
    /** The tokens among these hashes with what a stream needs to know: expiry, revocation, the user's role, active flag and company. */
    async findMany(tokenHashes: string[]): Promise<{ tokenHash: string; expiresAt: string | null; revoked: boolean; role: User['role']; active: boolean; customerId: string | null }[]> {
      if (!tokenHashes.length) return [];
      const rows = await db
        .selectFrom('api_tokens')
        .innerJoin('users', 'users.id', 'api_tokens.user_id')
        .select(['api_tokens.token_hash', 'api_tokens.expires_at', 'api_tokens.revoked_at', 'users.role', 'users.active', 'users.customer_id'])
        .where('api_tokens.token_hash', 'in', tokenHashes)
        .execute();
      return rows.map((r) => ({ tokenHash: r.token_hash, expiresAt: r.expires_at, revoked: r.revoked_at !== null, role: r.role as User['role'], active: Boolean(r.active), customerId: r.customer_id }));
    },
  };
}
