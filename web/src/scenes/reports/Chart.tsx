import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  type ChartConfiguration,
  Legend,
  LineController,
  LineElement,
  LinearScale,
  PointElement,
  Tooltip,
} from 'chart.js';
import { useEffect, useRef } from 'react';

Chart.register(BarController, BarElement, LineController, LineElement, PointElement, CategoryScale, LinearScale, Legend, Tooltip);

export interface Series {
  label: string;
  values: (number | null)[];
  colour: string;
  /** A second scale on the right (days beside a percentage). */
  axis?: 'days';
}

export interface ChartProps {
  kind: 'bar' | 'line';
  labels: string[];
  series: Series[];
  /** Bars on top of one another (aging). */
  stacked?: boolean;
  horizontal?: boolean;
  /** The id of the table that says the same in text: the canvas is only a picture of it. */
  describedBy: string;
  title: string;
  /** A click on a bar or point: the series and the label's index. */
  onPick?: (series: number, index: number) => void;
  testId: string;
}

/** One chart.js chart on a canvas, remade when its figures change; the table beside it is its text alternative. */
export function ReportChart({ kind, labels, series, stacked = false, horizontal = false, describedBy, title, onPick, testId }: ChartProps) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const pick = useRef(onPick);
  pick.current = onPick;
  const figures = JSON.stringify({ kind, labels, series, stacked, horizontal });

  useEffect(() => {
    if (!canvas.current) return;
    const config: ChartConfiguration<'bar' | 'line'> = {
      type: kind,
      data: {
        labels,
        datasets: series.map((s) => ({ label: s.label, data: s.values, backgroundColor: s.colour, borderColor: s.colour, spanGaps: true, yAxisID: s.axis === 'days' ? 'days' : 'y' })),
      },
      options: {
        responsive: true,
        maintainAspectRatio: false,
        animation: false,
        indexAxis: horizontal ? 'y' : 'x',
        scales: {
          x: { stacked, beginAtZero: true },
          y: { stacked, beginAtZero: true },
          ...(series.some((s) => s.axis === 'days') && { days: { position: 'right', beginAtZero: true, title: { display: true, text: 'days' }, grid: { drawOnChartArea: false } } }),
        },
        plugins: { legend: { display: series.length > 1, position: 'bottom' } },
        onClick: (_event, elements) => {
          const hit = elements[0];
          if (hit) pick.current?.(hit.datasetIndex, hit.index);
        },
        onHover: (event, elements) => {
          const target = event.native?.target as HTMLElement | undefined;
          if (target) target.style.cursor = elements.length && pick.current ? 'pointer' : 'default';
        },
      },
    };
    const chart = new Chart(canvas.current, config);
    return () => chart.destroy();
    // The figures as text decide when to redraw: a refetch with the same figures keeps the chart.
  }, [figures]);

  return (
    <div className="report-chart" data-testid={testId}>
      <canvas ref={canvas} role="img" aria-label={`${title}: chart; the figures are in the table`} aria-describedby={describedBy} />
    </div>
  );
}
