import type { DocumentType } from './model.js';

/**
 * Paths inside a project's documents ZIP: `<fileType>/<original name>`, a name made safe for any
 * unzip tool and file system (safeName) and unique within its folder ignoring case and Unicode
 * normalization (so it unpacks on Windows and macOS too): the second `po.pdf` becomes `po (2).pdf`.
 */
export function archivePaths(files: readonly { id: string; type: DocumentType; filename: string }[]): Map<string, string> {
  const taken = new Set<string>();
  const paths = new Map<string, string>();
  for (const f of files) {
    const name = safeName(f.filename);
    const dot = name.lastIndexOf('.');
    const [stem, ext] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
    for (let n = 1; ; n++) {
      const candidate = `${f.type}/${n === 1 ? name : `${stem} (${n})${ext}`}`;
      if (taken.has(candidate.toLowerCase())) continue;
      taken.add(candidate.toLowerCase());
      paths.set(f.id, candidate);
      break;
    }
  }
  return paths;
}

/** What a name becomes when nothing of it is left: a name of dots or spaces alone, or of invisible characters. */
const FALLBACK = '_';

/** Device names Windows reserves, whatever their case and whatever extension follows (`con.pdf`, `Lpt1.tar.gz`). */
const RESERVED = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])$/i;

/**
 * A name any file system accepts, shown as it was written: in NFC (the form Windows and Linux keep;
 * NFD forms of one name become one name), format characters taken out (bidi controls such as U+202E,
 * which make `gpj.exe` read as `exe.jpg`, zero-width characters), separators, control characters,
 * line separators and the characters Windows refuses replaced by `_`, trailing dots and spaces dropped (Windows drops
 * them, so `x.` would land on `x`), and a reserved device name altered (`CON.pdf` → `CON_.pdf`).
 */
export function safeName(filename: string): string {
  const name = filename
    .normalize('NFC')
    .replace(/\p{Cf}/gu, '')
    // eslint-disable-next-line no-control-regex
    .replace(/[/\\:*?"<>|\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, '_')
    .trim()
    .replace(/[. ]+$/, '');
  if (name === '') return FALLBACK;
  const dot = name.indexOf('.');
  const [stem, rest] = dot >= 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
  // Windows ignores spaces before the extension too: `nul .txt` is the device.
  return RESERVED.test(stem.trimEnd()) ? `${stem.trimEnd()}_${rest}` : name;
}

/** `<project name>-documents.zip`, the name reduced to what any file system accepts. */
export const archiveFilename = (projectName: string): string =>
  `${projectName.replace(/[^A-Za-z0-9._ -]+/g, '_').replace(/\s+/g, '-').replace(/^[-.]+/, '').slice(0, 80) || 'project'}-documents.zip`;
