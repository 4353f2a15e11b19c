import { useInfiniteQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'wouter';
import { PageTitle, QueryError } from '../../components';
import { formatDay } from '../../format';
import { formatMoney } from '../../money';
import { moneyApi } from '../../money-ui';
import { useUser } from '../../session';

/** The invoice register (ADMIN): every number issued, newest financial year first, with the CSV for the accountant. */
export function InvoicesPage() {
  const user = useUser();
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const pages = useInfiniteQuery({
    queryKey: ['invoices', { from, to }],
    queryFn: ({ pageParam }) => moneyApi.invoices({ from, to, cursor: pageParam }),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
    enabled: user.role === 'ADMIN',
  });
  if (user.role !== 'ADMIN') {
    return (
      <>
        <PageTitle>Invoices</PageTitle>
        <p className="notice">Only admins see the invoice register.</p>
      </>
    );
  }
  const items = pages.data?.pages.flatMap((p) => p.items) ?? [];
  const csv = `/api/invoices.csv?${new URLSearchParams(Object.entries({ from, to }).filter(([, v]) => v))}`;
  return (
    <>
      <PageTitle>Invoices</PageTitle>
      <p className="lead">
        What the tax invoices print about the shop (name, GSTIN, bank details, the number's prefix): <Link href="/settings/shop">Shop settings</Link>.
      </p>
      <div className="card filters">
        <div className="field">
          <label htmlFor="inv-from">From</label>
          <input id="inv-from" type="date" value={from} onChange={(e) => setFrom(e.target.value)} />
        </div>
        <div className="field">
          <label htmlFor="inv-to">To</label>
          <input id="inv-to" type="date" value={to} onChange={(e) => setTo(e.target.value)} />
        </div>
        <a className="button secondary" href={csv} download>
          Download CSV
        </a>
      </div>
      {pages.error && <QueryError query={pages} what="The invoices" />}
      <div className="table-scroll" tabIndex={0} role="region" aria-label="Invoices">
        <table className="table responsive" data-testid="invoices">
          <thead>
            <tr>
              <th scope="col">Number</th>
              <th scope="col">Job</th>
              <th scope="col">Date</th>
              <th scope="col">Customer</th>
              <th scope="col">GSTIN</th>
              <th scope="col">Place of supply</th>
              <th scope="col" className="num">Taxable</th>
              <th scope="col" className="num">Tax</th>
              <th scope="col" className="num">Total</th>
              <th scope="col">State</th>
            </tr>
          </thead>
          <tbody>
            {items.map((i) => (
              <tr key={i.number}>
                <td className="nowrap" data-label="Number">
                  <Link href={`/projects/${i.projectId}`}>{i.number}</Link>
                </td>
                <td className="nowrap" data-label="Job">{i.projectNumber === null ? '' : `#${i.projectNumber}`}</td>
                <td className="nowrap" data-label="Date">
                  <time dateTime={i.date}>{formatDay(i.date)}</time>
                </td>
                <td data-label="Customer">{i.customerName}</td>
                <td data-label="GSTIN">{i.customerGstin ?? ''}</td>
                <td data-label="Place of supply">{i.placeOfSupply ?? ''}</td>
                <td className="num" data-label="Taxable">{formatMoney(i.taxable, i.currency)}</td>
                <td className="num" data-label="Tax">{formatMoney(i.cgst + i.sgst + i.igst, i.currency)}</td>
                <td className="num" data-label="Total">{formatMoney(i.total, i.currency)}</td>
                <td data-label="State">{i.voidedAt ? 'Withdrawn' : 'Issued'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {items.length === 0 && !pages.isPending && <p className="muted">No invoices yet.</p>}
      {pages.hasNextPage && (
        <button type="button" className="secondary" onClick={() => void pages.fetchNextPage()} disabled={pages.isFetchingNextPage}>
          More
        </button>
      )}
    </>
  );
}
