import { todayIso } from '../../money.js';

/** A report's range: YYYY-MM-DD days in the shop's time zone. */
export interface Range {
  from: string;
  to: string;
}

export const PRESETS = ['this-month', 'last-month', 'financial-year', 'custom'] as const;
export type Preset = (typeof PRESETS)[number];
export const PRESET_LABELS: Record<Preset, string> = {
  'this-month': 'This month',
  'last-month': 'Last month',
  'financial-year': 'This financial year',
  custom: 'Custom',
};

const pad = (n: number) => String(n).padStart(2, '0');
const lastDay = (year: number, month: number) => new Date(Date.UTC(year, month, 0)).getUTCDate();

/** The last day of a month (YYYY-MM): "2026-02" → "2026-02-28". */
export const monthEnd = (month: string): string => `${month}-${pad(lastDay(Number(month.slice(0, 4)), Number(month.slice(5, 7))))}`;

/** A preset's range on `today` (YYYY-MM-DD): the financial year runs April to March. */
export function presetRange(preset: Exclude<Preset, 'custom'>, today: string = todayIso()): Range {
  const [year, month] = today.split('-').map(Number) as [number, number];
  if (preset === 'this-month') return { from: `${year}-${pad(month)}-01`, to: today };
  if (preset === 'last-month') {
    const [y, m] = month === 1 ? [year - 1, 12] : [year, month - 1];
    return { from: `${y}-${pad(m)}-01`, to: `${y}-${pad(m)}-${pad(lastDay(y, m))}` };
  }
  const start = month >= 4 ? year : year - 1;
  return { from: `${start}-04-01`, to: today };
}

