import type { Viewer } from './visibility.js';

/** The vocabulary of the service, in the customer's words (specification part 2 and interface.md). */

import type { ActivityAction } from './activity.js';

export const ROLES = ['ADMIN', 'POC', 'CLIENT'] as const;
export type Role = (typeof ROLES)[number];

export const PROJECT_STATUSES = ['REQUESTED', 'APPROVED', 'PRINTING', 'DISPATCHED', 'DELIVERED', 'CANCELLED'] as const;
export type ProjectStatus = (typeof PROJECT_STATUSES)[number];

export const PI_STATUSES = ['PENDING', 'SUBMITTED', 'VERIFIED', 'REJECTED'] as const;
export type PiStatus = (typeof PI_STATUSES)[number];

export const APPROVAL_STATUSES = ['PENDING', 'APPROVED', 'REJECTED'] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

export const DOCUMENT_TYPES = ['PO', 'CHALLAN', 'INVOICE'] as const;
export type DocumentType = (typeof DOCUMENT_TYPES)[number];

/** The acting user, as the session carries it (session.user in the specification): a viewer (domain/visibility.ts) who acts. */
export type Actor = Viewer;

export interface Approval {
  status: ApprovalStatus;
  note: string | null;
  decidedById: string | null;
  decidedAt: string | null;
}

export interface Project {
  id: string;
  name: string;
  description: string | null;
  pocId: string;
  status: ProjectStatus;
  piStatus: PiStatus;
  approval: Approval | null;
  /** The customer the job is for (null: none recorded). */
  customerId: string | null;
  createdAt: string;
  updatedAt: string;
  /** The job number ("job 1042"): from 1 in creation order, given by the store when the project is inserted. */
  number: number;
  /** A rush job (one of the job's details). */
  rush: boolean;
  /** Why and since when the project is on hold, and by whom; null when it is not. */
  hold: Hold | null;
  /** The project this one repeats (a reorder), or null. */
  repeatOfId: string | null;
}

/** A hold (interface.md, "Holds, rush, reorders"). */
export interface Hold {
  reason: string;
  since: string;
  byId: string | null;
}

/** A PI's figures (interface.md, "The PI and payments"): the amount in minor units of `currency`. */
export interface PiFigures {
  number: string;
  amount: number;
  currency: string;
  /** YYYY-MM-DD, or null when the PI names no date. */
  validUntil: string | null;
}

/** The PI as the project keeps it: its figures, who submitted them and when (the last submission's). */
export interface Pi extends PiFigures {
  submittedAt: string;
  submittedById: string;
}

/** A payment received for a project, recorded by an ADMIN: the amount in minor units of `currency`. */
export interface Payment {
  id: string;
  projectId: string;
  amount: number;
  currency: string;
  /** YYYY-MM-DD in the shop's time zone. */
  receivedOn: string;
  method: string | null;
  reference: string | null;
  recordedById: string;
  createdAt: string;
}

/** What a project records about the job besides its lines (interface.md, "The job itself"). */
export interface JobDetails {
  /** The customer's own order or PO number. */
  reference: string | null;
  /** The promised delivery date, YYYY-MM-DD in the shop's time zone (TIMEZONE). */
  dueDate: string | null;
  deliveryAddress: string | null;
}

/** One line of a job: what is printed, how many, and how. */
export interface JobItem {
  id: string;
  description: string;
  quantity: number;
  unit: string;
  size: string | null;
  stock: string | null;
  colours: string | null;
  finishing: string | null;
  notes: string | null;
  /** Money documents: whole minor units of the project's currency (null: not priced). */
  unitPrice?: number | null;
  /** HSN or SAC code, 4–8 digits, as text. */
  hsnSac?: string | null;
  /** One of domain/gst.ts GST_RATES. */
  gstRate?: number | null;
}

export interface User {
  id: string;
  name: string;
  email: string;
  phone: string | null;
  role: Role;
  location: string | null;
  branch: string | null;
  active: boolean;
  /** The company a user belongs to (null by default); only a CLIENT's widens what they see. */
  customerId: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface FileUpload {
  id: string;
  projectId: string;
  type: DocumentType;
  url: string;
  filename: string;
  size: number;
  contentType: string;
  storageKey: string;
  uploadedById: string;
  createdAt: string;
  /** Lower-case hex SHA-256 of the bytes; null for records older than checksums. */
  sha256: string | null;
  /** The type the bytes show (file-type, or active text content); null when not recognised. */
  detectedType: string | null;
  /** Withdrawn (interface.md, "Withdrawing a wrong document"): when, by whom, why; null while the document stands. */
  voidedAt: string | null;
  voidedById: string | null;
  voidReason: string | null;
}

/** An activity-log entry as read: the log may hold actions the service no longer writes (an older version's), so a string. */
export interface ActivityEntry {
  id: string;
  /** null: nobody signed in (a proof answered through a link, interface.md "Proofs"). */
  userId: string | null;
  action: string;
  entityType: string;
  entityId: string;
  details: Record<string, unknown>;
  createdAt: string;
}

/** An entry as the service writes it: one of its actions (domain/activity.ts). */
export interface NewActivityEntry extends ActivityEntry {
  action: ActivityAction;
  /** An internal note's entry: never shown to a CLIENT (domain/visibility.ts, maySeeEntry). */
  internal?: boolean;
}

/*
 * Records as they are read for display: with the names of the users they refer to, read in the
 * same query (a LEFT JOIN on users; null when there is no such user). Names only: never another
 * user's email or anything else about them.
 */

export interface ApprovalWithNames extends Approval {
  decidedByName: string | null;
}

/** A project as answers show it: with the names, the job's details and its lines in order. */
export interface ProjectWithNames extends Omit<Project, 'approval' | 'hold'>, JobDetails {
  hold: (Hold & { byName: string | null }) | null;
  /** The project this one repeats, with its name and job number (null when it repeats none, or that one is gone). */
  repeatOf: { id: string; name: string; number: number } | null;
  pocName: string | null;
  customerName: string | null;
  approval: ApprovalWithNames | null;
  items: JobItem[];
  pi: PiWithNames | null;
  /** The sum of the project's payments, in minor units (0 without any). */
  paid: number;
  /** Its latest proof (interface.md, "Proofs"); absent in webhook events stored before proofs existed. */
  proof?: { id: string; version: number; status: 'pending' | 'approved' | 'changes-requested' | 'superseded' } | null;
  /** Money documents (migration 026): the customer's GST state, the shop's (its GSTIN's first two digits), the latest tax invoice. Absent in webhook events stored before. */
  customerStateCode?: string | null;
  shopStateCode?: string | null;
  invoice?: ProjectInvoice | null;
}

/** A project's latest tax invoice. */
export interface ProjectInvoice {
  number: string;
  date: string;
  total: number;
  fileId: string;
  voided: boolean;
}

export interface PiWithNames extends Pi {
  submittedByName: string | null;
}

export interface FileUploadWithNames extends FileUpload {
  uploadedByName: string | null;
  voidedByName: string | null;
}

/** A comment on a project (interface.md, Comments), with its author's name. */
export interface Comment {
  id: string;
  projectId: string;
  authorId: string;
  authorName: string | null;
  body: string;
  /** A note among the shop's people: never shown to a CLIENT. */
  internal: boolean;
  createdAt: string;
}

export interface ActivityEntryWithNames extends ActivityEntry {
  userName: string | null;
}

export const isOneOf = <T extends string>(values: readonly T[], v: unknown): v is T =>
  typeof v === 'string' && (values as readonly string[]).includes(v);
