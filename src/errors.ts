import { labelOf } from './domain/labels.js';
import { formatBytes } from './domain/units.js';

/**
 * A failure the service expects and answers on purpose: an HTTP status and the exact message
 * the client sees as `{"error": message}`. Anything that is not an AppError is unexpected,
 * logged, and answered as the route's failure rule says (see http/error-handler.ts).
 */
export class AppError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'AppError';
  }
}

const error = (status: number, message: string) => () => new AppError(status, message);

/** The specification's and interface's errors, each with its exact message. */
export const errors = {
  unauthorized: error(401, 'Unauthorized'),
  forbidden: error(403, 'Forbidden'),
  crossOrigin: error(403, 'Cross-origin request refused'),
  notFound: error(404, 'Not found'),

  // POST /api/upload (specification 4.1, in check order)
  uploadFieldsRequired: error(400, 'file, projectId and fileType are required'),
  invalidFileType: error(400, 'Invalid fileType'),
  projectNotFound: error(404, 'Project not found'),
  notYourProject: error(403, 'You can only upload files to your own projects'),
  notApprovedOrPiNotVerified: error(403, 'POCs can upload documents only after admin approves the project and verifies the PI'),
  poBeforeApproval: error(400, 'PO can only be uploaded after project approval'),
  challanBeforeDispatch: error(400, 'Challan can only be uploaded after dispatch'),
  invoiceBeforeDispatch: error(400, 'Invoice can only be uploaded after dispatch'),
  malformedMultipart: error(400, 'Malformed multipart body'),
  fileTooLarge: (limit: number) => new AppError(413, `File is larger than the upload limit of ${formatBytes(limit)}`),

  // documents (interface.md, additions of 2026-11-23)
  typeNotAllowed: (type: string) => new AppError(415, `File type ${type} is not allowed`),
  invalidIdempotencyKey: error(400, 'Idempotency-Key must be 1 to 255 visible ASCII characters'),
  idempotencyKeyReused: error(409, 'Idempotency-Key was already used for a different upload'),
  idempotencyKeyInProgress: error(409, 'An upload with this Idempotency-Key is still in progress'),
  resumableNotFound: error(404, 'Upload not found'),
  resumableNotFinished: error(409, 'The upload is not finished'),
  resumableFinished: error(409, 'A finished upload cannot be terminated'),
  invalidHost: error(400, 'Invalid Host header'),

  // previews (interface.md, additions of 2026-11-24)
  documentNotFound: error(404, 'Document not found'),
  noPreview: error(404, 'No preview for this document'),
  // RFC 9112 3.2; the connection is closed with the answer, as Node would have done.
  missingHost: () => new AppError(400, 'Host header is required', { connection: 'close' }),

  // /api/team (specification 4.2, 4.3)
  teamFieldsRequired: error(400, 'Name, email and password are required'),
  emailExists: error(409, 'Email already exists'),
  lastAdmin: error(409, 'The last active admin cannot be demoted or deactivated'),
  userNotFound: error(404, 'User not found'),

  // customers (interface.md, additions of 2026-11-24)
  customerNotFound: error(404, 'Customer not found'),
  customerNameExists: error(409, 'A customer with this name already exists'),

  // sessions (interface.md)
  loginFieldsRequired: error(400, 'Email and password are required'),
  invalidCredentials: error(401, 'Invalid email or password'),
  tooManyLogins: (retryAfterSeconds: number) =>
    new AppError(429, 'Too many login attempts, try again later', { 'retry-after': String(retryAfterSeconds) }),

  // first run (interface.md, additions of 2026-11-27)
  setupDone: error(409, 'Setup is already done'),
  invalidSetupToken: error(403, 'Invalid setup token'),

  // account and password reset (interface.md, additions of 2026-11-23)
  passwordChangeFieldsRequired: error(400, 'currentPassword and newPassword are required'),
  wrongCurrentPassword: error(400, 'Current password is incorrect'),
  resetFieldsRequired: error(400, 'token and password are required'),
  resetLinkInvalid: error(400, 'This reset link is invalid, used or expired; ask for a new one'),
  emailRequired: error(400, 'email is required'),
  tooManyResetRequests: (retryAfterSeconds: number) =>
    new AppError(429, 'Too many password reset requests, try again later', { 'retry-after': String(retryAfterSeconds) }),

  tooManyResetAttempts: (retryAfterSeconds: number) =>
    new AppError(429, 'Too many password reset attempts, try again later', { 'retry-after': String(retryAfterSeconds) }),
  tooManyPasswordAttempts: (retryAfterSeconds: number) =>
    new AppError(429, 'Too many password attempts, try again later', { 'retry-after': String(retryAfterSeconds) }),

  // API tokens (interface.md, additions of 2026-11-24)
  readOnlyToken: error(403, 'This token is read-only'),
  tokenNeedsSession: error(403, 'API tokens can be created only when signed in, not with a token'),
  tokenNotFound: error(404, 'Token not found'),
  tooManyTokenAttempts: (retryAfterSeconds: number) =>
    new AppError(429, 'Too many failed token attempts, try again later', { 'retry-after': String(retryAfterSeconds) }),

  tooManyStreams: (max: number) =>
    new AppError(429, `Too many realtime streams open for this user (at most ${max}); close one and try again`, { 'retry-after': '10' }),
  tooManyDocumentMisses: (retryAfterSeconds: number) =>
    new AppError(429, 'Too many requests for documents that do not exist, try again later', { 'retry-after': String(retryAfterSeconds) }),
  passwordWorkBusy: () => new AppError(503, 'Too many sign-ins at once, try again in a moment', { 'retry-after': '1' }),
  invalidCursor: error(400, 'Invalid cursor'),
  bodyTooDeep: error(400, 'Request body is nested too deeply'),
  bodyPrototypeKey: error(400, 'Request body must not contain __proto__ or constructor.prototype keys'),
  /** "Point of contact must be the id of an active user": the field as people call it (domain/limits.ts). */
  invalidField: (field: string, detail: string) => new AppError(400, `${labelOf(field)} ${detail}`),
  // withdrawing a document (interface.md, additions of 2026-11-24)
  voidNotAllowed: error(403, 'Only an admin or the uploader can withdraw a document'),
  voidWindowPassed: error(403, 'The uploader can withdraw a document only within 24 hours of uploading it; ask an admin'),
  alreadyVoided: error(409, 'This document has already been withdrawn'),
  invalidTransition: (action: string, state: string) => new AppError(409, `Cannot ${action} a project that is ${state}`),
  noAccountManager: error(409, 'Your company has no account manager yet'),
  notAttachedToCompany: error(409, 'Your account is not attached to a company'),
  onHold: (reason: string) => new AppError(409, `The project is on hold: ${reason}`),
  // money documents (interface.md, additions of 2026-11-27)
  linesNeedPrices: error(409, 'Every line needs a price and a GST rate'),
  projectHasNoCustomer: error(409, 'The project has no customer'),
  shopGstinNotSet: error(409, "The shop's GSTIN is not set"),
  invoiceExists: (number: string) => new AppError(409, `This project already has invoice ${number}`),
};

export const isAppError = (e: unknown): e is AppError => e instanceof AppError;
