/**
 * CSV as the exports write it (interface.md, "The job itself": GET /api/projects.csv): RFC 4180
 * (fields separated by commas, lines ended by CRLF, a field with a quote, comma, CR or LF quoted
 * and its quotes doubled), UTF-8 with a byte-order mark once at the start so spreadsheet programs
 * read it as UTF-8, and every value that begins with `=`, `+`, `-` or `@` prefixed with `'` so a
 * spreadsheet shows it as text instead of running it as a formula (CSV injection).
 */

/** What a cell may hold: text as is, a number or boolean written plainly, null as an empty cell. */
export type CsvValue = string | number | boolean | null;

/** The byte-order mark, written once before the header line. */
export const CSV_BOM = '\uFEFF';

const FORMULA_START = /^[=+\-@]/;
const NEEDS_QUOTES = /[",\r\n]/;

/** One field: formula prefix first, then quoting (a quote inside doubled). */
export function csvField(value: CsvValue): string {
  if (value === null) return '';
  let text = String(value);
  if (FORMULA_START.test(text)) text = `'${text}`;
  return NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One line of fields, ended by CRLF. */
export const csvLine = (values: readonly CsvValue[]): string => `${values.map(csvField).join(',')}\r\n`;

/** The document's start: the byte-order mark, then the header line. */
export const csvHeader = (columns: readonly string[]): string => CSV_BOM + csvLine(columns);
