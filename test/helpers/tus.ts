import type { Client } from './service.js';

/** The protocol version every tus request names. */
export const TUS = { 'tus-resumable': '1.0.0' };

/** Upload-Metadata: each key followed by its value in base64. */
export const tusMetadata = (m: Record<string, string>) =>
  Object.entries(m)
    .map(([k, v]) => `${k} ${Buffer.from(v).toString('base64')}`)
    .join(',');

/** POST /api/resumable-uploads: a new upload of `length` bytes described by `meta` (projectId, fileType, filename, filetype). */
export const tusCreate = (who: Client, length: number, meta: Record<string, string>) =>
  who.request('POST', '/api/resumable-uploads', { headers: { ...TUS, 'upload-length': String(length), 'upload-metadata': tusMetadata(meta) } });

/** PATCH: `bytes` at `offset` of the upload at `location`. */
export const tusPatch = (who: Client, location: string, offset: number, bytes: Buffer) =>
  who.request('PATCH', location, { headers: { ...TUS, 'upload-offset': String(offset), 'content-type': 'application/offset+octet-stream' }, body: new Uint8Array(bytes) });
