import { Type } from '@fastify/type-provider-typebox';
import type { FastifyReply } from 'fastify';
import type { PreviewAnswer } from '../actions/document-preview.js';
import { PREVIEW_WIDTH, previewParams } from '../domain/previews.js';
import { AppError } from '../errors.js';

/** A preview's query, as documented (its whole numbers are checked as written by previewRequestOf, not by the schema). */
export const PreviewQuery = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 1, default: 1, description: 'the page, from 1 (a picture has one)' })),
  width: Type.Optional(Type.Integer({ minimum: PREVIEW_WIDTH.min, maximum: PREVIEW_WIDTH.max, default: PREVIEW_WIDTH.default, description: 'in pixels' })),
});

/** The page and width of a preview request (checked as written, as a document's preview does). */
export function previewRequestOf(query: unknown, ifNoneMatch: string | undefined) {
  const params = previewParams(query as Record<string, unknown>);
  if ('error' in params) throw new AppError(400, params.error);
  return { ...params, ifNoneMatch };
}

/** A preview answer, sent the same way for a document and a proof. */
export function sendPreview(reply: FastifyReply, answer: PreviewAnswer) {
  reply.header('etag', answer.etag);
  // Private: a shared cache must not keep a picture of someone's document; no-cache: access is checked again each time (a 304 is cheap).
  reply.header('cache-control', 'private, no-cache');
  reply.header('x-content-type-options', 'nosniff');
  if (answer.pages !== null) reply.header('x-page-count', String(answer.pages));
  if (answer.notModified) return reply.code(304).send(null);
  reply.header('content-type', answer.contentType);
  return reply.send(answer.image);
}
