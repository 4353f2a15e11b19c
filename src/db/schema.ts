import type { ColumnType, Generated } from 'kysely';

/** Table types for Kysely. Timestamps are ISO 8601 UTC strings in both dialects (see db/index.ts). */
export interface Tables {
  users: UsersTable;
  sessions: SessionsTable;
  projects: ProjectsTable;
  project_counter: ProjectCounterTable;
  project_items: ProjectItemsTable;
  payments: PaymentsTable;
  file_uploads: FileUploadsTable;
  storage_names: StorageNamesTable;
  activity_log: ActivityLogTable;
  login_failures: LoginFailuresTable;
  server_secrets: ServerSecretsTable;
  team_version: TeamVersionTable;
  outbox: OutboxTable;
  email_optouts: EmailOptoutsTable;
  password_resets: PasswordResetsTable;
  due_digests: DueDigestsTable;
  idempotency_keys: IdempotencyKeysTable;
  resumable_uploads: ResumableUploadsTable;
  upload_locks: UploadLocksTable;
  customers: CustomersTable;
  api_tokens: ApiTokensTable;
  comments: CommentsTable;
  webhooks: WebhooksTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_events: WebhookEventsTable;
  proofs: ProofsTable;
  proof_links: ProofLinksTable;
  shop_settings: ShopSettingsTable;
  invoice_counters: InvoiceCountersTable;
  invoices: InvoicesTable;
}

/** SQLite answers 0/1 and PostgreSQL true/false; the data layer maps both to boolean. */
type Bool = ColumnType<boolean | number, boolean, boolean>;

export interface UsersTable {
  id: string;
  name: string;
  email: string;
  /** email in lower case: the unique key that makes email uniqueness case-insensitive */
  email_key: string;
  phone: string | null;
  role: string;
  location: string | null;
  branch: string | null;
  active: Bool;
  password_hash: string;
  created_at: string;
  updated_at: string;
  /** The company a CLIENT belongs to (migration 014): widens what a CLIENT sees. */
  customer_id: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface SessionsTable {
  /** SHA-256 of the cookie's token; the token itself is never stored */
  token_hash: string;
  user_id: string;
  created_at: string;
  expires_at: string;
}

export interface ProjectsTable {
  id: string;
  name: string;
  description: string | null;
  poc_id: string;
  status: string;
  pi_status: string;
  approval_status: string | null;
  approval_note: string | null;
  approval_decided_by_id: string | null;
  approval_decided_at: string | null;
  created_at: string;
  updated_at: string;
  /** The job (migration 013): the customer's reference, the due date (YYYY-MM-DD), the delivery address. */
  reference: string | null;
  due_date: string | null;
  delivery_address: string | null;
  /** The customer the job is for (migration 014). */
  customer_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** The PI's figures (migration 015): null until one is submitted; replaced by a new submission. Amounts in minor units. */
  pi_number: string | null;
  pi_amount: ColumnType<number | null, number | null, number | null>;
  pi_currency: string | null;
  pi_valid_until: string | null;
  pi_submitted_at: string | null;
  pi_submitted_by_id: string | null;
  /** The job number (migration 025): from 1 in creation order, from project_counter. */
  number: ColumnType<number, number | undefined, number>;
  /** Rush and the hold (migration 025): `held` is true exactly when the hold's three columns are set. */
  rush: ColumnType<boolean | number, boolean | undefined, boolean>;
  held: ColumnType<boolean | number, boolean | undefined, boolean>;
  hold_reason: ColumnType<string | null, string | null | undefined, string | null>;
  hold_since: ColumnType<string | null, string | null | undefined, string | null>;
  hold_by_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** The project this one repeats (POST /api/projects/:id/reorder). */
  repeat_of_id: ColumnType<string | null, string | null | undefined, string | null>;
}

/** The last job number given (migration 025): one row, id 1. */
export interface ProjectCounterTable {
  id: number;
  last_number: number;
}

/** A payment received for a project (migration 015): an amount in the currency's minor units. */
export interface PaymentsTable {
  id: string;
  project_id: string;
  amount: ColumnType<number, number, never>;
  currency: string;
  /** YYYY-MM-DD, in the shop's time zone */
  received_on: string;
  method: string | null;
  reference: string | null;
  recorded_by_id: string;
  created_at: string;
}

/** A job's line (migration 013), in its project's order by `position` (0, 1, …). */
export interface ProjectItemsTable {
  id: string;
  project_id: string;
  position: number;
  description: string;
  quantity: number;
  unit: string;
  size: string | null;
  stock: string | null;
  colours: string | null;
  finishing: string | null;
  notes: string | null;
  unit_price: ColumnType<number | null, number | null | undefined, number | null>;
  hsn_sac: ColumnType<string | null, string | null | undefined, string | null>;
  gst_rate: ColumnType<number | null, number | null | undefined, number | null>;
}

export interface FileUploadsTable {
  id: string;
  project_id: string;
  type: string;
  url: string;
  filename: string;
  size: ColumnType<number, number, number>;
  content_type: string;
  storage_key: string;
  uploaded_by_id: string;
  created_at: string;
  /** Lower-case hex SHA-256 of the stored bytes, computed while they streamed (migration 007); null on older records. */
  sha256: string | null;
  /** The type the first bytes show (null: not recognised, or an older record). */
  detected_type: string | null;
  /** Withdrawn (migration 017): when, by whom and why; null while the document stands. */
  voided_at: ColumnType<string | null, string | null | undefined, string | null>;
  voided_by_id: ColumnType<string | null, string | null | undefined, string | null>;
  void_reason: ColumnType<string | null, string | null | undefined, string | null>;
  /** When a voided document's bytes were deleted from storage; null while that is still to be done. */
  bytes_deleted_at: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface IdempotencyKeysTable {
  user_id: string;
  key: string;
  /** The upload the first request made; null while that request runs. */
  file_upload_id: string | null;
  created_at: string;
}

export interface StorageNamesTable {
  /** folder/public name: reserved before the bytes are written, so two uploads never share one */
  key: string;
  created_at: string;
}

export interface ActivityLogTable {
  id: string;
  /** Dense, in commit order: the realtime event log's position (migration 002). */
  seq: ColumnType<number, number, never>;
  /** null: an answer given through a proof link, by nobody signed in (migration 024). */
  user_id: string | null;
  action: string;
  entity_type: string;
  entity_id: string;
  details: ColumnType<unknown, string, string>;
  created_at: string;
  /** An internal note's entry, never shown to a CLIENT (migration 019). */
  internal: ColumnType<boolean | number, boolean | 0 | 1 | undefined, boolean>;
}

/** Personal API tokens (migration 018). */
export interface ApiTokensTable {
  id: string;
  user_id: string;
  name: string;
  /** 'read' | 'write' */
  scope: string;
  /** SHA-256 of the token (base64url); the token itself is never stored */
  token_hash: string;
  created_at: string;
  expires_at: string | null;
  /** Written at most once a minute per token (actions/api-tokens.ts) */
  last_used_at: string | null;
  revoked_at: string | null;
}

export interface LoginFailuresTable {
  /** "email:<lower-case email>", "address:<client ip>", … (actions/attempts.ts) */
  key: string;
  failures: Generated<number>;
  window_started_at: string;
  /** Attempts under way, each holding a place until its outcome is known (migration 010). */
  pending: Generated<number>;
  /** When the last place was taken, in milliseconds since the epoch. */
  pending_at: Generated<number>;
}

/** Secrets shared by every instance, made on first use (migration 011). */
export interface ServerSecretsTable {
  name: string;
  value: string;
}

/** One row (id 1): bumped by triggers on users (migration 004), read to tell whether a cached team answer is current. */
export interface TeamVersionTable {
  id: number;
  version: number;
}

/** One email to come (migration 006): see mail/outbox.ts. */
export interface OutboxTable {
  id: string;
  recipient_id: string;
  project_id: string | null;
  /** JSON array of the events the email lists */
  events: ColumnType<unknown, string, string>;
  /** pending, sent, failed (gave up), dropped (the recipient no longer takes it) */
  status: string;
  attempts: ColumnType<number, number | undefined, number>;
  created_at: string;
  due_at: string;
  /** A dispatcher's claim: others leave the row alone until then. */
  locked_until: string | null;
  /** The claim holding the row (migration 031): its holder renews locked_until by it while it works. */
  claim_id: ColumnType<string | null, string | null | undefined, string | null>;
  sent_at: string | null;
  last_error: string | null;
}

/** An email category a user switched off. */
export interface EmailOptoutsTable {
  user_id: string;
  category: string;
}

/** A person's due-date digest for one day, decided (migration 016): see actions/due-digest.ts. */
export interface DueDigestsTable {
  user_id: string;
  /** YYYY-MM-DD in the shop's time zone */
  day: string;
  claimed_at: string;
  /** The digest's email, or null when there was nothing to list */
  outbox_id: string | null;
}

export interface PasswordResetsTable {
  /** SHA-256 of the emailed token; the token itself is never stored */
  token_hash: string;
  user_id: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

export interface ResumableUploadsTable {
  /** The tus upload id (the last segment of its URL). */
  id: string;
  user_id: string;
  project_id: string;
  file_type: string;
  filename: string;
  content_type: string;
  /** Set by the one request that runs the completion (the last PATCH; a repeated one finds it set). */
  finishing_at: string | null;
  file_upload_id: string | null;
  /** The completion's refusal or failure, answered again by GET …/result. */
  error_status: number | null;
  error_message: string | null;
  created_at: string;
}

export interface UploadLocksTable {
  /** The tus upload id. */
  id: string;
  /** The request (instance and lock) holding the lease. */
  holder: string;
  /** Milliseconds since the epoch; past it the lease is anyone's. */
  expires_at: number;
  /** 1 once a newer request asked the holder to let go. */
  release_requested: number;
}

/** A company the shop prints for (migration 014). */
export interface CustomersTable {
  id: string;
  name: string;
  /** The name case-folded (domain/customer.ts, nameKey): its unique index is the duplicate rule. */
  name_key: string;
  gstin: string | null;
  email: string | null;
  phone: string | null;
  billing_address: string | null;
  state_code: ColumnType<string | null, string | null | undefined, string | null>;
  active: Bool;
  created_at: string;
  updated_at: string;
  /** The POC or ADMIN who owns the orders the customer's people place (migration 025). */
  account_manager_id: ColumnType<string | null, string | null | undefined, string | null>;
}

/** An endpoint an admin registered (migration 020): see webhooks/. */
export interface WebhooksTable {
  id: string;
  url: string;
  /** JSON array of event types, or ["*"] */
  events: ColumnType<unknown, string, string>;
  description: string | null;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: string | null;
  active: Bool;
  failing_since: string | null;
  created_at: string;
  updated_at: string;
}

/** A comment on a project (migration 019); `internal`: a note among the shop's people. */
export interface CommentsTable {
  id: string;
  project_id: string;
  author_id: string;
  body: string;
  internal: Bool;
  created_at: string;
}

/** One webhook event (migration 022): its data, stored once whatever the number of endpoints it goes to. */
export interface WebhookEventsTable {
  id: string;
  event_type: string;
  /** JSON: the event's data as the change saw it (webhooks/outbox.ts) */
  payload: ColumnType<unknown, string, string>;
  created_at: string;
  /** JSON list of the endpoints the event goes to, until the dispatcher made their deliveries (migration 023); then null. */
  endpoint_ids: string | null;
  /** Its change's position in the event log (activity_log.seq; migration 031): the events' order. 0: written before, or a test event. */
  seq: ColumnType<number, number | undefined, never>;
}

/** One event to deliver to one endpoint (migrations 020, 022): the durable outbox of webhooks/outbox.ts. */
export interface WebhookDeliveriesTable {
  id: string;
  webhook_id: string;
  /** The event (webhook_events.id), also the `webhook-id` header */
  event_id: string;
  event_type: string;
  /** pending, delivered, failed */
  status: string;
  attempts: ColumnType<number, number | undefined, number>;
  next_attempt_at: string;
  /** A dispatcher's claim: others leave the row (and its endpoint's later rows) alone until then. */
  locked_until: string | null;
  /** The claim holding the row (migration 031): its holder renews locked_until by it, and records its attempt under it. */
  claim_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** Its event's position in the event log (migration 031): each endpoint's queue is in (seq, id) order. */
  seq: ColumnType<number, number | undefined, never>;
  last_status_code: number | null;
  last_error: string | null;
  response_excerpt: string | null;
  created_at: string;
  delivered_at: string | null;
}

/** One version of a project's proof (migration 024), with the customer's answer once given. */
export interface ProofsTable {
  id: string;
  project_id: string;
  version: number;
  filename: string;
  size: ColumnType<number | string, number, number>;
  content_type: string;
  detected_type: string | null;
  sha256: string;
  storage_key: string;
  url: string;
  note: string | null;
  status: string;
  posted_by_id: string;
  created_at: string;
  response_decision: string | null;
  response_note: string | null;
  response_by_id: string | null;
  response_by_name: string | null;
  response_via: string | null;
  response_email: string | null;
  response_at: string | null;
}

/** An approval link sent for one proof (migration 024): only its token's SHA-256. */
export interface ProofLinksTable {
  id: string;
  proof_id: string;
  token_hash: string;
  email: string;
  name: string | null;
  created_by_id: string;
  created_at: string;
  expires_at: string;
}

/** What the shop's documents print (migration 026): one row, id 'shop'. */
export interface ShopSettingsTable {
  id: string;
  name: string | null;
  address: string | null;
  gstin: string | null;
  phone: string | null;
  email: string | null;
  bank_details: string | null;
  invoice_prefix: string;
  updated_at: string | null;
}

/** The last invoice sequence issued in each financial year (migration 026). */
export interface InvoiceCountersTable {
  financial_year: string;
  last_sequence: number;
}

/** Every tax invoice issued, with its figures as issued (migration 026). */
export interface InvoicesTable {
  id: string;
  number: string;
  financial_year: string;
  sequence: number;
  invoice_date: string;
  project_id: string;
  customer_id: string | null;
  customer_name: string;
  customer_gstin: string | null;
  state_code: string | null;
  taxable: number;
  cgst: number;
  sgst: number;
  igst: number;
  total: number;
  currency: string;
  file_id: string;
  issued_by_id: string;
  created_at: string;
}
