/**
 * True content types (issue 13): what the first bytes of a document show, whether that contradicts
 * what the uploader declared, whether a browser could run it, and the UPLOAD_ALLOWED_TYPES rule.
 * Pure functions; the bytes are read by uploads/inspect.ts.
 */

/** How many leading bytes are looked at: file-type's own sample size. */
export const SNIFF_BYTES = 4100;

/** A media type without parameters, in lower case: `Text/HTML; charset=x` → `text/html`. */
export const essence = (contentType: string): string => contentType.split(';')[0]!.trim().toLowerCase();

const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const QUOTED = '"(?:[\\t !#-\\[\\]-~]|\\\\[\\t -~])*"';
/** RFC 9110 media-type: type "/" subtype *( OWS ";" OWS [ parameter ] ), ASCII only. */
const MEDIA_TYPE = new RegExp(`^${TOKEN}/${TOKEN}(?:[\\t ]*;[\\t ]*(?:${TOKEN}=(?:${TOKEN}|${QUOTED}))?)*$`);

/** The longest content type kept: RFC 6838 allows 127 characters for each name, and a few parameters beside. */
export const MAX_MEDIA_TYPE_CHARS = 255;

/**
 * True for a valid media type (RFC 9110 section 8.3.1) of at most MAX_MEDIA_TYPE_CHARS: what may be
 * kept as a document's type and sent back as its Content-Type. Anything else (non-ASCII, control
 * characters, no subtype) Node would refuse as a header, or a browser would misread.
 */
export const isMediaType = (value: string): boolean => value.length <= MAX_MEDIA_TYPE_CHARS && MEDIA_TYPE.test(value);

/** Names for one type that browsers and operating systems send interchangeably. */
const ALIASES: Record<string, string> = {
  'image/jpg': 'image/jpeg',
  'image/pjpeg': 'image/jpeg',
  'image/x-png': 'image/png',
  'text/xml': 'application/xml',
  'application/x-pdf': 'application/pdf',
  'application/x-zip-compressed': 'application/zip',
  'image/x-ms-bmp': 'image/bmp',
};
const canonical = (type: string): string => ALIASES[essence(type)] ?? essence(type);

/** Types that say nothing about the bytes: a recognised type never contradicts them. */
const UNSPECIFIC = new Set(['application/octet-stream', 'binary/octet-stream', 'application/unknown', '']);

/** True for a declared type that says nothing about the bytes (application/octet-stream, …). */
export const isUnspecific = (type: string): boolean => UNSPECIFIC.has(essence(type));

/** True when the bytes were recognised as something other than what was declared. */
export function typeMismatch(declared: string, detected: string | null): boolean {
  if (detected === null || isUnspecific(declared)) return false;
  return canonical(declared) !== canonical(detected);
}

/** Types a browser shows without running anything; everything else is served as a download. */
const PASSIVE = new Set([
  'application/pdf',
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'image/avif',
  'image/bmp',
  'text/plain',
  'text/csv',
]);

export const isPassive = (type: string): boolean => {
  const t = canonical(type);
  return PASSIVE.has(t) || t.startsWith('audio/') || t.startsWith('video/');
};

/**
 * Shown inline only when both the declared type and what the bytes are (when recognised) are
 * passive: an HTML page declared as a PDF is a download, whatever it was declared as.
 */
export const servedInline = (declared: string, detected: string | null): boolean => isPassive(declared) && (detected === null || isPassive(detected));

const LATIN1 = new TextDecoder('latin1');

/**
 * Markup a browser would render or run, recognised by its first bytes (after a BOM and white
 * space), after the WHATWG MIME Sniffing standard's "HTML", "XML" patterns, plus SVG. file-type
 * recognises binary formats only.
 */
export function sniffMarkup(head: Uint8Array): string | null {
  const text = LATIN1.decode(head.subarray(0, 1024)).replace(/^(\xef\xbb\xbf|\xfe\xff|\xff\xfe)/, '').replace(/^[\t\n\f\r ]+/, '').toLowerCase();
  if (text.startsWith('<?xml')) return /<svg[\s>]/.test(text) ? 'image/svg+xml' : 'application/xml';
  if (/^<svg[\s>/]/.test(text)) return 'image/svg+xml';
  if (/^<(!doctype html|html|head|script|iframe|h1|div|font|table|a|style|title|b|body|br|p|!--)[\s>]/.test(text)) return 'text/html';
  return null;
}

/**
 * UPLOAD_ALLOWED_TYPES as configured: a list of types (`application/pdf`) and families
 * (`image/*`); empty means everything is allowed.
 */
export type AllowedTypes = readonly string[];

export function parseAllowedTypes(value: string | undefined): AllowedTypes {
  return (value ?? '')
    .split(',')
    .map((t) => t.trim().toLowerCase())
    .filter((t) => t !== '' && t !== '*' && t !== '*/*');
}

const matches = (allowed: AllowedTypes, type: string) => {
  const t = canonical(type);
  return allowed.some((a) => (a.endsWith('/*') ? t.startsWith(a.slice(0, -1)) : canonical(a) === t));
};

/**
 * The type an allow list refuses, or null: the declared type must be allowed, and so must what the
 * bytes are when they were recognised (a page renamed `.pdf` is refused for what it is). A declared
 * type that says nothing (application/octet-stream) leaves the decision to the bytes.
 */
export function refusedType(allowed: AllowedTypes, declared: string, detected: string | null): string | null {
  if (!allowed.length) return null;
  if (detected !== null && !matches(allowed, detected)) return essence(detected);
  if ((detected === null || !isUnspecific(declared)) && !matches(allowed, declared)) return essence(declared);
  return null;
}
