/** The proofs part of the API (interface.md, "Proofs"), as the project page and the link's page use it. */
import type { presentProof, presentProofLink, presentLinkedProof } from '../../src/presenters/proofs';
import { ApiError, request } from './api';

export type Proof = ReturnType<typeof presentProof>;
export type ProofLinkView = ReturnType<typeof presentProofLink>;
export type LinkedProof = ReturnType<typeof presentLinkedProof>;
export type ProofDecision = 'approve' | 'request-changes';

const projectPath = (projectId: string) => `/api/projects/${encodeURIComponent(projectId)}/proofs`;
const linkPath = (token: string) => `/api/proof-links/${encodeURIComponent(token)}`;

/** A refusal as the JSON requests make it (status, the API's message, Retry-After). */
async function refusal(res: Response): Promise<ApiError> {
  const body = (await res.json().catch(() => null)) as { error?: unknown } | null;
  const retry = res.headers.get('retry-after');
  return new ApiError(res.status, typeof body?.error === 'string' ? body.error : `The service answered ${res.status}`, retry && /^\d+$/.test(retry) ? Number(retry) : null);
}

export const proofsApi = {
  list: (projectId: string) => request<{ items: Proof[] }>('GET', projectPath(projectId)),
  /** POST …/proofs: the note first, so it is read before the file's bytes. */
  async post(projectId: string, file: File, note: string): Promise<Proof> {
    const form = new FormData();
    if (note.trim()) form.append('note', note);
    form.append('file', file, file.name);
    let res: Response;
    try {
      res = await fetch(projectPath(projectId), { method: 'POST', credentials: 'same-origin', headers: { accept: 'application/json' }, body: form });
    } catch {
      throw new ApiError(0, 'The service cannot be reached. Check your connection and try again.');
    }
    if (!res.ok) throw await refusal(res);
    return (await res.json()) as Proof;
  },
  answer: (projectId: string, proofId: string, decision: ProofDecision, note: string) =>
    request<Proof>('POST', `${projectPath(projectId)}/${encodeURIComponent(proofId)}/${decision}`, note.trim() ? { note } : {}),
  sendLink: (projectId: string, proofId: string, body: { email: string; name?: string }) =>
    request<{ id: string; email: string; expiresAt: string }>('POST', `${projectPath(projectId)}/${encodeURIComponent(proofId)}/links`, body),
  previewUrl: (projectId: string, proofId: string, page: number, width: number) =>
    `${projectPath(projectId)}/${encodeURIComponent(proofId)}/preview?page=${page}&width=${Math.max(64, Math.min(1600, Math.round(width)))}`,

  link: (token: string) => request<ProofLinkView>('GET', linkPath(token)),
  linkPreviewUrl: (token: string, page: number, width: number) => `${linkPath(token)}/preview?page=${page}&width=${Math.max(64, Math.min(1600, Math.round(width)))}`,
  linkFileUrl: (token: string) => `${linkPath(token)}/file`,
  answerLink: (token: string, decision: ProofDecision, body: { name: string; note?: string }) =>
    request<LinkedProof>('POST', `${linkPath(token)}/${decision}`, body.note?.trim() ? body : { name: body.name }),
};

/** How a proof's status reads. */
export const PROOF_STATUS_LABELS: Record<Proof['status'], string> = {
  pending: 'Awaiting the customer',
  approved: 'Approved',
  'changes-requested': 'Changes requested',
  superseded: 'Replaced',
};
