import { randomBytes } from 'node:crypto';
import type { Deps } from '../deps.js';
import { nowIso } from '../deps.js';
import type { ProofLink } from '../db/proofs.js';
import { base62Of } from '../domain/api-tokens.js';
import type { DocumentAccess } from '../domain/documents.js';
import { emailRefusal } from '../domain/limits.js';
import type { Actor } from '../domain/model.js';
import { previewKindOf } from '../domain/previews.js';
import { PROOF_LINK_DAYS, PROOF_TOKEN_LENGTH, type Proof, type ProofDecision, decideSendLink, linkName, linkOpen, proofErrors } from '../domain/proofs.js';
import { AppError, errors } from '../errors.js';
import { newId } from '../ids.js';
import { sendWithin } from '../mail/dispatcher.js';
import { proofLinkEmail } from '../mail/templates.js';
import { ObjectMissingError } from '../storage/types.js';
import { answerThroughLink } from './answer-proof.js';
import { hashToken } from './auth.js';
import { throttleState } from '../db/login-failures.js';
import { type PreviewAnswer, previewOfProof, proofAsDocument } from './proof-preview.js';
import { nowMs as currentMs } from '../clock.js';

/** A new link's token: 40 base62 characters from the system's CSPRNG (≈ 238 bits). */
function newToken(): string {
  let token = '';
  while (token.length < PROOF_TOKEN_LENGTH) token += base62Of(randomBytes(64), PROOF_TOKEN_LENGTH - token.length);
  return token;
}

/**
 * POST /api/projects/:id/proofs/:proofId/links: a link for a pending proof, mailed at once to the
 * address given (not batched, not through the outbox, which would have to keep the token: a lost
 * email is sent again with a new link). Only the token's hash is stored.
 */
export async function sendProofLink(
  deps: Pick<Deps, 'store' | 'config' | 'mail' | 'log'>,
  actor: Actor & { name: string },
  ids: { projectId: string; proofId: string },
  body: { email: string; name?: string },
): Promise<{ id: string; email: string; expiresAt: string }> {
  const project = await deps.store.projects.findWithNames(ids.projectId);
  const found = await deps.store.proofs.findById(ids.proofId);
  const proof = found && found.projectId === ids.projectId ? found : null;
  const refusal = decideSendLink(actor, project ?? null, proof);
  if (refusal) throw refusal;
  const email = body.email.trim();
  const badEmail = emailRefusal(email);
  if (badEmail) throw badEmail;
  const name = body.name?.trim() || null;
  if (name !== null && [...name].length > 200) throw new AppError(400, 'Name must be at most 200 characters');
  const token = newToken();
  const now = currentMs();
  const link: ProofLink = {
    id: newId(),
    proofId: proof!.id,
    email,
    name,
    createdById: actor.id,
    createdAt: nowIso(),
    expiresAt: new Date(now + PROOF_LINK_DAYS * 86_400_000).toISOString(),
  };
  await deps.store.proofs.links.insert({ ...link, tokenHash: hashToken(token) });
  const { publicUrl } = deps.config;
  const mail = proofLinkEmail(
    { name: name ?? email, address: email },
    { projectName: project!.name, version: proof!.version, filename: proof!.filename, sentBy: actor.name },
    `${publicUrl}/proofs/${token}`,
    PROOF_LINK_DAYS,
    publicUrl,
  );
  void sendWithin(deps.mail.transport, mail).then(
    (sent) => deps.log.info({ to: email, transport: deps.mail.transport.name, detail: sent.detail }, 'proof link email sent'),
    (err: unknown) => deps.log.error({ err, to: email }, 'proof link email not sent'),
  );
  return { id: link.id, email, expiresAt: link.expiresAt };
}

/** What an open link reaches: its proof, and the three facts of the project the page shows. */
interface Opened {
  link: ProofLink;
  proof: Proof;
  project: { id: string; name: string; reference: string | null; customerName: string | null };
}

/**
 * The proof behind a token, while the link is open (not expired, its proof pending). A token that
 * opens nothing is a failed sign-in of the client address (`address:<ip>`, the sign-in's own key,
 * LOGIN_MAX_FAILURES_PER_ADDRESS within LOGIN_WINDOW_MINUTES): past the limit every link request
 * from that address is 429 until the window ends, so tokens cannot be tried in bulk.
 */
async function openLink(deps: Pick<Deps, 'store' | 'config'>, token: string, address: string): Promise<Opened> {
  const key = `address:${address}`;
  const max = deps.config.login.maxFailuresPerAddress;
  const windowMs = deps.config.login.windowMinutes * 60_000;
  const nowMs = currentMs();
  const retryAfter = (windowStartedAt: string) => Math.max(1, Math.ceil((Date.parse(windowStartedAt) + windowMs - currentMs()) / 1000));
  const plausible = /^[0-9A-Za-z]{32,200}$/.test(token);
  const at = { windowStart: new Date(nowMs - windowMs).toISOString(), staleBefore: nowMs };
  // One read for an open link: the link, its proof, the project's facts and the throttle's row together.
  const opened = plausible ? await deps.store.proofs.links.open(hashToken(token), key) : undefined;
  const state = opened ? throttleState(opened.throttle, at) : await deps.store.loginFailures.state(key, at);
  if (state.failures >= max) throw proofErrors.tooManyLinkAttempts(retryAfter(state.windowStartedAt));
  if (!opened || !linkOpen(opened.link, opened.proof, nowMs)) {
    const [counted] = await deps.store.loginFailures.count([key], new Date(nowMs).toISOString(), new Date(nowMs - windowMs).toISOString());
    if (counted && counted.failures > max) throw proofErrors.tooManyLinkAttempts(retryAfter(counted.windowStartedAt));
    throw proofErrors.invalidLink();
  }
  return opened;
}

/** GET /api/proof-links/:token: the project's name, reference and customer, the proof, and its page count (1 for a picture, null without a preview). */
export async function viewProofLink(deps: Pick<Deps, 'store' | 'config' | 'storage' | 'previews'>, token: string, address: string) {
  const { proof, project } = await openLink(deps, token, address);
  // The first page's preview tells the count (and is what the page shows first): made once, then known in memory.
  const kind = previewKindOf(proof);
  const pageCount = kind ? await deps.previews.pageCount(deps.storage, proofAsDocument(proof), kind, 320) : null;
  return { project, proof, pageCount };
}

/** GET /api/proof-links/:token/preview: a page of the proof, as a document's preview answers. */
export async function proofLinkPreview(
  deps: Pick<Deps, 'store' | 'config' | 'storage' | 'previews'>,
  token: string,
  address: string,
  request: { page: number; width: number; ifNoneMatch?: string },
): Promise<PreviewAnswer> {
  const { proof } = await openLink(deps, token, address);
  return previewOfProof(deps, proof, request);
}

/** GET /api/proof-links/:token/file: the proof's bytes (always as an attachment). */
export async function proofLinkFile(deps: Pick<Deps, 'store' | 'config' | 'storage'>, token: string, address: string) {
  const { proof } = await openLink(deps, token, address);
  try {
    return { proof, stream: await deps.storage.open({ key: proof.storageKey, url: proof.url }) };
  } catch (err) {
    if (err instanceof ObjectMissingError) throw errors.notFound();
    throw err;
  }
}

/** POST /api/proof-links/:token/approve and …/request-changes: the answer with the name given, `via: "link"`. */
export async function answerProofLink(
  deps: Pick<Deps, 'store' | 'config' | 'realtime' | 'log'>,
  token: string,
  address: string,
  decision: ProofDecision,
  body: { name?: unknown; note?: unknown },
  access: DocumentAccess,
): Promise<Proof> {
  const { link, proof } = await openLink(deps, token, address);
  const name = linkName(body.name);
  if (name instanceof AppError) throw name;
  return answerThroughLink(deps, { projectId: proof.projectId, proofId: proof.id }, decision, body.note, { name, email: link.email }, access);
}
