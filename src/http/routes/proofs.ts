import multipart from '@fastify/multipart';
import { Type } from '@fastify/type-provider-typebox';
import { answerProof } from '../../actions/answer-proof.js';
import { postProof } from '../../actions/post-proof.js';
import { answerProofLink, proofLinkFile, proofLinkPreview, sendProofLink, viewProofLink } from '../../actions/proof-links.js';
import { listProofs, projectProofPreview } from '../../actions/proof-preview.js';
import { cleanContentType, dispositionFor } from '../../domain/documents.js';
import { PROOF_LIMITS } from '../../domain/proofs.js';
import { presentLinkedProof, presentProof, presentProofLink } from '../../presenters/proofs.js';
import { readProofForm } from '../../uploads/proof-form.js';
import { PreviewQuery, previewRequestOf, sendPreview } from '../previews.js';
import { actorOf } from '../session.js';
import { IdParams, NoQuery, errorRef } from '../schemas.js';
import { LinkedProof, Proof, ProofLinkSent, ProofLinkView } from '../proof-schemas.js';
import { type App, type RouteContext, documentAccessOf, documentationOnly, withRequestLog } from './context.js';

const ProofParams = Type.Object({ id: Type.String(), proofId: Type.String() });
const TokenParams = Type.Object({ token: Type.String() });
const previewResponses = {
  200: Type.Unsafe<Buffer>({ description: 'the picture (image/webp)', type: 'string', format: 'binary' }),
  304: Type.Null({ description: 'If-None-Match named the ETag' }),
  400: errorRef,
  404: errorRef,
  429: errorRef,
  503: errorRef,
};
const noteField = (required: boolean) =>
  required
    ? Type.String({ maxLength: PROOF_LIMITS.note, description: `1–${PROOF_LIMITS.note} characters: what should change` })
    : Type.Optional(Type.String({ maxLength: PROOF_LIMITS.note, description: `up to ${PROOF_LIMITS.note} characters` }));

/** Proofs (interface.md, additions of 2026-11-27, "Proofs"): versions posted by the shop, answers, approval links. */
export async function proofRoutes(app: App, { deps, hooks }: RouteContext) {
  const access = documentAccessOf(deps);

  // The post is a multipart upload: its own scope, where the body is left to the upload steps.
  await app.register(async (upload: App) => {
    upload.removeAllContentTypeParsers();
    upload.addContentTypeParser('*', (_req, _payload, done) => done(null));
    await upload.register(multipart, { throwFileSizeLimit: false });
    upload.post(
      '/api/projects/:id/proofs',
      {
        onRequest: hooks.requireSession,
        config: { failure: { message: 'Upload failed', exposeMessage: true }, streamedBody: true },
        schema: {
          tags: ['proofs'],
          operationId: 'postProof',
          summary: 'Post a new version of the proof (ADMIN or the owner)',
          description:
            'multipart/form-data: the part "file" and an optional field "note" (up to 2,000 characters), in either order. Stored like a document ' +
            '(streamed, SHA-256, MAX_UPLOAD_BYTES 413, UPLOAD_ALLOWED_TYPES 415, DOCUMENT_ACCESS) in folder print-orders/<projectId>/proof. ' +
            'A pending earlier version becomes superseded (an answered one keeps its answer). Anyone else who may see the project 403, who may not 404; ' +
            'a project DISPATCHED, DELIVERED or CANCELLED 409 "Proofs can be posted only before dispatch"; no file 400 "file is required". A refused post uses no version number.',
          consumes: ['multipart/form-data'],
          params: IdParams,
          body: Type.Object({ file: Type.String({ format: 'binary' }), note: Type.Optional(Type.String({ maxLength: PROOF_LIMITS.note })) }),
          response: { 201: Proof, 400: errorRef, 401: errorRef, 403: errorRef, 404: errorRef, 409: errorRef, 413: errorRef, 415: errorRef, 500: errorRef },
        },
        validatorCompiler: documentationOnly,
      },
      async (req, reply) => {
        const proof = await postProof(withRequestLog(deps, req), actorOf(req), req.params.id, readProofForm(req, deps.config), access).catch((err: unknown) => {
          if (reply.sent) return null; // a body timed out: already answered (http/timeouts.ts)
          throw err;
        });
        if (!proof) return reply;
        return reply.code(201).send(presentProof(proof, access));
      },
    );
  });

  app.get(
    '/api/projects/:id/proofs',
    {
      onRequest: hooks.requireSession,
      schema: {
        tags: ['proofs'],
        operationId: 'listProofs',
        summary: "A project's proofs, newest first, for whoever may see the project",
        params: IdParams,
        querystring: NoQuery,
        response: { 200: Type.Object({ items: Type.Array(Proof) }), 400: errorRef, 401: errorRef, 404: errorRef },
      },
    },
    async (req) => ({ items: (await listProofs(deps, actorOf(req), req.params.id)).map((p) => presentProof(p, access)) }),
  );

  app.get(
    '/api/projects/:id/proofs/:proofId/preview',
    {
      onRequest: hooks.requireSession,
      validatorCompiler: documentationOnly,
      schema: {
        tags: ['proofs'],
        operationId: 'previewProof',
        summary: "A picture of one page of a proof, as a document's preview",
        params: ProofParams,
        querystring: PreviewQuery,
        produces: ['image/webp'],
        response: { ...previewResponses, 401: errorRef },
      },
    },
    async (req, reply) => {
      const request = previewRequestOf(req.query, req.headers['if-none-match']);
      return sendPreview(reply, await projectProofPreview(deps, actorOf(req), { projectId: req.params.id, proofId: req.params.proofId }, request));
    },
  );

  for (const [path, decision, operationId] of [
    ['approve', 'approved', 'approveProof'],
    ['request-changes', 'changes-requested', 'requestProofChanges'],
  ] as const) {
    app.post(
      `/api/projects/:id/proofs/:proofId/${path}`,
      {
        onRequest: hooks.requireSession,
        schema: {
          tags: ['proofs'],
          operationId,
          summary:
            decision === 'approved'
              ? 'Approve the latest proof: a CLIENT of the customer, or the owner or an ADMIN recording an answer given by phone'
              : 'Ask for changes to the latest proof (a note is required): a CLIENT of the customer, the owner or an ADMIN',
          description:
            'Only the latest version, only while pending: an earlier one 409 "A newer proof replaces this one", the latest answered 409 "This proof was already answered". ' +
            'Anyone else who may see the project 403, who may not 404.',
          params: ProofParams,
          body: Type.Object({ note: noteField(decision === 'changes-requested') }, { additionalProperties: false }),
          response: { 200: Proof, 400: errorRef, 401: errorRef, 403: errorRef, 404: errorRef, 409: errorRef },
        },
      },
      async (req) => presentProof(await answerProof(withRequestLog(deps, req), actorOf(req), { projectId: req.params.id, proofId: req.params.proofId }, decision, req.body, access), access),
    );
  }

  app.post(
    '/api/projects/:id/proofs/:proofId/links',
    {
      onRequest: hooks.requireSession,
      schema: {
        tags: ['proofs'],
        operationId: 'sendProofLink',
        summary: 'Email an approval link for a pending proof to a customer without an account (ADMIN or the owner)',
        description:
          'The email goes at once to that address with PUBLIC_URL/proofs/<token>: the token is 40 random base62 characters, only its hash is stored; ' +
          'it works 14 days and only while that proof is pending. Anyone else who may see the project 403, who may not 404; a proof not pending 409.',
        params: ProofParams,
        body: Type.Object(
          { email: Type.String({ maxLength: 254, description: 'where the link goes' }), name: Type.Optional(Type.String({ maxLength: PROOF_LIMITS.name, description: "the person's name, for the greeting" })) },
          { additionalProperties: false },
        ),
        response: { 201: ProofLinkSent, 400: errorRef, 401: errorRef, 403: errorRef, 404: errorRef, 409: errorRef },
      },
    },
    async (req, reply) =>
      reply.code(201).send(await sendProofLink(withRequestLog(deps, req), actorOf(req), { projectId: req.params.id, proofId: req.params.proofId }, req.body)),
  );

  // Without a session: the token is the only key, and reaches only its proof.
  const linkDescription =
    'No session. An unknown, expired or spent token 404 "This proof link is invalid or expired"; each counts as a failed sign-in of the client address, ' +
    'after LOGIN_MAX_FAILURES_PER_ADDRESS within LOGIN_WINDOW_MINUTES every link request from it is 429 with Retry-After.';
  app.get(
    '/api/proof-links/:token',
    {
      schema: {
        tags: ['proofs'],
        operationId: 'viewProofLink',
        summary: "What an approval link shows: the project's name, reference and customer, the proof, its page count",
        description: linkDescription,
        security: [],
        params: TokenParams,
        response: { 200: ProofLinkView, 404: errorRef, 429: errorRef },
      },
    },
    async (req, reply) => {
      reply.header('cache-control', 'no-store');
      return presentProofLink(await viewProofLink(deps, req.params.token, req.ip));
    },
  );

  app.get(
    '/api/proof-links/:token/preview',
    {
      validatorCompiler: documentationOnly,
      schema: {
        tags: ['proofs'],
        operationId: 'previewProofLink',
        summary: "A picture of one page of the link's proof",
        description: linkDescription,
        security: [],
        params: TokenParams,
        querystring: PreviewQuery,
        produces: ['image/webp'],
        response: previewResponses,
      },
    },
    async (req, reply) => sendPreview(reply, await proofLinkPreview(deps, req.params.token, req.ip, previewRequestOf(req.query, req.headers['if-none-match']))),
  );

  app.get(
    '/api/proof-links/:token/file',
    {
      schema: {
        tags: ['proofs'],
        operationId: 'downloadProofLink',
        summary: "The link's proof file, as an attachment",
        description: linkDescription,
        security: [],
        params: TokenParams,
        response: { 200: Type.Unsafe<Buffer>({ description: 'the bytes', type: 'string', format: 'binary' }), 404: errorRef, 429: errorRef },
      },
    },
    async (req, reply) => {
      const { proof, stream } = await proofLinkFile(deps, req.params.token, req.ip);
      reply.header('content-type', cleanContentType(proof.contentType));
      reply.header('x-content-type-options', 'nosniff');
      reply.header('content-security-policy', "sandbox; default-src 'none'");
      reply.header('content-disposition', dispositionFor('application/octet-stream', proof.filename).replace(/^inline/, 'attachment'));
      reply.header('cache-control', 'private, no-store');
      return reply.send(stream);
    },
  );

  for (const [path, decision, operationId] of [
    ['approve', 'approved', 'approveProofLink'],
    ['request-changes', 'changes-requested', 'requestProofLinkChanges'],
  ] as const) {
    app.post(
      `/api/proof-links/:token/${path}`,
      {
        schema: {
          tags: ['proofs'],
          operationId,
          summary: decision === 'approved' ? "Approve the link's proof, with one's name" : "Ask for changes to the link's proof, with one's name and a note",
          description: `${linkDescription} Recorded with via "link", byId null, byName the name given. The link is spent by the answer.`,
          security: [],
          params: TokenParams,
          body: Type.Object(
            { name: Type.String({ maxLength: PROOF_LIMITS.name, description: `1–${PROOF_LIMITS.name} characters` }), note: noteField(decision === 'changes-requested') },
            { additionalProperties: false },
          ),
          response: { 200: LinkedProof, 400: errorRef, 404: errorRef, 409: errorRef, 429: errorRef },
        },
      },
      async (req) => presentLinkedProof(await answerProofLink(withRequestLog(deps, req), req.params.token, req.ip, decision, req.body, access)),
    );
  }
}
