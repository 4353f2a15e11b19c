import { type Selectable, sql } from 'kysely';
import type {
  ActivityEntry,
  ActivityEntryWithNames,
  ApprovalStatus,
  DocumentType,
  FileUpload,
  FileUploadWithNames,
  JobItem,
  Payment,
  PiStatus,
  Project,
  ProjectInvoice,
  ProjectStatus,
  ProjectWithNames,
  Role,
  User,
} from '../domain/model.js';
import { errors } from '../errors.js';
import type { ActivityLogTable, FileUploadsTable, PaymentsTable, ProjectItemsTable, ProjectsTable, UsersTable } from './schema.js';

/** Row → domain object mappers: the one place where column names meet field names. */

/** Every users column but the password hash: only a login reads the hash. */
export const USER_COLUMNS = ['id', 'name', 'email', 'phone', 'role', 'location', 'branch', 'active', 'customer_id', 'created_at', 'updated_at'] as const;
export type UserRow = Pick<Selectable<UsersTable>, (typeof USER_COLUMNS)[number]>;

export const toUser = (r: UserRow): User => ({
  id: r.id,
  name: r.name,
  email: r.email,
  phone: r.phone,
  role: r.role as Role,
  location: r.location,
  branch: r.branch,
  active: Boolean(r.active),
  customerId: r.customer_id,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
});

export const toProject = (r: Selectable<ProjectsTable>): Project => ({
  id: r.id,
  name: r.name,
  description: r.description,
  pocId: r.poc_id,
  status: r.status as ProjectStatus,
  piStatus: r.pi_status as PiStatus,
  approval: r.approval_status
    ? {
        status: r.approval_status as ApprovalStatus,
        note: r.approval_note,
        decidedById: r.approval_decided_by_id,
        decidedAt: r.approval_decided_at,
      }
    : null,
  customerId: r.customer_id,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  number: Number(r.number),
  rush: Boolean(r.rush),
  hold: r.held && r.hold_reason !== null && r.hold_since !== null ? { reason: r.hold_reason, since: r.hold_since, byId: r.hold_by_id } : null,
  repeatOfId: r.repeat_of_id,
});

/** A projects row with the names of its POC, its approval's decider and its PI's submitter (LEFT JOINs on users), and its customer's name. */
export type ProjectRowWithNames = Selectable<ProjectsTable> & {
  poc_name: string | null;
  approval_decided_by_name: string | null;
  pi_submitted_by_name: string | null;
  customer_name: string | null;
  hold_by_name: string | null;
  repeat_of_name: string | null;
  repeat_of_number: number | string | null;
  // Money documents (migration 026): read with every project, see db/projects.ts withNamesOf.
  customer_state_code?: string | null;
  shop_gstin?: string | null;
};

/** What its repository reads beside a project's row for answers: its lines, the sum of its payments, its latest proof and latest tax invoice. */
export interface ProjectExtras {
  items: JobItem[];
  paid: number;
  proof: ProjectWithNames['proof'];
  invoice: ProjectInvoice | null;
}

/**
 * A project as answers show it, with what its repository reads beside it. Every field written out
 * in one literal: spreading toProject's object and overwriting its `approval` and `hold` made V8
 * build each object on its slow path (~70 µs a project, 150 ms for the board's 2,000).
 */
export const toProjectWithNames = (r: ProjectRowWithNames, { items, paid, proof, invoice }: ProjectExtras): ProjectWithNames => ({
  id: r.id,
  name: r.name,
  description: r.description,
  pocId: r.poc_id,
  status: r.status as ProjectStatus,
  piStatus: r.pi_status as PiStatus,
  approval: r.approval_status
    ? {
        status: r.approval_status as ApprovalStatus,
        note: r.approval_note,
        decidedById: r.approval_decided_by_id,
        decidedAt: r.approval_decided_at,
        decidedByName: r.approval_decided_by_name,
      }
    : null,
  customerId: r.customer_id,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  number: Number(r.number),
  rush: Boolean(r.rush),
  hold: r.held && r.hold_reason !== null && r.hold_since !== null ? { reason: r.hold_reason, since: r.hold_since, byId: r.hold_by_id, byName: r.hold_by_name } : null,
  repeatOfId: r.repeat_of_id,
  pocName: r.poc_name,
  customerName: r.customer_name,
  repeatOf: r.repeat_of_id !== null && r.repeat_of_name !== null ? { id: r.repeat_of_id, name: r.repeat_of_name, number: Number(r.repeat_of_number) } : null,
  reference: r.reference,
  dueDate: r.due_date,
  deliveryAddress: r.delivery_address,
  items,
  // A PI is there once submitted: its number, amount and submitter are set together (db/projects.ts update).
  pi:
    r.pi_number !== null && r.pi_amount !== null && r.pi_currency !== null && r.pi_submitted_at !== null && r.pi_submitted_by_id !== null
      ? {
          number: r.pi_number,
          amount: Number(r.pi_amount),
          currency: r.pi_currency,
          validUntil: r.pi_valid_until,
          submittedAt: r.pi_submitted_at,
          submittedById: r.pi_submitted_by_id,
          submittedByName: r.pi_submitted_by_name,
        }
      : null,
  paid,
  customerStateCode: r.customer_state_code ?? null,
  shopStateCode: r.shop_gstin ? r.shop_gstin.slice(0, 2) : null,
  invoice,
  proof,
});

export const toPayment = (r: Selectable<PaymentsTable>): Payment => ({
  id: r.id,
  projectId: r.project_id,
  amount: Number(r.amount),
  currency: r.currency,
  receivedOn: r.received_on,
  method: r.method,
  reference: r.reference,
  recordedById: r.recorded_by_id,
  createdAt: r.created_at,
});

export const toJobItem = (r: Selectable<ProjectItemsTable>): JobItem => ({
  id: r.id,
  description: r.description,
  quantity: Number(r.quantity),
  unit: r.unit,
  size: r.size,
  stock: r.stock,
  colours: r.colours,
  finishing: r.finishing,
  notes: r.notes,
  unitPrice: r.unit_price === null ? null : Number(r.unit_price),
  hsnSac: r.hsn_sac,
  gstRate: r.gst_rate === null ? null : Number(r.gst_rate),
});

export const toFileUpload = (r: Selectable<FileUploadsTable>): FileUpload => ({
  id: r.id,
  projectId: r.project_id,
  type: r.type as DocumentType,
  url: r.url,
  filename: r.filename,
  size: Number(r.size),
  contentType: r.content_type,
  storageKey: r.storage_key,
  uploadedById: r.uploaded_by_id,
  createdAt: r.created_at,
  sha256: r.sha256,
  detectedType: r.detected_type,
  voidedAt: r.voided_at,
  voidedById: r.voided_by_id,
  voidReason: r.void_reason,
});

export const toFileUploadWithNames = (r: Selectable<FileUploadsTable> & { uploaded_by_name: string | null; voided_by_name: string | null }): FileUploadWithNames => ({
  ...toFileUpload(r),
  uploadedByName: r.uploaded_by_name,
  voidedByName: r.voided_by_name,
});

export const toActivity = (r: Selectable<ActivityLogTable>): ActivityEntry => ({
  id: r.id,
  userId: r.user_id,
  action: r.action,
  entityType: r.entity_type,
  entityId: r.entity_id,
  // PostgreSQL's jsonb arrives parsed; SQLite's text does not.
  details: (typeof r.details === 'string' ? JSON.parse(r.details) : r.details) as Record<string, unknown>,
  createdAt: r.created_at,
});

export const toActivityWithNames = (r: Selectable<ActivityLogTable> & { user_name: string | null }): ActivityEntryWithNames => ({
  ...toActivity(r),
  userName: r.user_name,
});

/** Keyset pagination over (created_at, id), newest first. The cursor is opaque to clients. */
export interface Cursor {
  createdAt: string;
  id: string;
}

export const encodeCursor = (c: Cursor): string => Buffer.from(`${c.createdAt}|${c.id}`).toString('base64url');

const ISO_UTC_MS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function decodeCursor(cursor: string | undefined): Cursor | undefined {
  if (!cursor) return undefined;
  // Strict: only what encodeCursor makes. JavaScript's Date accepts more than PostgreSQL does
  // (2020-02-30, six-digit years), and a foreign id may hold anything.
  const decoded = /^[A-Za-z0-9_-]+$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString() : '';
  const [createdAt, id, ...rest] = decoded.split('|');
  if (!createdAt || !id || rest.length || !ISO_UTC_MS.test(createdAt) || !ID.test(id) || new Date(createdAt).toISOString() !== createdAt) {
    throw errors.invalidCursor();
  }
  return { createdAt, id };
}

/** Rows older than the cursor's, in (created_at, id) order. */
export const olderThan = (table: 'projects' | 'activity_log' | 'users', c: Cursor) =>
  sql<boolean>`(${sql.ref(`${table}.created_at`)} < ${c.createdAt} or (${sql.ref(`${table}.created_at`)} = ${c.createdAt} and ${sql.ref(`${table}.id`)} < ${c.id}))`;

/**
 * Keyset pagination of the activity log (db/activity.ts), newest first by the event log's position
 * (`seq`: commit order, the same on every instance). A cursor of the older form (created_at and id,
 * before migration 031) still names its entry, whose position is looked up.
 */
export type SeqCursor = { seq: number } | { id: string };

const SEQ_PREFIX = 'seq';

export const encodeSeqCursor = (seq: number): string => Buffer.from(`${SEQ_PREFIX}|${seq}`).toString('base64url');

export function decodeSeqCursor(cursor: string | undefined): SeqCursor | undefined {
  if (!cursor) return undefined;
  const decoded = /^[A-Za-z0-9_-]+$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString() : '';
  const [prefix, seq, ...rest] = decoded.split('|');
  if (prefix !== SEQ_PREFIX) return { id: decodeCursor(cursor)!.id };
  if (seq === undefined || rest.length || !/^[1-9]\d{0,15}$/.test(seq) || !Number.isSafeInteger(Number(seq))) throw errors.invalidCursor();
  return { seq: Number(seq) };
}

/**
 * Keyset pagination of `sort=due` (db/projects.ts): over (due_date, id), the projects without a due
 * date after all the others (dueDate null). Told apart from the newest-first cursor, so neither is
 * taken for the other.
 */
export interface DueCursor {
  dueDate: string | null;
  id: string;
}

const DUE_PREFIX = 'due';
const DUE_DATE = /^\d{4}-\d\d-\d\d$/;

export const encodeDueCursor = (c: DueCursor): string => Buffer.from(`${DUE_PREFIX}|${c.dueDate ?? ''}|${c.id}`).toString('base64url');

export function decodeDueCursor(cursor: string | undefined): DueCursor | undefined {
  if (!cursor) return undefined;
  const decoded = /^[A-Za-z0-9_-]+$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString() : '';
  const [prefix, dueDate, id, ...rest] = decoded.split('|');
  if (prefix !== DUE_PREFIX || dueDate === undefined || !id || rest.length || (dueDate !== '' && !DUE_DATE.test(dueDate)) || !ID.test(id)) {
    throw errors.invalidCursor();
  }
  return { dueDate: dueDate || null, id };
}

export type Page<T> = { items: T[]; nextCursor: string | null };

/** One page of items plus the cursor of the next page (null on the last page). */
export function page<T extends { createdAt: string; id: string }>(rows: T[], limit: number): { items: T[]; nextCursor: string | null } {
  const items = rows.slice(0, limit);
  const last = items[items.length - 1];
  return { items, nextCursor: rows.length > limit && last ? encodeCursor(last) : null };
}

/**
 * Keyset pagination of `sort=priority` (db/projects.ts): the segment (0–7, PRIORITY_SEGMENTS) and
 * the last row's due date (null in an undated segment), creation time and id.
 */
export interface PriorityCursor extends Cursor {
  segment: number;
  dueDate: string | null;
}

const PRIORITY_PREFIX = 'pri';

export const encodePriorityCursor = (c: PriorityCursor): string =>
  Buffer.from(`${PRIORITY_PREFIX}|${c.segment}|${c.dueDate ?? ''}|${c.createdAt}|${c.id}`).toString('base64url');

export function decodePriorityCursor(cursor: string | undefined): PriorityCursor | undefined {
  if (!cursor) return undefined;
  const decoded = /^[A-Za-z0-9_-]+$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString() : '';
  const [prefix, segment, dueDate, createdAt, id, ...rest] = decoded.split('|');
  const valid = prefix === PRIORITY_PREFIX && rest.length === 0 && segment !== undefined && /^[0-7]$/.test(segment);
  // Even segments hold the dated projects (PRIORITY_SEGMENTS).
  const dated = valid && Number(segment) % 2 === 0;
  if (
    !valid ||
    (dated ? !DUE_DATE.test(dueDate ?? '') : dueDate !== '') ||
    !createdAt ||
    !id ||
    !ISO_UTC_MS.test(createdAt) ||
    !ID.test(id) ||
    new Date(createdAt).toISOString() !== createdAt
  ) {
    throw errors.invalidCursor();
  }
  return { segment: Number(segment), dueDate: dated ? dueDate! : null, createdAt, id };
}
