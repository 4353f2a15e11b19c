import assert from 'node:assert/strict';
import type { DocumentType, FileUpload, User } from '../../src/domain/model.js';
import { newId } from '../../src/ids.js';
import { type Client, type TestService, startTestService } from './service.js';


/** Helpers for the project, activity and dashboard tests (the service helper stays as it is). */

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
export const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** The fields of a project as JSON (interface.md, Projects and "The job itself"), sorted; pocName is ours, added beside pocId, customerName beside customerId. */
export const PROJECT_KEYS = [
  'approval',
  'balance',
  'createdAt',
  'customerId',
  'customerName',
  'deliveryAddress',
  'description',
  'dueDate',
  'hold',
  'id',
  'invoice',
  'items',
  'name',
  'number',
  'overdue',
  'paid',
  'pi',
  'piStatus',
  'pocId',
  'pocName',
  'reference',
  'repeatOf',
  'rush',
  'status',
  'totals',
  'updatedAt',
];

/** A PI's figures as POST /api/projects/:id/submit-pi takes them (interface.md, "The PI and payments"). */
export const PI_FIGURES = { number: 'PI-2026-001', amount: 12_500_000 } as const;

/** The two notifications every project change sends, in order (specification part 6). */
export const changeEvents = (projectId: string) => [
  { event: 'project-updated', data: { channel: 'projects', payload: { id: projectId } } },
  { event: 'stats-updated', data: { channel: 'dashboard', payload: {} } },
];

/** Drops the SSE message ids so event lists compare by content. */
export const withoutIds = (events: { id: string; event: string; data: unknown }[]) => events.map(({ event, data }) => ({ event, data }));

/** All activity entries about one project, newest first, as an ADMIN reads them over HTTP. */
export async function activityOf(admin: Client, projectId: string): Promise<{ id: string; userId: string; userName: string | null; action: string; entityType: string; entityId: string; details: Record<string, unknown>; createdAt: string }[]> {
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
    sha256: null,
    detectedType: null,
    voidedAt: null,
    voidedById: null,
    voidReason: null,
  };
  await svc.deps.store.files.insert(file);
  return file;
}

/** A signed-in user and the client that carries their session. */
export type Someone = { user: User; client: Client };

/**
 * The service of the job's tests (the job itself, the PI and payments): in Asia/Kolkata (UTC+05:30,
 * so "today" there and in UTC differ for 5½ hours a day), its clock reading `now()`, with an ADMIN,
 * two POCs and a CLIENT signed in.
 */
export async function startJobService(now: () => string): Promise<{ svc: TestService; admin: Someone; poc: Someone; otherPoc: Someone; clientUser: Someone }> {
  const svc = await startTestService({ env: { TIMEZONE: 'Asia/Kolkata' } });
  svc.deps.clock = { now: () => new Date(now()) };
  const [admin, poc, otherPoc, clientUser] = await Promise.all([svc.signIn('ADMIN'), svc.signIn('POC'), svc.signIn('POC'), svc.signIn('CLIENT')]);
  return { svc, admin, poc, otherPoc, clientUser };
}

/** The ISO time `ms` milliseconds after `base`. */
export const isoPlus = (base: string, ms: number) => new Date(Date.parse(base) + ms).toISOString();
