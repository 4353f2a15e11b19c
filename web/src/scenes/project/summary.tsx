import type { ProjectDetail } from '../../api';
import { StatusBadge } from '../../components';
import { PI_LABELS, formatDateTime, formatDay, formatMoney, personName } from '../../format';
import { useUser } from '../../session';

/** The project's state at a glance: status, approval, PI, what is paid, its POC and dates. */
export function Summary({ project: p }: { project: ProjectDetail }) {
  const me = useUser();
  const approval = p.approval;
  const decidedBy = approval && personName(approval.decidedById, approval.decidedByName, me);
  return (
    <section className="card" aria-labelledby="summary-title">
      <h2 id="summary-title">Summary</h2>
      <dl className="facts">
        <div>
          <dt>Status</dt>
          <dd data-testid="project-status">
            <StatusBadge project={p} />
          </dd>
        </div>
        <div>
          <dt>Approval</dt>
          <dd data-testid="project-approval">
            {!approval || approval.status === 'PENDING'
              ? 'Awaiting an admin’s decision'
              : `${approval.status === 'APPROVED' ? 'Approved' : 'Rejected'}${decidedBy ? ` by ${decidedBy}` : ''}${approval.decidedAt ? `, ${formatDateTime(approval.decidedAt)}` : ''}`}
            {approval?.note && <div className="muted small-text">Note: {approval.note}</div>}
          </dd>
        </div>
        <div>
          <dt>Proforma invoice (PI)</dt>
          <dd data-testid="project-pi">{PI_LABELS[p.piStatus]}</dd>
          {p.pi && (
            <dd className="muted small-text" data-testid="project-pi-figures">
              {p.pi.number}: {formatMoney(p.pi.amount, p.pi.currency)}
              {p.pi.validUntil && `, valid until ${formatDay(p.pi.validUntil)}`}
            </dd>
          )}
        </div>
        {(p.pi || p.paid > 0) && (
          <div>
            <dt>Paid</dt>
            <dd data-testid="project-paid">
              {formatMoney(p.paid, p.pi?.currency ?? p.payments[0]?.currency ?? 'INR')}
              {p.balance !== null && p.pi && ` (balance ${formatMoney(p.balance, p.pi.currency)})`}
            </dd>
          </div>
        )}
        <div>
          <dt>Point of contact</dt>
          <dd data-testid="project-poc">{personName(p.pocId, p.pocName, me) ?? '—'}</dd>
        </div>
        <div>
          <dt>Created</dt>
          <dd>
            <time dateTime={p.createdAt}>{formatDateTime(p.createdAt)}</time>
          </dd>
        </div>
        <div>
          <dt>Last change</dt>
          <dd>
            <time dateTime={p.updatedAt}>{formatDateTime(p.updatedAt)}</time>
          </dd>
        </div>
      </dl>
    </section>
  );
}
