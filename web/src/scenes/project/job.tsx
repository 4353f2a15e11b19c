import type { JobItem, Project } from '../../api';
import { OverdueBadge } from '../../components/job-fields';
import { formatDay, formatNumber } from '../../format';
import './project.css';

/**
 * The job as the project page shows it: facts, and the lines in a table that scrolls inside its box on
 * a phone; for an ADMIN or the owner, the job ticket (the press's PDF, GET /api/projects/:id/ticket.pdf).
 */
export function JobSummary({ project: p, canPrintTicket }: { project: Project; canPrintTicket: boolean }) {
  return (
    <section className="card" aria-labelledby="job-title" data-testid="job">
      <div className="card-heading">
        <h2 id="job-title">The job</h2>
        {canPrintTicket && (
          <a className="button secondary" href={`/api/projects/${encodeURIComponent(p.id)}/ticket.pdf`} download={`ticket-${p.id}.pdf`} data-testid="ticket-pdf">
            Print job ticket
          </a>
        )}
      </div>
      <dl className="facts">
        <div>
          <dt>Customer</dt>
          <dd data-testid="job-customer">{p.customerName ?? '—'}</dd>
        </div>
        <div>
          <dt>Reference</dt>
          <dd data-testid="job-reference">{p.reference ?? '—'}</dd>
        </div>
        <div>
          <dt>Due</dt>
          <dd data-testid="job-due">
            {p.dueDate ? <time dateTime={p.dueDate}>{formatDay(p.dueDate)}</time> : '—'} {p.overdue && <OverdueBadge />}
          </dd>
        </div>
        <div>
          <dt>Delivery address</dt>
          <dd className="pre-line">{p.deliveryAddress ?? '—'}</dd>
        </div>
      </dl>
      {p.items.length > 0 ? <LinesTable items={p.items} /> : <p className="muted small-text">No lines yet.</p>}
    </section>
  );
}

function LinesTable({ items }: { items: JobItem[] }) {
  return (
    // Focusable, so keyboard users can scroll the lines sideways on a narrow screen.
    <div className="table-scroll lines-box" tabIndex={0} role="region" aria-label="The job’s lines">
      <table className="table lines-table" data-testid="job-lines">
        <caption className="visually-hidden">The job’s lines</caption>
        <thead>
          <tr>
            <th scope="col">#</th>
            <th scope="col">Description</th>
            <th scope="col" className="num">
              Quantity
            </th>
            <th scope="col">Size</th>
            <th scope="col">Stock</th>
            <th scope="col">Colours</th>
            <th scope="col">Finishing</th>
            <th scope="col">Notes</th>
          </tr>
        </thead>
        <tbody>
          {items.map((l, at) => (
            <tr key={l.id}>
              <td>{at + 1}</td>
              <td>{l.description}</td>
              <td className="num nowrap">
                {formatNumber(l.quantity)} {l.unit}
              </td>
              <td>{l.size ?? ''}</td>
              <td>{l.stock ?? ''}</td>
              <td>{l.colours ?? ''}</td>
              <td>{l.finishing ?? ''}</td>
              <td>{l.notes ?? ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
