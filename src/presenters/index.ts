import type { ApiToken } from '../domain/api-tokens.js';
import { typeMismatch } from '../domain/content-types.js';
import { type DocumentAccess, documentAddress } from '../domain/documents.js';
import { type DuplicateOf, duplicatesOf } from '../domain/duplicates.js';
import { isOverdue } from '../domain/due.js';
import type { CustomerClient } from '../db/customers.js';
import type { Customer } from '../domain/customer.js';
import type { ActivityEntryWithNames, Comment, FileUpload, FileUploadWithNames, JobItem, Payment, ProjectWithNames, User } from '../domain/model.js';
import { projectTotals } from '../domain/gst.js';
import { balanceOf } from '../domain/pi.js';
import { detailsFor, readsShopNotes } from '../domain/shop-notes.js';
import type { Viewer } from '../domain/visibility.js';

/**
 * What leaves the server. Each presenter whitelists its fields, so a new column never leaks (no password, hash or storage key).
 * Of the other users a record refers to, only their names go out (pocName, decidedByName, uploadedByName, userName).
 */

/** A member in GET /api/team (specification 4.2: no updatedAt). */
export const presentTeamMember = (u: User) => ({
  id: u.id,
  name: u.name,
  email: u.email,
  phone: u.phone,
  role: u.role,
  location: u.location,
  branch: u.branch,
  active: u.active,
  createdAt: u.createdAt,
});

/** A member as POST /api/team answers (specification 4.3: exactly these fields). */
export const presentCreatedTeamMember = (u: User) => ({ ...presentTeamMember(u), updatedAt: u.updatedAt });

/** One member as GET and PATCH /api/team/:id answer: with the company they belong to (never in the specification's list or 201). */
export const presentTeamMemberDetail = (u: User) => ({ ...presentCreatedTeamMember(u), customerId: u.customerId });
/** An API token without its hash (the token itself is only in presentCreatedApiToken's answer). */
export const presentApiToken = (t: ApiToken) => ({ id: t.id, name: t.name, scope: t.scope, createdAt: t.createdAt, expiresAt: t.expiresAt, lastUsedAt: t.lastUsedAt });

/** POST /api/account/tokens: the one answer that carries the token. */
export const presentCreatedApiToken = (t: ApiToken, secret: string) => ({ ...presentApiToken(t), token: secret });

/** GET /api/tokens (ADMIN): with the owner. */
export const presentAdminApiToken = (t: ApiToken & { userName: string }) => ({ ...presentApiToken(t), userId: t.userId, userName: t.userName });

export const presentSessionUser = (u: User) => ({ id: u.id, name: u.name, email: u.email, role: u.role });

/** One line of a job. */
export const presentJobItem = (l: JobItem) => ({
  id: l.id,
  description: l.description,
  quantity: l.quantity,
  unit: l.unit,
  size: l.size,
  stock: l.stock,
  colours: l.colours,
  finishing: l.finishing,
  notes: l.notes,
  unitPrice: l.unitPrice ?? null,
  hsnSac: l.hsnSac ?? null,
  gstRate: l.gstRate ?? null,
});

/** The project's currency (its PI's, else the CURRENCY setting) and its totals (domain/gst.ts), null unless every line is priced. */
export const projectTotalsOf = (p: ProjectWithNames, defaultCurrency: string) =>
  projectTotals(
    p.items.map((l) => ({ id: l.id, quantity: l.quantity, unitPrice: l.unitPrice ?? null, gstRate: l.gstRate ?? null })),
    p.pi?.currency ?? defaultCurrency,
    p.shopStateCode ?? null,
    p.customerStateCode ?? null,
  );

/**
 * A project; `today` (YYYY-MM-DD in the shop's time zone) decides whether it is overdue. `viewer`:
 * who reads it; a CLIENT never reads the approval's note (domain/shop-notes.ts). Without one (webhooks) the note stays.
 * `currency` (the CURRENCY setting) is its totals' without a PI.
 */
export const presentProject = (p: ProjectWithNames, today: string, viewer?: Pick<Viewer, 'role'>, currency = 'INR') => ({
  id: p.id,
  number: p.number,
  name: p.name,
  description: p.description,
  pocId: p.pocId,
  pocName: p.pocName,
  customerId: p.customerId,
  customerName: p.customerName,
  status: p.status,
  piStatus: p.piStatus,
  approval: p.approval && {
    status: p.approval.status,
    note: viewer && !readsShopNotes(viewer) ? null : p.approval.note,
    decidedById: p.approval.decidedById,
    decidedByName: p.approval.decidedByName,
    decidedAt: p.approval.decidedAt,
  },
  reference: p.reference,
  dueDate: p.dueDate,
  deliveryAddress: p.deliveryAddress,
  overdue: isOverdue(p, today),
  items: p.items.map(presentJobItem),
  pi: p.pi && {
    number: p.pi.number,
    amount: p.pi.amount,
    currency: p.pi.currency,
    validUntil: p.pi.validUntil,
    submittedAt: p.pi.submittedAt,
    submittedById: p.pi.submittedById,
    submittedByName: p.pi.submittedByName,
  },
  paid: p.paid,
  balance: balanceOf(p.pi, p.paid),
  rush: p.rush,
  hold: p.hold && { reason: p.hold.reason, since: p.hold.since, byId: p.hold.byId, byName: p.hold.byName },
  repeatOf: p.repeatOf && { id: p.repeatOf.id, name: p.repeatOf.name, number: p.repeatOf.number },
  proof: p.proof ? { id: p.proof.id, version: p.proof.version, status: p.proof.status } : null,
  totals: projectTotalsOf(p, currency),
  invoice: p.invoice ? { number: p.invoice.number, date: p.invoice.date, total: p.invoice.total, fileId: p.invoice.fileId, voided: p.invoice.voided } : null,
  createdAt: p.createdAt,
  updatedAt: p.updatedAt,
});

/** A payment (POST /api/projects/:id/payments, and the project's `payments`): the amount in minor units. */
export const presentPayment = (p: Payment) => ({
  id: p.id,
  amount: p.amount,
  currency: p.currency,
  receivedOn: p.receivedOn,
  method: p.method,
  reference: p.reference,
  recordedById: p.recordedById,
  createdAt: p.createdAt,
});

/** A customer; `clients` (the CLIENT users attached) only for those who keep the customer list. */
export const presentCustomer = (c: Customer, clients?: CustomerClient[]) => ({
  id: c.id,
  name: c.name,
  gstin: c.gstin,
  email: c.email,
  phone: c.phone,
  billingAddress: c.billingAddress,
  stateCode: c.stateCode ?? null,
  active: c.active,
  accountManagerId: c.accountManagerId ?? null,
  createdAt: c.createdAt,
  updatedAt: c.updatedAt,
  ...(clients && { clients: clients.map((u) => ({ id: u.id, name: u.name, email: u.email, active: u.active })) }),
});

/** A project's documents as GET /api/projects/:id lists them: each with its checksum, its true type and the earlier upload it repeats. */
export const presentFiles = (files: FileUploadWithNames[], access: DocumentAccess) => {
  const duplicates = duplicatesOf(files);
  return files.map((f) => presentFile(f, duplicates.get(f.id) ?? null, access));
};

/** One document as the file list shows it; `duplicateOf` is the list's to say. */
export const presentFile = (f: FileUploadWithNames, duplicateOf: DuplicateOf | null, access: DocumentAccess) => ({
  id: f.id,
  projectId: f.projectId,
  type: f.type,
  url: documentAddress(access, f),
  filename: f.filename,
  size: f.size,
  contentType: f.contentType,
  uploadedById: f.uploadedById,
  uploadedByName: f.uploadedByName,
  createdAt: f.createdAt,
  sha256: f.sha256,
  detectedContentType: f.detectedType,
  contentTypeMismatch: typeMismatch(f.contentType, f.detectedType),
  duplicateOf,
  voidedAt: f.voidedAt,
  voidedById: f.voidedById,
  voidedByName: f.voidedByName,
  voidReason: f.voidReason,
});

/** The upload's answer (specification 4.1 step 12): exactly these four fields. */
export const presentUpload = (f: FileUpload, access: DocumentAccess) => ({ id: f.id, url: documentAddress(access, f), filename: f.filename, size: f.size });

/** An activity entry as `viewer` reads it: a CLIENT without the shop's own notes (domain/shop-notes.ts). */
export const presentActivity = (a: ActivityEntryWithNames, viewer?: Pick<Viewer, 'role'>) => ({
  id: a.id,
  userId: a.userId,
  userName: a.userName,
  action: a.action,
  entityType: a.entityType,
  entityId: a.entityId,
  details: viewer ? detailsFor(viewer, a.action, a.details) : a.details,
  createdAt: a.createdAt,
});

/** A comment (interface.md, Comments): the author's name, never more of them. */
export const presentComment = (c: Comment) => ({
  id: c.id,
  projectId: c.projectId,
  authorId: c.authorId,
  authorName: c.authorName,
  body: c.body,
  internal: c.internal,
  createdAt: c.createdAt,
});

/** GET/PATCH /api/account: one's own profile and email preferences (role and active are shown, not changed here). */
export const presentAccount = (a: { user: User; emailPreferences: Record<string, boolean> }) => ({
  id: a.user.id,
  name: a.user.name,
  email: a.user.email,
  phone: a.user.phone,
  role: a.user.role,
  location: a.user.location,
  branch: a.user.branch,
  customerId: a.user.customerId,
  emailPreferences: a.emailPreferences,
});
