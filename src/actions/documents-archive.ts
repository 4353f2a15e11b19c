import { once } from 'node:events';
import type { Readable } from 'node:stream';
import type { Deps } from '../deps.js';
import { archiveFilename, archivePaths } from '../domain/archive.js';
import { essence } from '../domain/content-types.js';
import type { Actor } from '../domain/model.js';
import { ObjectMissingError } from '../storage/types.js';
import { getProject } from './projects.js';
import { nowDate } from '../clock.js';

/** What one document is in the manifest. */
interface ManifestEntry {
  path: string | null;
  id: string;
  type: string;
  filename: string;
  size: number;
  contentType: string;
  sha256: string | null;
  uploadedByName: string | null;
  createdAt: string;
  /** The store did not hold the document when the archive was made: it is not in the archive. */
  missing?: true;
}

/** Types worth compressing; PDFs, images and archives are compressed already and are stored as they are. */
const compressible = (contentType: string) => /^(text\/|application\/(json|xml)$|image\/svg\+xml$)/.test(essence(contentType));

/**
 * GET /api/projects/:id/documents.zip: every standing (not withdrawn) document of a project a caller may see, as one ZIP
 * streamed from the store one document at a time (never whole in memory or on disk), in folders by
 * type with their original names made unique, and at the end `manifest.json` (each document with
 * its checksum) and `SHA256SUMS` (for `sha256sum -c`). The project is checked before anything is
 * sent; a store that fails mid-way aborts the archive, so a broken download never looks complete.
 */
export async function projectArchive(deps: Pick<Deps, 'store' | 'storage' | 'log'>, actor: Actor, projectId: string): Promise<{ filename: string; stream: Readable }> {
  const { project, files } = await getProject(deps, actor, projectId);
  // Withdrawn documents are no part of it: not an entry, not named in the manifest.
  const oldestFirst = files.filter((f) => f.voidedAt === null).reverse();
  const paths = archivePaths(oldestFirst);
  // Loaded on the first archive asked for: most processes never make one.
  const { ZipArchive } = await import('archiver');
  const zip = new ZipArchive({ zlib: { level: 6 } });
  let finished = false;
  // The download ends early when the client goes away (Fastify destroys the stream): stop reading the store.
  const gone = new AbortController();
  zip.once('close', () => {
    gone.abort();
    if (!finished) zip.abort();
  });

  const feed = async () => {
    const manifest: ManifestEntry[] = [];
    for (const f of oldestFirst) {
      if (gone.signal.aborted) return;
      const path = paths.get(f.id)!;
      const entry: ManifestEntry = {
        path,
        id: f.id,
        type: f.type,
        filename: f.filename,
        size: f.size,
        contentType: f.contentType,
        sha256: f.sha256,
        uploadedByName: f.uploadedByName,
        createdAt: f.createdAt,
      };
      let body: Readable;
      try {
        body = await deps.storage.open({ key: f.storageKey, url: f.url });
      } catch (err) {
        if (!(err instanceof ObjectMissingError)) throw err;
        manifest.push({ ...entry, path: null, missing: true });
        continue;
      }
      // One document at a time: the next is opened only once this one is in the archive.
      const added = once(zip, 'entry', { signal: gone.signal });
      zip.append(body, { name: path, date: new Date(f.createdAt), store: !compressible(f.contentType) });
      try {
        await added;
      } catch (err) {
        body.destroy();
        if (gone.signal.aborted) return;
        throw err;
      }
      manifest.push(entry);
    }
    const exported = { project: { id: project.id, name: project.name }, createdAt: nowDate().toISOString(), documents: manifest };
    zip.append(`${JSON.stringify(exported, null, 2)}\n`, { name: 'manifest.json' });
    const sums = manifest.filter((m) => m.path && m.sha256).map((m) => `${m.sha256}  ${m.path}\n`);
    zip.append(sums.join(''), { name: 'SHA256SUMS' });
    await zip.finalize();
    finished = true;
  };

  feed().catch((err: unknown) => {
    deps.log.error({ err, projectId }, 'documents archive failed');
    zip.destroy(err instanceof Error ? err : new Error(String(err)));
  });
  return { filename: archiveFilename(project.name), stream: zip };
}
