import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { formatMoney } from '../../format';
import { presetRange, reportQuery, sumAmounts } from './report';
import './reports.css';

/** The owner's three figures on the dashboard (ADMIN): this month's on-time rate and invoicing, and what is owed now; each opens Reports. */
export function ReportHeadline() {
  const range = presetRange('this-month');
  const report = useQuery(reportQuery(range));
  const r = report.data;
  if (!r) return null;
  const thisMonth = r.byMonth.at(-1);
  const figures: [string, string, string][] = [
    ['On time this month', r.onTime.rate === null ? '–' : `${(r.onTime.rate * 100).toFixed(1)} %`, 'headline-ontime'],
    ['Invoiced this month', formatMoney(thisMonth?.invoiced ?? 0, r.currency), 'headline-invoiced'],
    ['Outstanding', formatMoney(sumAmounts(r.outstanding.map((o) => o.balance)), r.currency), 'headline-outstanding'],
  ];
  return (
    <section className="card" aria-labelledby="headline-title" data-testid="report-headline">
      <h2 id="headline-title">
        <Link href="/reports">How the shop is doing</Link>
      </h2>
      <dl className="tiles report-tiles">
        {figures.map(([label, value, testId]) => (
          <div className="tile" key={testId} data-testid={testId}>
            <dt>
              <Link href="/reports?range=this-month">{label}</Link>
            </dt>
            <dd>{value}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}
