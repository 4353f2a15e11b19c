import { useQueries, useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { useLocation, useSearchParams } from 'wouter';
import { PageTitle, QueryError } from '../../components';
import { formatDay, formatMoney, formatNumber } from '../../format';
import { useUser } from '../../session';
import { ReportChart } from './Chart';
import {
  AGING_BUCKETS,
  PRESETS,
  PRESET_LABELS,
  type Preset,
  type Range,
  chartMajor,
  monthEnd,
  monthLabel,
  presetRange,
  reportCsvUrl,
  reportQuery,
  sumAmounts,
} from './report';
import './reports.css';

/** Months of an on-time line at most: one small request each. */
const MAX_LINE_MONTHS = 24;
const COLOURS = { created: '#3b6fd8', delivered: '#2e8b57', invoiced: '#8a5cd1', received: '#d98a1c', rate: '#2e8b57', median: '#3b6fd8', p90: '#c0392b' };
const AGING_COLOURS = ['#7fb77e', '#f2c14e', '#f08a4b', '#c0392b'];

/** The project list a bar stands for: the list's own filters (docs/decisions.md says which bar links where). */
const LINKS = {
  created: '/projects',
  delivered: '/projects?status=DELIVERED',
  money: '/projects?piStatus=VERIFIED',
  customer: (id: string | null) => (id ? `/projects?customerId=${encodeURIComponent(id)}&piStatus=VERIFIED` : '/projects?piStatus=VERIFIED'),
};

function useRange(): [Preset, Range, (preset: Preset, range?: Range) => void] {
  const [params, setParams] = useSearchParams();
  const preset = PRESETS.find((p) => p === params.get('range')) ?? 'financial-year';
  const range = preset === 'custom' ? { from: params.get('from') ?? presetRange('this-month').from, to: params.get('to') ?? presetRange('this-month').to } : presetRange(preset);
  const set = (next: Preset, r?: Range) => setParams(next === 'custom' ? { range: next, ...(r ?? range) } : { range: next }, { replace: true });
  return [preset, range, set];
}

/** The shop's figures over a range, as charts each with its table (ADMIN; live: they refresh on stats-updated). */
export function ReportsPage() {
  const user = useUser();
  const [, navigate] = useLocation();
  const [preset, range, setRange] = useRange();
  const report = useQuery({ ...reportQuery(range), enabled: user.role === 'ADMIN' });
  const months = report.data?.byMonth.map((m) => m.month).slice(-MAX_LINE_MONTHS) ?? [];
  // The on-time rate and turnaround of each month: the report of that month alone.
  const monthly = useQueries({
    queries: months.map((m) => {
      const last = monthEnd(m);
      return { ...reportQuery({ from: m === months[0] && range.from > `${m}-01` ? range.from : `${m}-01`, to: last < range.to ? last : range.to }), enabled: Boolean(report.data) };
    }),
  });

  if (user.role !== 'ADMIN') return <p className="error">Reports are for admins.</p>;
  const r = report.data;
  const money = (amount: number | string | bigint) => formatMoney(amount, r?.currency ?? 'INR');

  return (
    <>
      <PageTitle
        actions={
          <>
            <a className="button secondary" href={reportCsvUrl('byMonth', range)} download>
              By month CSV
            </a>
            <a className="button secondary" href={reportCsvUrl('outstanding', range)} download>
              Outstanding CSV
            </a>
          </>
        }
      >
        Reports
      </PageTitle>
      <form className="card report-range" onSubmit={(e) => e.preventDefault()} aria-label="Date range">
        <fieldset>
          <legend>Date range</legend>
          <div className="range-presets">
            {PRESETS.map((p) => (
              <label key={p}>
                <input type="radio" name="range" value={p} checked={preset === p} onChange={() => setRange(p, range)} /> {PRESET_LABELS[p]}
              </label>
            ))}
          </div>
          {preset === 'custom' && (
            <div className="range-dates">
              <label>
                From <input type="date" value={range.from} onChange={(e) => e.target.value && setRange('custom', { ...range, from: e.target.value })} />
              </label>
              <label>
                To <input type="date" value={range.to} onChange={(e) => e.target.value && setRange('custom', { ...range, to: e.target.value })} />
              </label>
            </div>
          )}
          <p className="muted small-text" data-testid="range">
            {formatDay(range.from)} – {formatDay(range.to)}
          </p>
        </fieldset>
      </form>
      {!r && <QueryError query={report} what="The reports" />}
      {report.isPending && <p className="muted">Loading figures…</p>}
      {r && (
        <>
          <dl className="tiles report-tiles report-headline" data-testid="headline">
            <Figure label="On time" value={r.onTime.rate === null ? '–' : `${(r.onTime.rate * 100).toFixed(1)} %`} note={`${r.onTime.onTime} of ${r.onTime.withDueDate} with a due date`} />
            <Figure label="Median turnaround" value={r.turnaround.medianDays === null ? '–' : `${r.turnaround.medianDays} days`} note={`90th percentile ${r.turnaround.p90Days ?? '–'}`} />
            <Figure label="Received" value={money(sumAmounts(r.byMonth.map((m) => m.received)))} note={`invoiced ${money(sumAmounts(r.byMonth.map((m) => m.invoiced)))}`} />
            <Figure label="Outstanding" value={money(sumAmounts(r.outstanding.map((o) => o.balance)))} note={`as of ${formatDay(r.to)}`} />
          </dl>
          {Object.keys(r.otherCurrencies).length > 0 && (
            <p className="muted small-text" data-testid="other-currencies">
              Not in the sums (another currency than {r.currency}):{' '}
              {Object.entries(r.otherCurrencies)
                .map(([c, n]) => `${c} on ${n} ${n === 1 ? 'project' : 'projects'}`)
                .join(', ')}
              .
            </p>
          )}
          <div className="report-grid">
            <Section id="ontime" wide title="On time and turnaround by month" chart={
              <ReportChart kind="line" testId="chart-ontime" title="On time and turnaround by month" describedBy="table-ontime" labels={months.map(monthLabel)} series={[
                { label: 'On time (%)', colour: COLOURS.rate, values: monthly.map((q) => (q.data?.onTime.rate == null ? null : q.data.onTime.rate * 100)) },
                { label: 'Median days', axis: 'days', colour: COLOURS.median, values: monthly.map((q) => q.data?.turnaround.medianDays ?? null) },
                { label: '90th percentile days', axis: 'days', colour: COLOURS.p90, values: monthly.map((q) => q.data?.turnaround.p90Days ?? null) },
              ]} onPick={() => navigate(LINKS.delivered)} />
            }>
              <FigureTable id="table-ontime" caption="On time and turnaround by month" head={['Month', 'Delivered', 'On time', 'Rate', 'Median / 90th pct. (days)']} rows={months.map((m, i) => {
                const d = monthly[i]?.data;
                // The turnaround's two figures in one column, so the table fits a phone's width.
                const days = (n: number | null | undefined) => (n == null ? '–' : formatNumber(n));
                return [monthLabel(m), d ? d.onTime.delivered : '…', d ? `${d.onTime.onTime} of ${d.onTime.withDueDate}` : '…', d?.onTime.rate == null ? '–' : `${(d.onTime.rate * 100).toFixed(1)} %`, d ? `${days(d.turnaround.medianDays)} / ${days(d.turnaround.p90Days)}` : '…'];
              })} />
            </Section>
            <Section id="orders" title="Orders by month" chart={
              <ReportChart kind="bar" testId="chart-orders" title="Orders by month" describedBy="table-orders" labels={r.byMonth.map((m) => monthLabel(m.month))} series={[
                { label: 'Created', colour: COLOURS.created, values: r.byMonth.map((m) => m.created) },
                { label: 'Delivered', colour: COLOURS.delivered, values: r.byMonth.map((m) => m.delivered) },
              ]} onPick={(s) => navigate(s === 0 ? LINKS.created : LINKS.delivered)} />
            }>
              <FigureTable id="table-orders" caption="Orders by month" head={['Month', 'Created', 'Delivered']} rows={r.byMonth.map((m) => [monthLabel(m.month), m.created, <a key="d" href={LINKS.delivered} onClick={follow(navigate, LINKS.delivered)}>{formatNumber(m.delivered)}</a>])} />
            </Section>
            <Section id="money" title={`Money by month (${r.currency})`} chart={
              <ReportChart kind="bar" testId="chart-money" title="Money by month" describedBy="table-money" labels={r.byMonth.map((m) => monthLabel(m.month))} series={[
                { label: 'Invoiced', colour: COLOURS.invoiced, values: r.byMonth.map((m) => chartMajor(m.invoiced)) },
                { label: 'Received', colour: COLOURS.received, values: r.byMonth.map((m) => chartMajor(m.received)) },
              ]} onPick={() => navigate(LINKS.money)} />
            }>
              <FigureTable id="table-money" caption="Money by month" head={['Month', 'Invoiced', 'Received']} rows={r.byMonth.map((m) => [monthLabel(m.month), money(m.invoiced), money(m.received)])} />
            </Section>
            <Section id="outstanding" title="Outstanding by customer" chart={
              <ReportChart kind="bar" horizontal testId="chart-outstanding" title="Outstanding by customer" describedBy="table-outstanding" labels={r.outstanding.map((o) => o.customerName ?? 'No customer')} series={[
                { label: 'Balance', colour: COLOURS.invoiced, values: r.outstanding.map((o) => chartMajor(o.balance)) },
              ]} onPick={(_s, i) => navigate(LINKS.customer(r.outstanding[i]?.customerId ?? null))} />
            }>
              <FigureTable id="table-outstanding" caption="Outstanding by customer" head={['Customer', 'Balance', 'Oldest (days)']} empty="Nothing is owed." rows={r.outstanding.map((o) => {
                const href = LINKS.customer(o.customerId);
                return [<a key="c" href={href} onClick={follow(navigate, href)}>{o.customerName ?? 'No customer'}</a>, money(o.balance), o.oldestDays];
              })} />
            </Section>
            <Section id="aging" title="Aging of what is owed" chart={
              <ReportChart kind="bar" horizontal stacked testId="chart-aging" title="Aging" describedBy="table-aging" labels={['Owed']} series={AGING_BUCKETS.map((b, i) => ({ label: `${b} days`, colour: AGING_COLOURS[i]!, values: [chartMajor(r.aging[b])] }))} onPick={() => navigate(LINKS.money)} />
            }>
              <FigureTable id="table-aging" caption="Aging of what is owed" head={['Days since verification', 'Balance']} rows={AGING_BUCKETS.map((b) => [b, money(r.aging[b])])} />
            </Section>
          </div>
        </>
      )}
    </>
  );
}

/** A link the router follows without reloading the page. */
const follow = (navigate: (to: string) => void, href: string) => (e: React.MouseEvent) => {
  if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
  e.preventDefault();
  navigate(href);
};

function Figure({ label, value, note }: { label: string; value: string; note: string }) {
  return (
    <div className="tile">
      <dt>{label}</dt>
      <dd>{value}</dd>
      <dd className="muted small-text">{note}</dd>
    </div>
  );
}

/** A chart with its table beside it; `wide`: a table of many columns, under its chart at full width. */
function Section({ id, title, chart, children, wide = false }: { id: string; title: string; chart: ReactNode; children: ReactNode; wide?: boolean }) {
  return (
    <section className="card report-section" aria-labelledby={`${id}-title`} data-testid={`report-${id}`}>
      <h2 id={`${id}-title`}>{title}</h2>
      <div className={wide ? 'report-pair report-pair-wide' : 'report-pair'}>
        {chart}
        {/* Focusable, so a keyboard can scroll a table wider than its column. */}
        <div className="report-table" role="region" aria-labelledby={`${id}-title`} tabIndex={0}>
          {children}
        </div>
      </div>
    </section>
  );
}

function FigureTable({ id, caption, head, rows, empty }: { id: string; caption: string; head: string[]; rows: ReactNode[][]; empty?: string }) {
  if (!rows.length && empty) return <p className="muted" id={id}>{empty}</p>;
  return (
    <table className="table compact" id={id} data-testid={id}>
      <caption className="visually-hidden">{caption}</caption>
      <thead>
        <tr>
          {head.map((h) => (
            <th key={h} scope="col">
              {h}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row, i) => (
          <tr key={i}>
            {row.map((cell, j) =>
              j === 0 ? (
                <th key={j} scope="row">
                  {typeof cell === 'number' ? formatNumber(cell) : cell}
                </th>
              ) : (
                <td key={j}>{typeof cell === 'number' ? formatNumber(cell) : cell}</td>
              ),
            )}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
