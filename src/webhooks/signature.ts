import { createHmac, randomBytes } from 'node:crypto';

/** A new endpoint secret, as Standard Webhooks writes them: `whsec_` and 32 random bytes in base64. */
export const newWebhookSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

/** The key a secret stands for: the base64 after `whsec_`, decoded. */
const keyOf = (secret: string): Buffer => Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');

/** One `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">` signature (Standard Webhooks). */
export const signatureOf = (secret: string, id: string, timestamp: number, body: string | Buffer): string =>
  // The body hashed as it is sent, without a copy of it joined to the prefix (bodies hold a project's documents: a megabyte or more).
  `v1,${createHmac('sha256', keyOf(secret)).update(`${id}.${timestamp}.`).update(body).digest('base64')}`;

/** The `webhook-signature` header: one signature per secret in use (two during a rotation's overlap), space-separated. */
export const signatureHeader = (secrets: string[], id: string, timestamp: number, body: string | Buffer): string =>
  secrets.map((s) => signatureOf(s, id, timestamp, body)).join(' ');
