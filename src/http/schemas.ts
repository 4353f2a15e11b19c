import { Type } from '@fastify/type-provider-typebox';
import { ITEMS, ITEM_MAX_LENGTH, MAX_LENGTH } from '../domain/limits.js';
import { APPROVAL_STATUSES, DOCUMENT_TYPES, PI_STATUSES, PROJECT_STATUSES, ROLES } from '../domain/model.js';

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
  },
  { additionalProperties: false },
);

/** The job's fields of POST /api/projects, PATCH /api/projects/:id and …/details: each optional; null clears. */
export const JobInput = {
  reference: Type.Optional(NullableString({ description: `the customer's own order or PO number, ${atMost(MAX_LENGTH.reference)}` })),
  dueDate: Type.Optional(NullableString({ format: 'date', description: "the promised delivery date, YYYY-MM-DD in the shop's time zone (TIMEZONE)" })),
  deliveryAddress: Type.Optional(NullableString({ description: atMost(MAX_LENGTH.deliveryAddress) })),
  items: Type.Optional(
    Type.Array(JobItemInput, { maxItems: ITEMS.maxLines, description: `the job's lines, the whole list (at most ${ITEMS.maxLines}); [] removes them all` }),
  ),
};

export const Project = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: NullableString(),
  pocId: Type.String(),
  pocName: NullableString({ description: "the POC's name" }),
  status: enumOf(PROJECT_STATUSES),
  piStatus: enumOf(PI_STATUSES),
  approval: Nullable(Approval),
  reference: NullableString({ description: "the customer's own order or PO number" }),
  dueDate: NullableString({ format: 'date', description: "the promised delivery date, YYYY-MM-DD in the shop's time zone" }),
  deliveryAddress: NullableString(),
  overdue: Type.Boolean({ description: 'dueDate is before today (in TIMEZONE) and the project is neither DELIVERED nor CANCELLED' }),
  items: Type.Array(JobItem, { description: "the job's lines, in order" }),
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
    { description: 'the first earlier document of this project with the same checksum, or null' },
  ),
});

export const ProjectDetail = Type.Object({
  ...Project.properties,
  files: Type.Array(FileUpload),
  allowedActions: Type.Array(Type.String(), { description: 'lifecycle actions the caller may take now' }),
  canEditDetails: Type.Boolean({ description: 'whether the caller may change the name, description and job now (PATCH /api/projects/:id/details)' }),
  uploads: Type.Record(Type.String(), NullableString(), {
    description: 'per document type: null when the caller may upload it now, else the reason it would be refused',
  }),
});

export const UploadResult = Type.Object({ id: Type.String(), url: Type.String(), filename: Type.String(), size: Type.Integer() });

export const ActivityEntry = Type.Object({
  id: Type.String(),
  userId: Type.String(),
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

/** The email categories a user can switch off (mail/rules.ts), each true while received. */
const emailPreferenceFields = {
  approvals: Type.Boolean({ description: 'new projects and approval requests (admins); approved or rejected (POC)' }),
  pi: Type.Boolean({ description: 'PI submitted (admins); PI verified or rejected (POC)' }),
  progress: Type.Boolean({ description: 'printing started, dispatched, delivered, cancelled' }),
  documents: Type.Boolean({ description: 'a document uploaded by someone else' }),
  comments: Type.Boolean({ description: 'a comment someone else wrote on a project one may see, with its text (internal notes: the shop only)' }),
};

/** One's own profile as the team list shows it (without the admin's active and createdAt), and the email preferences. */
const { active: _active, createdAt: _createdAt, ...profile } = TeamMember.properties;
export const Account = Type.Object({ ...profile, emailPreferences: Type.Object(emailPreferenceFields) });

export const AccountChange = Type.Object(
  {
    name: Type.Optional(Type.String({ maxLength: 200 })),
    phone: Type.Optional(Type.Union([Type.String({ maxLength: 40 }), Type.Null()])),
    // Type.Partial makes a new object schema and drops the options of the one it is given: they go on the Partial.
    emailPreferences: Type.Optional(Type.Partial(Type.Object(emailPreferenceFields), { additionalProperties: false })),
  },
  { additionalProperties: false },
);
