import { AppError, errors } from '../errors.js';
import { isCalendarDate } from './due.js';
import { GST_RATES, MAX_LINE_TAXABLE } from './gst.js';
import { ITEMS, ITEM_MAX_LENGTH, type ItemTextField, MAX_LENGTH } from './limits.js';
import type { JobDetails, JobItem } from './model.js';

/*
 * The job itself (interface.md, "The job itself"): the customer's reference, the due date, the
 * delivery address and up to 50 lines, each checked here, as one pure function shared by
 * POST /api/projects, PATCH /api/projects/:id/details and an admin's PATCH /api/projects/:id. The
 * routes' schemas refuse wrong types and unknown fields first, with the same messages; these
 * checks are the rules themselves (and what a caller without a schema gets).
 */

/** The job's fields a request may carry. */
export const JOB_FIELDS = ['reference', 'dueDate', 'deliveryAddress', 'items'] as const;
export type JobField = (typeof JOB_FIELDS)[number];

/** A line's fields as sent, besides its optional `id`. */
export const ITEM_FIELDS = ['description', 'quantity', 'unit', 'size', 'stock', 'colours', 'finishing', 'notes'] as const;

/** A line's prices (interface.md, "Money documents"), each optional. */
export const PRICE_FIELDS = ['unitPrice', 'hsnSac', 'gstRate'] as const;

/** A line as sent: with the `id` of one of the project's lines it is that line, kept; without, a new line. */
export type LineDraft = Omit<JobItem, 'id'> & { id?: string };

/** The job's fields a request changes (absent: left as they are; null: cleared; items: the whole list). */
export interface JobChange extends Partial<JobDetails> {
  items?: LineDraft[];
}

const OPTIONAL_TEXT = ['size', 'stock', 'colours', 'finishing', 'notes'] as const satisfies readonly ItemTextField[];
const LINE_KEYS: ReadonlySet<string> = new Set(['id', ...ITEM_FIELDS, ...PRICE_FIELDS]);

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const length = (s: string) => [...s].length;

/** Text that may be cleared: trimmed, blank is null; over `max` characters, or not text, refused naming `field`. */
function optionalText(field: string, value: unknown, max: number): string | null | AppError {
  if (value === null || value === undefined) return null;
  if (typeof value !== 'string') return errors.invalidField(field, 'must be text');
  const trimmed = value.trim();
  if (length(trimmed) > max) return errors.invalidField(field, `must be at most ${max} characters`);
  return trimmed || null;
}

/** One line as sent, checked; `at` is its index in `items`. */
function parseLine(at: number, value: unknown): LineDraft | AppError {
  const field = (name: string) => `items.${at}.${name}`;
  if (!isRecord(value)) return errors.invalidField(`items.${at}`, 'must be an object');
  const unknown = Object.keys(value).find((k) => !LINE_KEYS.has(k));
  if (unknown !== undefined) return errors.invalidField(field(unknown), 'is not a known field');

  const line: Partial<LineDraft> = {};
  if (value.id !== undefined) {
    if (typeof value.id !== 'string') return errors.invalidField(field('id'), 'must be text');
    line.id = value.id;
  }
  const description = optionalText(field('description'), value.description, ITEM_MAX_LENGTH.description);
  if (description instanceof AppError) return description;
  if (description === null) return errors.invalidField(field('description'), 'is required');
  line.description = description;

  const quantity = value.quantity;
  if (quantity === undefined) return errors.invalidField(field('quantity'), 'is required');
  if (typeof quantity !== 'number' || !Number.isInteger(quantity)) return errors.invalidField(field('quantity'), 'must be a whole number');
  if (quantity < ITEMS.minQuantity) return errors.invalidField(field('quantity'), `must be at least ${ITEMS.minQuantity}`);
  if (quantity > ITEMS.maxQuantity) return errors.invalidField(field('quantity'), `must be at most ${ITEMS.maxQuantity}`);
  line.quantity = quantity;

  const unit = optionalText(field('unit'), value.unit, ITEM_MAX_LENGTH.unit);
  if (unit instanceof AppError) return unit;
  line.unit = unit ?? ITEMS.defaultUnit;

  for (const name of OPTIONAL_TEXT) {
    const text = optionalText(field(name), value[name], ITEM_MAX_LENGTH[name]);
    if (text instanceof AppError) return text;
    line[name] = text;
  }

  // The prices are answered only when sent (absent and null both store null: lines are sent whole).
  if (value.unitPrice !== undefined || value.hsnSac !== undefined || value.gstRate !== undefined) {
    const prices = parsePrices(field, quantity, value);
    if (prices instanceof AppError) return prices;
    Object.assign(line, prices);
  }
  return line as LineDraft;
}

/** A line's prices as sent (null or absent: none), checked. */
function parsePrices(field: (name: string) => string, quantity: number, value: Record<string, unknown>): Pick<JobItem, 'unitPrice' | 'hsnSac' | 'gstRate'> | AppError {
  const line: Pick<JobItem, 'unitPrice' | 'hsnSac' | 'gstRate'> = {};
  const unitPrice = value.unitPrice ?? null;
  if (unitPrice !== null) {
    if (typeof unitPrice !== 'number' || !Number.isInteger(unitPrice)) return errors.invalidField(field('unitPrice'), "must be a whole number of the currency's minor units (paise for INR)");
    if (unitPrice < 0) return errors.invalidField(field('unitPrice'), 'must be at least 0');
    if (quantity * unitPrice > MAX_LINE_TAXABLE) return errors.invalidField(field('unitPrice'), `times the quantity must be at most ${MAX_LINE_TAXABLE}`);
  }
  line.unitPrice = unitPrice;
  const hsnSac = value.hsnSac ?? null;
  if (hsnSac !== null && (typeof hsnSac !== 'string' || !/^\d{4,8}$/.test(hsnSac))) return errors.invalidField(field('hsnSac'), 'must be 4 to 8 digits');
  line.hsnSac = hsnSac;
  const gstRate = value.gstRate ?? null;
  if (gstRate !== null && !(GST_RATES as readonly unknown[]).includes(gstRate)) return errors.invalidField(field('gstRate'), `must be one of ${GST_RATES.join(', ')}`);
  line.gstRate = gstRate as number | null;
  return line;
}

/** The job's fields present in a request body, each checked; the first refusal (400 naming the field) otherwise. */
export function parseJob(input: Partial<Record<JobField, unknown>>): JobChange | AppError {
  const change: JobChange = {};
  for (const field of ['reference', 'deliveryAddress'] as const) {
    if (input[field] === undefined) continue;
    const text = optionalText(field, input[field], MAX_LENGTH[field]);
    if (text instanceof AppError) return text;
    change[field] = text;
  }
  if (input.dueDate !== undefined) {
    if (input.dueDate !== null && !isCalendarDate(input.dueDate)) return errors.invalidField('dueDate', 'must be a real date written YYYY-MM-DD');
    change.dueDate = input.dueDate;
  }
  if (input.items !== undefined) {
    if (!Array.isArray(input.items)) return errors.invalidField('items', 'must be a list');
    if (input.items.length > ITEMS.maxLines) return errors.invalidField('items', `must have at most ${ITEMS.maxLines} entries`);
    const lines: LineDraft[] = [];
    for (const [at, value] of input.items.entries()) {
      const line = parseLine(at, value);
      if (line instanceof AppError) return line;
      lines.push(line);
    }
    change.items = lines;
  }
  return change;
}

/**
 * The project's lines after a change: a line sent with an `id` keeps it and must be one of the
 * project's lines, once; a line without gets a new id. Refuses (400) an id the project has no line
 * with, or one sent twice.
 */
export function resolveLines(drafts: LineDraft[], current: readonly JobItem[], newId: () => string): JobItem[] | AppError {
  const known = new Set(current.map((l) => l.id));
  const used = new Set<string>();
  const lines: JobItem[] = [];
  for (const [at, { id, ...content }] of drafts.entries()) {
    if (id !== undefined) {
      if (!known.has(id)) return errors.invalidField(`items.${at}.id`, 'is not a line of this project');
      if (used.has(id)) return errors.invalidField(`items.${at}.id`, 'repeats an earlier line');
      used.add(id);
    }
    lines.push({ id: id ?? newId(), ...content });
  }
  return lines;
}

/**
 * Which lines a change touched, for the activity log, by their numbers (1 is the first line):
 * `added` and `changed` in the new list, `removed` in the old one; `reordered` when kept lines
 * changed places. At most 50 numbers in each list, so an entry stays small. Null when the lines
 * are as they were.
 */
export interface LinesChange {
  before: number;
  after: number;
  added: number[];
  changed: number[];
  removed: number[];
  reordered: boolean;
}

const sameContent = (a: JobItem, b: JobItem) => ITEM_FIELDS.every((k) => a[k] === b[k]) && PRICE_FIELDS.every((k) => (a[k] ?? null) === (b[k] ?? null));

export function diffLines(before: readonly JobItem[], after: readonly JobItem[]): LinesChange | null {
  const old = new Map(before.map((l, i) => [l.id, { line: l, at: i }]));
  const kept = new Set(after.map((l) => l.id).filter((id) => old.has(id)));
  const added: number[] = [];
  const changed: number[] = [];
  after.forEach((line, i) => {
    const was = old.get(line.id);
    if (!was) added.push(i + 1);
    else if (!sameContent(was.line, line)) changed.push(i + 1);
  });
  const removed = before.flatMap((l, i) => (kept.has(l.id) ? [] : [i + 1]));
  const oldOrder = before.filter((l) => kept.has(l.id)).map((l) => l.id);
  const newOrder = after.filter((l) => kept.has(l.id)).map((l) => l.id);
  const reordered = oldOrder.some((id, i) => newOrder[i] !== id);
  if (!added.length && !changed.length && !removed.length && !reordered) return null;
  return { before: before.length, after: after.length, added, changed, removed, reordered };
}

/**
 * What a change does to the job, for PROJECT_UPDATED: the fields whose value differs (items when
 * any line differs), the due date's old and new value (what people chase), and which lines changed.
 */
export function jobChanges(
  current: JobDetails & { items: readonly JobItem[] },
  next: Partial<JobDetails> & { items?: readonly JobItem[] },
): { changed: JobField[]; details: { dueDate?: { from: string | null; to: string | null }; items?: LinesChange } } {
  const changed: JobField[] = [];
  const details: { dueDate?: { from: string | null; to: string | null }; items?: LinesChange } = {};
  for (const field of ['reference', 'dueDate', 'deliveryAddress'] as const) {
    if (next[field] !== undefined && next[field] !== current[field]) changed.push(field);
  }
  if (changed.includes('dueDate')) details.dueDate = { from: current.dueDate, to: next.dueDate ?? null };
  const lines = next.items && diffLines(current.items, next.items);
  if (lines) {
    changed.push('items');
    details.items = lines;
  }
  return { changed, details };
}
