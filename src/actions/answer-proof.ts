import type { Deps } from '../deps.js';
import { nowIso } from '../deps.js';
import type { Store } from '../db/store.js';
import type { DocumentAccess } from '../domain/documents.js';
import type { Actor, Project } from '../domain/model.js';
import { type ProofDecision, type ProofResponse, type ProofWithNames, answerNote, answerable, decideAnswer, proofErrors } from '../domain/proofs.js';
import { AppError } from '../errors.js';
import { queueProjectEmails } from '../mail/outbox.js';
import { presentProof } from '../presenters/proofs.js';
import { notifyProjectChanged } from '../realtime/index.js';
import { recordProjectActivity } from './record-activity.js';

/** Who answers: a signed-in user (a CLIENT, or the shop recording an answer given by phone), or a link's holder. */
export type Answerer = { via: 'account'; actor: Actor & { name: string } } | { via: 'link'; name: string; email: string };

/**
 * POST /api/projects/:id/proofs/:proofId/approve and …/request-changes, for a signed-in user: the
 * rules of domain/proofs.ts (decideAnswer), then the answer as recordAnswer writes it.
 */
export async function answerProof(
  deps: Pick<Deps, 'store' | 'realtime' | 'config' | 'log'>,
  actor: Actor & { name: string },
  ids: { projectId: string; proofId: string },
  decision: ProofDecision,
  body: { note?: unknown },
  access: DocumentAccess,
): Promise<ProofWithNames> {
  return answer(deps, ids, decision, body.note, { via: 'account', actor }, access, (project, proof, latest) =>
    decideAnswer(actor, project, proof, latest),
  );
}

/** The same answer given through a link: only `answerable` (the link itself was checked by the caller). */
export function answerThroughLink(
  deps: Pick<Deps, 'store' | 'realtime' | 'config' | 'log'>,
  ids: { projectId: string; proofId: string },
  decision: ProofDecision,
  note: unknown,
  who: { name: string; email: string },
  access: DocumentAccess,
): Promise<ProofWithNames> {
  return answer(deps, ids, decision, note, { via: 'link', ...who }, access, (project, proof, latest) => {
    if (!project || !proof) return proofErrors.invalidLink();
    // A link is spent once its proof is answered or replaced: it answers like any unknown link.
    return answerable(proof, latest) ? proofErrors.invalidLink() : null;
  });
}

/**
 * One answer, in one transaction under the project's lock (an answer, a new version and
 * start-printing take turns): the rule, the proof's status and response, the activity entry
 * (PROOF_APPROVED or PROOF_CHANGES_REQUESTED, with `email` through a link), the emails to the owner
 * and the admins and the webhook event; then the two notifications.
 */
async function answer(
  deps: Pick<Deps, 'store' | 'realtime' | 'config' | 'log'>,
  ids: { projectId: string; proofId: string },
  decision: ProofDecision,
  rawNote: unknown,
  who: Answerer,
  access: DocumentAccess,
  rule: (project: Project | null, proof: ProofWithNames | null, latestVersion: number | null) => AppError | null,
): Promise<ProofWithNames> {
  const now = nowIso();
  const { project, proof } = await deps.store.transaction(async (store) => {
    const project = (await store.projects.findById(ids.projectId, { forUpdate: true })) ?? null;
    const found = await store.proofs.findById(ids.proofId);
    const proof = found && found.projectId === ids.projectId ? found : null;
    const latest = project ? await store.proofs.latest(project.id, { forUpdate: true }) : undefined;
    const refusal = rule(project, proof, latest?.version ?? null);
    if (refusal) throw refusal;
    const note = answerNote(decision, rawNote);
    if (note instanceof AppError) throw note;
    return { project: project!, proof: await recordAnswer(store, deps.config.mail.batchSeconds, project!, proof!, decision, note, who, now, access) };
  });
  await notifyProjectChanged(deps.realtime, project.id, project.pocId, project.customerId).catch((err: unknown) => deps.log.error({ err }, 'realtime notification failed'));
  return proof;
}

async function recordAnswer(
  store: Store,
  batchSeconds: number,
  project: Project,
  proof: ProofWithNames,
  decision: ProofDecision,
  note: string | null,
  who: Answerer,
  now: string,
  access: DocumentAccess,
): Promise<ProofWithNames> {
  const response: ProofResponse =
    who.via === 'account'
      ? { decision, note, byId: who.actor.id, byName: who.actor.name, via: 'account', at: now, email: null }
      : { decision, note, byId: null, byName: who.name, via: 'link', at: now, email: who.email };
  if (!(await store.proofs.answer(proof.id, response))) throw proofErrors.alreadyAnswered();
  const answered: ProofWithNames = { ...proof, status: decision, response };
  const action = decision === 'approved' ? 'PROOF_APPROVED' : 'PROOF_CHANGES_REQUESTED';
  const details: Record<string, unknown> = { proofId: proof.id, version: proof.version, via: who.via, byName: response.byName, note };
  if (who.via === 'link') details.email = who.email;
  // Through a link nobody is signed in: the entry's user is null, and the emails exclude nobody (no user has the empty id).
  const actor: Actor = who.via === 'account' ? who.actor : { id: '', role: 'CLIENT' };
  await recordProjectActivity(store, who.via === 'account' ? who.actor : { id: null }, project.id, action, details, now, {
    concerned: { data: { proof: presentProof(answered, access) } },
  });
  await queueProjectEmails(store, batchSeconds, { actor, project, action, details, at: now });
  return answered;
}
