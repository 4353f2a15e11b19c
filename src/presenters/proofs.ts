import { type DocumentAccess, documentAddress } from '../domain/documents.js';
import type { Proof, ProofWithNames } from '../domain/proofs.js';

/**
 * A proof as the API answers it (interface.md, "Proofs"). The answer's link address (`email`) is
 * left out: it is the activity entry's, not the proof's.
 */
export const presentProof = (p: ProofWithNames, access: DocumentAccess) => ({
  id: p.id,
  projectId: p.projectId,
  version: p.version,
  filename: p.filename,
  size: p.size,
  contentType: p.contentType,
  sha256: p.sha256,
  url: documentAddress(access, p),
  note: p.note,
  status: p.status,
  postedById: p.postedById,
  postedByName: p.postedByName,
  createdAt: p.createdAt,
  response: p.response && {
    decision: p.response.decision,
    note: p.response.note,
    byId: p.response.byId,
    byName: p.response.byName,
    via: p.response.via,
    at: p.response.at,
  },
});

/** What a link answers of its proof: no id, address, person or hash (nothing that reaches further). */
export const presentLinkedProof = (p: Proof) => ({
  version: p.version,
  filename: p.filename,
  contentType: p.contentType,
  size: p.size,
  note: p.note,
  status: p.status,
  createdAt: p.createdAt,
});

/** GET /api/proof-links/:token: the project's name, reference and customer's name, the proof, its pages. */
export const presentProofLink = (
  view: { project: { name: string; reference: string | null; customerName: string | null }; proof: Proof; pageCount: number | null },
) => ({
  project: { name: view.project.name, reference: view.project.reference, customerName: view.project.customerName },
  proof: presentLinkedProof(view.proof),
  pageCount: view.pageCount,
});
