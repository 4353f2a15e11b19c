import assert from 'node:assert/strict';
import type { DocumentType, FileUpload } from '../../src/domain/model.js';
import { newId } from '../../src/ids.js';
import type { Client, TestService } from './service.js';

/** Helpers for the project, activity and dashboard tests (the service helper stays as it is). */

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
export const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** The fields of a project as JSON (interface.md, Projects). */
export const PROJECT_KEYS = ['approval', 'createdAt', 'description', 'id', 'name', 'piStatus', 'pocId', 'status', 'updatedAt'];

/** The two notifications every project change sends, in order (specification part 6). */
export const changeEvents = (projectId: string) => [
  { event: 'project-updated', data: { channel: 'projects', payload: { id: projectId } } },
  { event: 'stats-updated', data: { channel: 'dashboard', payload: {} } },
];

/** Drops the SSE message ids so event lists compare by content. */
export const withoutIds = (events: { id: string; event: string; data: unknown }[]) => events.map(({ event, data }) => ({ event, data }));

/** All activity entries about one project, newest first, as an ADMIN reads them over HTTP. */
export async function activityOf(admin: Client, projectId: string): Promise<{ id: string; userId: string; action: string; entityType: string; entityId: string; details: Record<string, unknown>; createdAt: string }[]> {
  const res = await admin.get(`/api/activity?entityType=project&entityId=${projectId}&limit=200`);
  assert.equal(res.status, 200, res.text);
  return res.body.items;
}

/** Inserts a FileUpload row straight into the database (no bytes stored). */
export async function insertFile(svc: TestService, projectId: string, type: DocumentType, uploadedById: string, createdAt = new Date().toISOString()): Promise<FileUpload> {
  const id = newId();
  const file: FileUpload = {
    id,
    projectId,
    type,
    url: `${svc.url}/files/print-orders/${projectId}/${type.toLowerCase()}/${id}.pdf`,
    filename: `${type.toLowerCase()}-${id.slice(-6)}.pdf`,
    size: 1234,
    contentType: 'application/pdf',
    storageKey: `print-orders/${projectId}/${type.toLowerCase()}/${id}.pdf`,
    uploadedById,
    createdAt,
  };
  await svc.deps.store.files.insert(file);
  return file;
}

/** The ISO time `ms` milliseconds after `base`. */
export const isoPlus = (base: string, ms: number) => new Date(Date.parse(base) + ms).toISOString();

export interface SseEvent {
  id: string;
  event: string;
  data: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** An open /api/realtime stream (with a query string such as `?channels=dashboard`), read message by message. */
export async function openStream(client: Client, query = ''): Promise<{ headers: Headers; next(count: number, timeoutMs?: number): Promise<SseEvent[]>; close(): void }> {
  const controller = new AbortController();
  const res = await fetch(new URL(`/api/realtime${query}`, client.baseUrl), { headers: client.cookie ? { cookie: client.cookie } : {}, signal: controller.signal });
  assert.equal(res.status, 200);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const readMore = async () => {
    const { value, done } = await reader.read();
    if (done) throw new Error('the stream ended');
    buffer += decoder.decode(value, { stream: true });
  };
  // The opening comment: from here on the subscription exists.
  while (!buffer.includes('\n\n')) await readMore();
  buffer = buffer.slice(buffer.indexOf('\n\n') + 2);
  return {
    headers: res.headers,
    async next(count, timeoutMs = 5000) {
      const events: SseEvent[] = [];
      const timer = setTimeout(() => controller.abort(), timeoutMs);
      try {
        while (events.length < count) {
          let end;
          while (events.length < count && (end = buffer.indexOf('\n\n')) >= 0) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const fields = Object.fromEntries(
              block
                .split('\n')
                .filter((l) => l && !l.startsWith(':'))
                .map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 1).trim()]),
            );
            if (fields.event) events.push({ id: fields.id ?? '', event: fields.event, data: JSON.parse(fields.data ?? 'null') });
          }
          if (events.length < count) await readMore();
        }
      } catch (err) {
        if (!controller.signal.aborted) throw err;
        throw new Error(`timed out after ${events.length} of ${count} events`);
      } finally {
        clearTimeout(timer);
      }
      return events;
    },
    close: () => controller.abort(),
  };
}
