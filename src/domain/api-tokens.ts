import { AppError } from '../errors.js';

/** What a token may do: `read` only GET and HEAD, `write` everything its user may. */
export const TOKEN_SCOPES = ['read', 'write'] as const;
export type TokenScope = (typeof TOKEN_SCOPES)[number];

/** An API token as stored, without its hash (interface.md, API tokens). */
export interface ApiToken {
  id: string;
  userId: string;
  name: string;
  scope: TokenScope;
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
}

/** Bounds of a new token (interface.md, API tokens): a name people recognise, an expiry in whole days. */
export const API_TOKEN_LIMITS = { nameMaxLength: 100, minDays: 1, maxDays: 3650 } as const;

/** Every token starts with this, so a leaked one is recognisable (secret scanners, logs). */
export const TOKEN_PREFIX = 'pos_';
/** base62 characters after the prefix: 40 × log2(62) ≈ 238 bits of randomness. */
export const TOKEN_RANDOM_LENGTH = 40;
export const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** What can be an API token at all; anything else is not looked up (nor counted as a guess it cannot be). */
export const looksLikeToken = (text: string): boolean => new RegExp(`^${TOKEN_PREFIX}[0-9A-Za-z]{32,200}$`).test(text);

/** The random part from random bytes: each byte below 248 (= 4 × 62) gives one character, so all 62 are equally likely. */
export function base62Of(bytes: Uint8Array, length: number): string {
  let out = '';
  for (const b of bytes) {
    if (b >= 248) continue;
    out += BASE62[b % 62];
    if (out.length === length) break;
  }
  return out;
}

/** Methods a read token may use. */
const READ_METHODS = new Set(['GET', 'HEAD']);
export const scopeAllows = (scope: TokenScope, method: string): boolean => scope === 'write' || READ_METHODS.has(method.toUpperCase());

export interface NewToken {
  name: string;
  scope: TokenScope;
  expiresInDays: number | null;
}

/** Checks a new token's fields beyond their JSON types: the trimmed name 1–100 characters, whole days 1–3650. */
export function newTokenRefusal(body: { name: string; scope: string; expiresInDays?: number | null }): AppError | null {
  const name = body.name.trim();
  if (!name) return new AppError(400, 'Name is required');
  if ([...name].length > API_TOKEN_LIMITS.nameMaxLength) return new AppError(400, `Name must be at most ${API_TOKEN_LIMITS.nameMaxLength} characters`);
  if (!(TOKEN_SCOPES as readonly string[]).includes(body.scope)) return new AppError(400, 'Scope must be read or write');
  const days = body.expiresInDays;
  if (days !== undefined && days !== null && (!Number.isInteger(days) || days < API_TOKEN_LIMITS.minDays || days > API_TOKEN_LIMITS.maxDays)) {
    return new AppError(400, `Expires in days must be a whole number from ${API_TOKEN_LIMITS.minDays} to ${API_TOKEN_LIMITS.maxDays}`);
  }
  return null;
}

/** When a token made at `nowMs` for `days` days expires (null: never). */
export const expiryOf = (nowMs: number, days: number | null): string | null => (days === null ? null : new Date(nowMs + days * 86_400_000).toISOString());

/** Why a stored token does not authenticate, or null when it does. */
export function tokenRefusal(token: { expiresAt: string | null; revokedAt: string | null; userActive: boolean }, nowMs: number): 'revoked' | 'expired' | 'deactivated' | null {
  if (token.revokedAt) return 'revoked';
  if (!token.userActive) return 'deactivated';
  if (token.expiresAt && Date.parse(token.expiresAt) <= nowMs) return 'expired';
  return null;
}

/** Last use is written at most once a minute per token: never a write per request. */
export const LAST_USE_INTERVAL_MS = 60_000;
export const lastUseDue = (lastWrittenMs: number | null, nowMs: number): boolean => lastWrittenMs === null || nowMs - lastWrittenMs >= LAST_USE_INTERVAL_MS;
