import type { DocumentType } from './model.js';

/**
 * Paths inside a project's documents ZIP: `<fileType>/<original name>`, a name made safe for any
 * unzip tool (no folders of its own, no `..`) and unique within its folder ignoring case (so it
 * unpacks on Windows and macOS too): the second `po.pdf` becomes `po (2).pdf`.
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

/** Separators and characters Windows refuses become `_`; a name of dots alone becomes `_`. */
function safeName(filename: string): string {
  // eslint-disable-next-line no-control-regex
  const name = filename.replace(/[/\\:*?"<>|\u0000-\u001f\u007f]/g, '_').trim();
  return /^\.*$/.test(name) ? '_' : name;
}

/** `<project name>-documents.zip`, the name reduced to what any file system accepts. */
export const archiveFilename = (projectName: string): string =>
  `${projectName.replace(/[^A-Za-z0-9._ -]+/g, '_').replace(/\s+/g, '-').replace(/^[-.]+/, '').slice(0, 80) || 'project'}-documents.zip`;
