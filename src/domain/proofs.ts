import { AppError, errors } from '../errors.js';
import { labelOf } from './labels.js';
import type { Project, ProjectStatus } from './model.js';
import { type Viewer, maySeeProject } from './visibility.js';

/*
 * Proofs (interface.md, additions of 2026-11-27, "Proofs: the customer approves the artwork before
 * printing"): who may post, answer and send a link, which version may be answered, what a new
 * version does to the one before, and whether printing may start. Pure: the table test walks them.
 */

export const PROOF_STATUSES = ['pending', 'approved', 'changes-requested', 'superseded'] as const;
export type ProofStatus = (typeof PROOF_STATUSES)[number];
export const PROOF_DECISIONS = ['approved', 'changes-requested'] as const;
export type ProofDecision = (typeof PROOF_DECISIONS)[number];
export type ProofVia = 'account' | 'link';

/** The customer's answer to one version. */
export interface ProofResponse {
  decision: ProofDecision;
  note: string | null;
  /** null when answered through a link. */
  byId: string | null;
  byName: string;
  via: ProofVia;
  at: string;
  /** The link's address, when answered through one: the activity entry's details carry it, never the proof's JSON. */
  email: string | null;
}

/** One version of the artwork, as stored. */
export interface Proof {
  id: string;
  projectId: string;
  version: number;
  filename: string;
  size: number;
  contentType: string;
  detectedType: string | null;
  sha256: string;
  storageKey: string;
  url: string;
  note: string | null;
  status: ProofStatus;
  postedById: string;
  createdAt: string;
  response: ProofResponse | null;
}

export interface ProofWithNames extends Proof {
  postedByName: string | null;
}

/** What a project carries of its latest proof. */
export interface ProofSummary {
  id: string;
  version: number;
  status: ProofStatus;
}

/** Bounds of the texts a proof takes. */
export const PROOF_LIMITS = { note: 2000, name: 200 } as const;

/** An approval link lasts this long, and only while its proof is pending. */
export const PROOF_LINK_DAYS = 14;

/** A link's token: base62, this many characters (≈ 238 bits). */
export const PROOF_TOKEN_LENGTH = 40;

/** States after which no proof is posted any more. */
const NO_PROOFS_IN: readonly ProjectStatus[] = ['DISPATCHED', 'DELIVERED', 'CANCELLED'];

export const proofErrors = {
  fileRequired: () => new AppError(400, 'file is required'),
  afterDispatch: () => new AppError(409, 'Proofs can be posted only before dispatch'),
  newerProof: () => new AppError(409, 'A newer proof replaces this one'),
  alreadyAnswered: () => new AppError(409, 'This proof was already answered'),
  notPendingLink: () => new AppError(409, 'Only a pending proof can be sent'),
  invalidLink: () => new AppError(404, 'This proof link is invalid or expired'),
  proofNotFound: () => new AppError(404, 'Proof not found'),
  printingWaits: (version: number) => new AppError(409, `Printing waits for the customer's approval of proof v${version}`),
  tooManyLinkAttempts: (retryAfterSeconds: number) =>
    new AppError(429, 'Too many failed proof link attempts, try again later', { 'retry-after': String(retryAfterSeconds) }),
  linkEmailFailed: () => new AppError(502, 'The proof link email could not be sent; try again'),
};

/** The shop's side of a project: an ADMIN, or its owner. */
const isShop = (viewer: Viewer, project: Pick<Project, 'pocId'>): boolean => viewer.role === 'ADMIN' || project.pocId === viewer.id;

/**
 * May this viewer post a proof (or send a link for one)? 404 for who may not see the project, 403
 * for anyone else but an ADMIN or the owner; `afterDispatch` only for posting. Null when allowed.
 */
export function decidePost(viewer: Viewer, project: Pick<Project, 'pocId' | 'customerId' | 'status'> | null): AppError | null {
  if (!project || !maySeeProject(viewer, project)) return errors.projectNotFound();
  if (!isShop(viewer, project)) return errors.forbidden();
  if (NO_PROOFS_IN.includes(project.status)) return proofErrors.afterDispatch();
  return null;
}

/** Sending an approval link: the shop's, for the project's pending latest proof. */
export function decideSendLink(viewer: Viewer, project: Pick<Project, 'pocId' | 'customerId'> | null, proof: Pick<Proof, 'status'> | null): AppError | null {
  if (!project || !maySeeProject(viewer, project)) return errors.projectNotFound();
  if (!isShop(viewer, project)) return errors.forbidden();
  if (!proof) return proofErrors.proofNotFound();
  if (proof.status !== 'pending') return proofErrors.notPendingLink();
  return null;
}

/**
 * May this viewer answer this proof? A CLIENT of the project's customer, the owner or an ADMIN
 * (the shop recording an answer given by phone); anyone else who may see it 403, who may not 404.
 * Then only the latest version, only while pending (answerable).
 */
export function decideAnswer(
  viewer: Viewer,
  project: Pick<Project, 'pocId' | 'customerId'> | null,
  proof: Pick<Proof, 'version' | 'status'> | null,
  latestVersion: number | null,
): AppError | null {
  if (!project || !maySeeProject(viewer, project)) return errors.projectNotFound();
  const customersClient = viewer.role === 'CLIENT' && project.customerId !== null && viewer.customerId === project.customerId;
  if (!isShop(viewer, project) && !customersClient) return errors.forbidden();
  if (!proof) return proofErrors.proofNotFound();
  return answerable(proof, latestVersion);
}

/** Whatever answers it (an account or a link): only the latest version, only while pending. */
export function answerable(proof: Pick<Proof, 'version' | 'status'>, latestVersion: number | null): AppError | null {
  if (latestVersion !== null && proof.version < latestVersion) return proofErrors.newerProof();
  if (proof.status !== 'pending') return proofErrors.alreadyAnswered();
  return null;
}

/** The status a posted version gives the one before it: a pending one is superseded, an answered one keeps its answer. */
export const statusAfterNewVersion = (previous: ProofStatus): ProofStatus => (previous === 'pending' ? 'superseded' : previous);

/** Printing waits while the latest proof is not approved; a project without proofs is not held. */
export function printingHold(latest: Pick<Proof, 'version' | 'status'> | null): AppError | null {
  if (!latest || latest.status === 'approved') return null;
  return proofErrors.printingWaits(latest.version);
}

/** An answer's note: optional for an approval, 1–2,000 characters required for changes; trimmed. */
export function answerNote(decision: ProofDecision, note: unknown): string | null | AppError {
  if (note === undefined || note === null) return decision === 'changes-requested' ? errors.invalidField('note', 'is required') : null;
  if (typeof note !== 'string') return errors.invalidField('note', 'must be a string');
  const trimmed = note.trim();
  if (!trimmed) return decision === 'changes-requested' ? errors.invalidField('note', 'is required') : null;
  if ([...trimmed].length > PROOF_LIMITS.note) return new AppError(400, `${labelOf('note')} must be at most ${PROOF_LIMITS.note} characters`);
  return trimmed;
}

/** A posted version's note: optional, up to 2,000 characters. */
export function postNote(note: string | undefined): string | null | AppError {
  const trimmed = note?.trim() ?? '';
  if (!trimmed) return null;
  if ([...trimmed].length > PROOF_LIMITS.note) return new AppError(400, `${labelOf('note')} must be at most ${PROOF_LIMITS.note} characters`);
  return trimmed;
}

/** The name given on a link's page: 1–200 characters. */
export function linkName(name: unknown): string | AppError {
  if (typeof name !== 'string' || !name.trim()) return errors.invalidField('name', 'is required');
  const trimmed = name.trim();
  if ([...trimmed].length > PROOF_LIMITS.name) return new AppError(400, `${labelOf('name')} must be at most ${PROOF_LIMITS.name} characters`);
  return trimmed;
}

/** Whether a link still opens its proof: not expired, and the proof still pending (spent once answered or replaced). */
export const linkOpen = (link: { expiresAt: string }, proof: Pick<Proof, 'status'>, nowMs: number): boolean =>
  Date.parse(link.expiresAt) > nowMs && proof.status === 'pending';

/** The folder a project's proofs are stored in. */
export const proofFolder = (projectId: string): string => `print-orders/${projectId}/proof`;
