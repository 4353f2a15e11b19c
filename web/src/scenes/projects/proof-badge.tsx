import type { Project } from '../../api';
import { PROOF_STATUS_LABELS } from '../../proofs-api';

/** The latest proof's state in the project list: what waits for the customer, or came back (an approved or replaced one says nothing new). */
export function ProofBadge({ proof }: { proof: Project['proof'] }) {
  if (!proof || (proof.status !== 'pending' && proof.status !== 'changes-requested' && proof.status !== 'approved')) return null;
  return (
    <span className={`badge badge-proof-${proof.status}`} data-testid="proof-badge">
      Proof v{proof.version}: {PROOF_STATUS_LABELS[proof.status].toLowerCase()}
    </span>
  );
}
