import { TOKEN_SCOPES } from '../domain/api-tokens.js';
import { type TProperties, Type } from '@fastify/type-provider-typebox';
import { ITEMS, ITEM_MAX_LENGTH, MAX_LENGTH } from '../domain/limits.js';
import { MAX_AMOUNT } from '../domain/money.js';
import { APPROVAL_STATUSES, DOCUMENT_TYPES, PI_STATUSES, PROJECT_STATUSES, ROLES } from '../domain/model.js';
import { PROOF_STATUSES } from '../domain/proofs.js';

/** JSON shapes of the API, for validation and for /api/openapi.json. */

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);
/** A string or null as `type: [string, null]`: fast-json-stringify serializes it directly, where anyOf costs a validation per value. */
export const NullableString = (options: { format?: string; description?: string } = {}) => Type.Unsafe<string | null>({ type: ['string', 'null'], ...options });
export const enumOf = <T extends string>(values: readonly T[]) => Type.Unsafe<T>({ type: 'string', enum: [...values] });

export const ErrorBody = Type.Object({ error: Type.String() }, { $id: 'Error', description: 'Every error: {"error": message}' });
export const errorRef = Type.Ref('Error');

export const SessionUser = Type.Object({ id: Type.String(), name: Type.String(), email: Type.String(), role: enumOf(ROLES) });

export const TeamMember = Type.Object({
  id: Type.String(),
  name: Type.String(),
  email: Type.String(),
  phone: NullableString(),
  role: enumOf(ROLES),
  location: NullableString(),
  branch: NullableString(),
  active: Type.Boolean(),
  createdAt: Type.String({ format: 'date-time' }),
});
export const CreatedTeamMember = Type.Object({ ...TeamMember.properties, updatedAt: Type.String({ format: 'date-time' }) });
/** GET and PATCH /api/team/:id: a member with the company they belong to. */
export const TeamMemberDetail = Type.Object({ ...CreatedTeamMember.properties, customerId: NullableString({ description: 'the customer the user belongs to (a CLIENT sees its projects)' }) });

export const NewTeamMember = Type.Object({
  name: Type.String(),
  email: Type.String(),
  password: Type.String(),
  phone: Type.Optional(Type.String()),
  role: Type.Optional(Type.String({ description: 'ADMIN, POC or CLIENT; anything else becomes POC' })),
  location: Type.Optional(Type.String()),
  branch: Type.Optional(Type.String()),
});

export const TeamMemberChange = Type.Object(
  {
    name: Type.Optional(Type.String()),
    email: Type.Optional(Type.String()),
    phone: Type.Optional(NullableString()),
    role: Type.Optional(enumOf(ROLES)),
    location: Type.Optional(NullableString()),
    branch: Type.Optional(NullableString()),
    active: Type.Optional(Type.Boolean()),
    password: Type.Optional(Type.String({ description: 'at least 8 characters' })),
    customerId: Type.Optional(NullableString({ description: 'the id of a customer, or null; only a CLIENT sees its projects' })),
  },
  { additionalProperties: false },
);

export const Approval = Type.Object({
  status: enumOf(APPROVAL_STATUSES),
  note: NullableString(),
  decidedById: NullableString(),
  decidedByName: NullableString({ description: "the decider's name" }),
  decidedAt: NullableString({ format: 'date-time' }),
});

const atMost = (n: number) => `at most ${n} characters`;

/** A job's line as answered. */
export const JobItem = Type.Object({
  id: Type.String(),
  description: Type.String(),
  quantity: Type.Integer(),
  unit: Type.String(),
  size: NullableString(),
  stock: NullableString({ description: 'paper or material' }),
  colours: NullableString({ description: 'e.g. 4/4, 4/0, CMYK + Pantone 286' }),
  finishing: NullableString(),
  notes: NullableString(),
  unitPrice: Type.Union([Type.Integer(), Type.Null()], { description: "whole minor units of the project's currency (paise for INR)" }),
  hsnSac: NullableString({ description: 'HSN or SAC code, 4–8 digits' }),
  gstRate: Type.Union([Type.Integer(), Type.Null()], { description: 'GST rate in percent: 0, 5, 12, 18 or 28' }),
});

const figure = (what: string) => Type.Integer({ description: `${what}, in minor units` });

/** A project's totals (domain/gst.ts): null unless every line has a unit price and a GST rate. */
export const Totals = Type.Object({
  currency: Type.String(),
  taxable: figure('the taxable value'),
  cgst: figure('CGST'),
  sgst: figure('SGST'),
  igst: figure('IGST'),
  total: figure('taxable value plus taxes'),
  lines: Type.Array(Type.Object({ id: Type.String(), taxable: Type.Integer(), cgst: Type.Integer(), sgst: Type.Integer(), igst: Type.Integer() })),
});

/** A project's latest tax invoice. */
export const ProjectInvoice = Type.Object({
  number: Type.String({ description: 'e.g. INV/2026-27/0001' }),
  date: Type.String({ format: 'date' }),
  total: Type.Integer(),
  fileId: Type.String({ description: 'its INVOICE document' }),
  voided: Type.Boolean({ description: 'the document was withdrawn: a new invoice may be issued, with the next number' }),
});

/** A job's line as sent (domain/job.ts checks the rest: blank text, lengths). */
export const JobItemInput = Type.Object(
  {
    id: Type.Optional(Type.String({ description: "the id of one of the project's lines, to keep that line; without, a new line" })),
    description: Type.String({ description: `required, ${atMost(ITEM_MAX_LENGTH.description)}` }),
    quantity: Type.Integer({ minimum: ITEMS.minQuantity, maximum: ITEMS.maxQuantity, description: 'a whole number' }),
    unit: Type.Optional(NullableString({ description: `${atMost(ITEM_MAX_LENGTH.unit)}; default ${ITEMS.defaultUnit}` })),
    size: Type.Optional(NullableString({ description: atMost(ITEM_MAX_LENGTH.size) })),
    stock: Type.Optional(NullableString({ description: `paper or material, ${atMost(ITEM_MAX_LENGTH.stock)}` })),
    colours: Type.Optional(NullableString({ description: atMost(ITEM_MAX_LENGTH.colours) })),
    finishing: Type.Optional(NullableString({ description: atMost(ITEM_MAX_LENGTH.finishing) })),
    notes: Type.Optional(NullableString({ description: atMost(ITEM_MAX_LENGTH.notes) })),
    // The domain checks these (domain/job.ts) so that the refusal names the line, as for the other fields.
    unitPrice: Type.Optional(Type.Unknown({ description: "whole minor units of the project's currency, at least 0; null clears" })),
    hsnSac: Type.Optional(Type.Unknown({ description: 'HSN or SAC code, 4–8 digits, as text; null clears' })),
    gstRate: Type.Optional(Type.Unknown({ description: 'one of 0, 5, 12, 18, 28; null clears' })),
  },
  { additionalProperties: false },
);

/** The job's fields of POST /api/projects, PATCH /api/projects/:id and …/details: each optional; null clears. */
export const JobInput = {
  reference: Type.Optional(NullableString({ description: `the customer's own order or PO number, ${atMost(MAX_LENGTH.reference)}` })),
  dueDate: Type.Optional(NullableString({ format: 'date', description: "the promised delivery date, YYYY-MM-DD in the shop's time zone (TIMEZONE)" })),
  deliveryAddress: Type.Optional(NullableString({ description: atMost(MAX_LENGTH.deliveryAddress) })),
  rush: Type.Optional(Type.Boolean({ description: 'a rush job (default false)' })),
  items: Type.Optional(
    Type.Array(JobItemInput, { maxItems: ITEMS.maxLines, description: `the job's lines, the whole list (at most ${ITEMS.maxLines}); [] removes them all` }),
  ),
};

const minorUnits = (what: string) => `${what}, a whole number of the currency's minor units (paise for INR)`;

/** The PI's figures as a project carries them (null until one is submitted). */
export const Pi = Type.Object({
  number: Type.String(),
  amount: Type.Integer({ description: minorUnits('the amount') }),
  currency: Type.String({ description: 'ISO 4217' }),
  validUntil: NullableString({ format: 'date' }),
  submittedAt: Type.String({ format: 'date-time' }),
  submittedById: Type.String(),
  submittedByName: NullableString({ description: "the submitter's name" }),
});

export const Payment = Type.Object({
  id: Type.String(),
  amount: Type.Integer({ description: minorUnits('the amount') }),
  currency: Type.String({ description: 'ISO 4217' }),
  receivedOn: Type.String({ format: 'date' }),
  method: NullableString(),
  reference: NullableString(),
  recordedById: Type.String(),
  createdAt: Type.String({ format: 'date-time' }),
});

/** POST /api/projects/:id/submit-pi's body (domain/pi.ts checks the values). */
export const PiSubmission = Type.Object(
  {
    number: Type.String({ description: `the PI's number, required, ${atMost(MAX_LENGTH.number)}` }),
    amount: Type.Integer({ description: `${minorUnits('the amount')}, more than 0, at most ${MAX_AMOUNT}` }),
    currency: Type.Optional(NullableString({ description: 'ISO 4217 in capitals; default the CURRENCY setting (INR)' })),
    validUntil: Type.Optional(NullableString({ description: 'YYYY-MM-DD' })),
    note: Type.Optional(NullableString({ description: `${atMost(MAX_LENGTH.note)}, kept in the activity entry` })),
  },
  { additionalProperties: false },
);

/** POST /api/projects/:id/payments' body (domain/pi.ts checks the values). */
export const PaymentInput = Type.Object(
  {
    amount: Type.Integer({ description: `${minorUnits('the amount')}, more than 0, at most ${MAX_AMOUNT} (and the project's payments together too)` }),
    receivedOn: Type.String({ description: "YYYY-MM-DD, not after today in the shop's time zone (TIMEZONE)" }),
    currency: Type.Optional(NullableString({ description: "ISO 4217; default the PI's currency, or CURRENCY before any PI; another than the PI's is a 400" })),
    method: Type.Optional(NullableString({ description: `bank transfer, cheque, UPI, …; ${atMost(MAX_LENGTH.method)}` })),
    reference: Type.Optional(NullableString({ description: `the bank's or cheque's reference, ${atMost(MAX_LENGTH.reference)}` })),
  },
  { additionalProperties: false },
);
/** A project's customer as sent: the id of a customer, or null for none (a CLIENT: only their own company). */
export const CustomerIdInput = Type.Optional(NullableString({ description: 'the id of a customer, or null; a CLIENT may name only their own company' }));

export const Project = Type.Object({
  id: Type.String(),
  number: Type.Integer({ minimum: 1, description: 'the job number ("job 1042", shown as #1042): from 1 in creation order, unique, never reused' }),
  name: Type.String(),
  description: NullableString(),
  pocId: Type.String(),
  pocName: NullableString({ description: "the POC's name" }),
  customerId: NullableString({ description: 'the customer the job is for' }),
  customerName: NullableString({ description: "the customer's name" }),
  status: enumOf(PROJECT_STATUSES),
  piStatus: enumOf(PI_STATUSES),
  approval: Nullable(Approval),
  reference: NullableString({ description: "the customer's own order or PO number" }),
  dueDate: NullableString({ format: 'date', description: "the promised delivery date, YYYY-MM-DD in the shop's time zone" }),
  deliveryAddress: NullableString(),
  overdue: Type.Boolean({ description: 'dueDate is before today (in TIMEZONE) and the project is neither DELIVERED nor CANCELLED' }),
  items: Type.Array(JobItem, { description: "the job's lines, in order" }),
  pi: Nullable(Pi),
  paid: Type.Integer({ description: minorUnits("the sum of the project's payments") }),
  balance: Type.Union([Type.Integer(), Type.Null()], { description: "the PI's amount less the payments (negative when overpaid); null without a PI" }),
  rush: Type.Boolean({ description: 'a rush job' }),
  hold: Nullable(
    Type.Object({
      reason: Type.String(),
      since: Type.String({ format: 'date-time' }),
      byId: NullableString(),
      byName: NullableString(),
    }, { description: 'why the project is on hold, since when and by whom; null when it is not' }),
  ),
  repeatOf: Nullable(
    Type.Object(
      { id: Type.String(), name: Type.String(), number: Type.Integer({ description: "the original's job number (#N), as the web app names it" }) },
      { description: 'the project this one repeats (a reorder)' },
    ),
  ),
  proof: Nullable(
    Type.Object(
      { id: Type.String(), version: Type.Integer(), status: enumOf(PROOF_STATUSES) },
      { description: "the latest proof's id, version and status; null without proofs" },
    ),
  ),
  totals: Nullable(Totals),
  invoice: Nullable(ProjectInvoice),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});

export const FileUpload = Type.Object({
  id: Type.String(),
  projectId: Type.String(),
  type: enumOf(DOCUMENT_TYPES),
  url: Type.String(),
  filename: Type.String(),
  size: Type.Integer(),
  contentType: Type.String(),
  uploadedById: Type.String(),
  uploadedByName: NullableString({ description: "the uploader's name" }),
  createdAt: Type.String({ format: 'date-time' }),
  sha256: NullableString({ description: 'lower-case hex SHA-256 of the stored bytes, computed while they streamed; null for documents stored before checksums' }),
  detectedContentType: NullableString({ description: 'the type the first bytes show (null: not recognised); contentType is the declared one' }),
  contentTypeMismatch: Type.Boolean({ description: 'the bytes were recognised as something other than the declared type' }),
  duplicateOf: Type.Union(
    [
      Type.Object({
        id: Type.String(),
        filename: Type.String(),
        type: enumOf(DOCUMENT_TYPES),
        uploadedByName: NullableString(),
        createdAt: Type.String({ format: 'date-time' }),
      }),
      Type.Null(),
    ],
    { description: 'the first earlier standing document of this project with the same checksum, or null (always null for a withdrawn one)' },
  ),
  voidedAt: NullableString({ format: 'date-time', description: 'when the document was withdrawn (POST …/files/:fileId/void); null while it stands' }),
  voidedById: NullableString({ description: 'who withdrew it' }),
  voidedByName: NullableString({ description: "their name" }),
  voidReason: NullableString({ description: 'why it was withdrawn' }),
});

export const ProjectDetail = Type.Object({
  ...Project.properties,
  files: Type.Array(FileUpload),
  payments: Type.Array(Payment, { description: 'newest first (by the day received)' }),
  allowedActions: Type.Array(Type.String(), { description: 'lifecycle actions the caller may take now' }),
  canHold: Type.Boolean({ description: 'whether the caller may put the project on hold now, or release it when it is held' }),
  canReorder: Type.Boolean({ description: 'whether the caller may reorder the project (POST /api/projects/:id/reorder): an ADMIN, the owner or a CLIENT of its customer, unless it is CANCELLED' }),
  canEditDetails: Type.Boolean({ description: 'whether the caller may change the name, description and job now (PATCH /api/projects/:id/details)' }),
  uploads: Type.Record(Type.String(), NullableString(), {
    description: 'per document type: null when the caller may upload it now, else the reason it would be refused',
  }),
});

export const UploadResult = Type.Object({ id: Type.String(), url: Type.String(), filename: Type.String(), size: Type.Integer() });

export const ActivityEntry = Type.Object({
  id: Type.String(),
  userId: NullableString({ description: 'who acted; null for an answer given through a proof link' }),
  userName: NullableString({ description: "the acting user's name" }),
  action: Type.String(),
  entityType: Type.String(),
  entityId: Type.String(),
  details: Type.Record(Type.String(), Type.Unknown()),
  createdAt: Type.String({ format: 'date-time' }),
});

export const Comment = Type.Object({
  id: Type.String(),
  projectId: Type.String(),
  authorId: Type.String(),
  authorName: NullableString({ description: "the author's name" }),
  body: Type.String({ description: 'as written (surrounding whitespace trimmed); plain text, never HTML' }),
  internal: Type.Boolean({ description: "a note among the shop's people: never shown to a CLIENT" }),
  createdAt: Type.String({ format: 'date-time' }),
});

export const pageOf = <T extends Parameters<typeof Type.Array>[0]>(item: T) =>
  Type.Object({ items: Type.Array(item), nextCursor: NullableString() });

export const Limit = Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 }));
export const IdParams = Type.Object({ id: Type.String() });

/**
 * A GET's query string: the parameters it names and no others. An unknown one is refused by the
 * validator, `400 {"error": "querystring.<name> is not a known field"}`, so a misspelt filter is
 * not silently ignored (`?stauts=APPROVED` listing everything). The specification's GET /api/team keeps its own.
 */
export const QueryOf = <T extends TProperties>(properties: T) => Type.Object(properties, { additionalProperties: false });
/** A GET that takes no query parameters: any is refused as above. */
export const NoQuery = QueryOf({});

/** The email categories a user can switch off (mail/rules.ts), each true while received. */
const emailPreferenceFields = {
  approvals: Type.Boolean({ description: 'new projects and approval requests (admins); approved or rejected (POC)' }),
  pi: Type.Boolean({ description: 'PI submitted (admins); PI verified or rejected (POC)' }),
  progress: Type.Boolean({ description: 'printing started, dispatched, delivered, cancelled' }),
  documents: Type.Boolean({ description: 'a document uploaded by someone else' }),
  dueDigest: Type.Boolean({ description: 'the morning email listing the projects overdue or due today (POC: their own; admins: all)' }),
  comments: Type.Boolean({ description: 'a comment someone else wrote on a project one may see, with its text (internal notes: the shop only)' }),
  proofs: Type.Boolean({ description: 'a proof posted for the customer to answer (its CLIENT users); the answer (the owner and the admins)' }),
};

/** One's own profile as the team list shows it (without the admin's active and createdAt), and the email preferences. */
const { active: _active, createdAt: _createdAt, ...profile } = TeamMember.properties;
export const Account = Type.Object({ ...profile, customerId: NullableString({ description: 'the customer one belongs to' }), emailPreferences: Type.Object(emailPreferenceFields) });

export const AccountChange = Type.Object(
  {
    name: Type.Optional(Type.String({ maxLength: 200 })),
    phone: Type.Optional(Type.Union([Type.String({ maxLength: 40 }), Type.Null()])),
    // Type.Partial makes a new object schema and drops the options of the one it is given: they go on the Partial.
    emailPreferences: Type.Optional(Type.Partial(Type.Object(emailPreferenceFields), { additionalProperties: false })),
  },
  { additionalProperties: false },
);

/** A customer (interface.md, additions of 2026-11-24). */
export const Customer = Type.Object({
  id: Type.String(),
  name: Type.String(),
  gstin: NullableString({ description: '15 characters, upper case: state code, PAN, entity, Z, check character' }),
  email: NullableString(),
  phone: NullableString(),
  billingAddress: NullableString(),
  stateCode: NullableString({ description: "the GST state code (two digits); the GSTIN's first two when it has one" }),
  active: Type.Boolean(),
  accountManagerId: NullableString({ description: "the POC or ADMIN who owns the orders the customer's people place" }),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});

/** A customer with its CLIENT users (ADMIN and POC only). */
export const CustomerDetail = Type.Object({
  ...Customer.properties,
  clients: Type.Optional(
    Type.Array(Type.Object({ id: Type.String(), name: Type.String(), email: Type.String(), active: Type.Boolean() }), {
      description: 'the CLIENT users attached (ADMIN and POC only)',
    }),
  ),
});

const customerFields = {
  gstin: Type.Optional(NullableString({ description: 'GSTIN, checked by its format and check character; lower case is upper-cased; null or blank clears' })),
  email: Type.Optional(NullableString({ description: `a whole address, at most ${MAX_LENGTH.email} characters` })),
  phone: Type.Optional(NullableString({ description: `at most ${MAX_LENGTH.phone} characters` })),
  billingAddress: Type.Optional(NullableString({ description: `at most ${MAX_LENGTH.billingAddress} characters` })),
  stateCode: Type.Optional(NullableString({ description: "the GST state code, two digits; with a GSTIN it is the GSTIN's first two (filled in when not sent)" })),
  active: Type.Optional(Type.Boolean({ description: 'ADMIN only' })),
  accountManagerId: Type.Optional(NullableString({ description: 'ADMIN only: an active POC or ADMIN who owns the orders the customer’s people place; null clears' })),
};

export const NewCustomer = Type.Object({ name: Type.String({ description: `unique (case-insensitive), at most ${MAX_LENGTH.name} characters` }), ...customerFields }, { additionalProperties: false });
export const CustomerChange = Type.Object({ name: Type.Optional(Type.String({ description: `unique (case-insensitive), at most ${MAX_LENGTH.name} characters` })), ...customerFields }, { additionalProperties: false });
/** An API token as its owner sees it (interface.md, API tokens): never the token itself but once, when made. */
export const ApiToken = Type.Object({
  id: Type.String(),
  name: Type.String(),
  scope: enumOf(TOKEN_SCOPES),
  createdAt: Type.String({ format: 'date-time' }),
  expiresAt: NullableString({ format: 'date-time', description: 'null: never expires' }),
  lastUsedAt: NullableString({ format: 'date-time', description: 'recorded at most once a minute' }),
});

export const CreatedApiToken = Type.Object({
  ...ApiToken.properties,
  token: Type.String({ description: '`pos_` and 40 base62 characters: shown only in this answer, keep it now' }),
});

/** GET /api/tokens (ADMIN): everyone's, with the owner. */
export const AdminApiToken = Type.Object({ ...ApiToken.properties, userId: Type.String(), userName: Type.String() });

export const NewApiToken = Type.Object(
  {
    name: Type.String({ description: '1–100 characters' }),
    scope: enumOf(TOKEN_SCOPES),
    expiresInDays: Type.Optional(Type.Union([Type.Integer(), Type.Null()], { description: 'whole days, 1–3650; absent or null: never expires' })),
  },
  { additionalProperties: false },
);
