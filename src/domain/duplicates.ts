/** The earlier upload a document repeats: what the file list says of a duplicate. */
export interface DuplicateOf {
  id: string;
  filename: string;
  type: string;
  uploadedByName: string | null;
  createdAt: string;
}

type Listed = DuplicateOf & { sha256: string | null; voidedAt: string | null };

/**
 * For each document of one project, the first earlier document with the same checksum (null when
 * it is the first of its bytes, or has no checksum). Order of the input does not matter. A withdrawn
 * (voided) document takes no part: it repeats nothing and nothing repeats it (its bytes are gone).
 */
export function duplicatesOf<T extends Listed>(files: readonly T[]): Map<string, DuplicateOf> {
  const oldestFirst = [...files].sort((a, b) => (a.createdAt === b.createdAt ? (a.id < b.id ? -1 : 1) : a.createdAt < b.createdAt ? -1 : 1));
  const first = new Map<string, T>();
  const result = new Map<string, DuplicateOf>();
  for (const f of oldestFirst) {
    if (f.sha256 === null || f.voidedAt !== null) continue;
    const original = first.get(f.sha256);
    if (!original) first.set(f.sha256, f);
    else result.set(f.id, { id: original.id, filename: original.filename, type: original.type, uploadedByName: original.uploadedByName, createdAt: original.createdAt });
  }
  return result;
}
