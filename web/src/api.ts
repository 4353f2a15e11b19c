/** The service's JSON API, as the web app uses it (same origin: the session cookie goes along). */
import type { DocumentType, ProjectStatus, Role } from '../../src/domain/model';
import type { ProjectAction } from '../../src/domain/project-lifecycle';
import type { EmailCategory } from '../../src/mail/rules';
import type { presentAccount, presentActivity, presentComment, presentCustomer, presentFiles, presentJobItem, presentPayment, presentProject, presentSessionUser, presentTeamMember, presentTeamMemberDetail } from '../../src/presenters';

// The enumerations and action names are the service's own, so a new status or type reaches the app by itself.
export { DOCUMENT_TYPES, PROJECT_STATUSES, ROLES } from '../../src/domain/model';
export type { ApprovalStatus, DocumentType, PiStatus, ProjectStatus, Role } from '../../src/domain/model';
export type { ProjectAction } from '../../src/domain/project-lifecycle';

// The answers' shapes are the presenters' own (src/presenters), so the app and the API cannot drift apart.
export type SessionUser = ReturnType<typeof presentSessionUser>;
export type Project = ReturnType<typeof presentProject>;
export type FileUpload = ReturnType<typeof presentFiles>[number];
export type Payment = ReturnType<typeof presentPayment>;
export type ActivityEntry = ReturnType<typeof presentActivity>;
export type Comment = ReturnType<typeof presentComment>;
export type TeamMember = ReturnType<typeof presentTeamMember>;
export type TeamMemberDetail = ReturnType<typeof presentTeamMemberDetail>;
export type JobItem = ReturnType<typeof presentJobItem>;
export type Customer = ReturnType<typeof presentCustomer>;
/** A job line as sent: `id` keeps an existing line. */
export type JobLine = Partial<Omit<JobItem, 'description' | 'quantity'>> & { description: string; quantity: number };
/** The job's fields as POST /api/projects and PATCH …/details take them (null clears). */
export interface JobFields {
  customerId?: string | null;
  reference?: string | null;
  dueDate?: string | null;
  deliveryAddress?: string | null;
  items?: JobLine[];
  rush?: boolean;
}
export interface CustomerFields {
  name?: string;
  gstin?: string | null;
  email?: string | null;
  phone?: string | null;
  billingAddress?: string | null;
  active?: boolean;
}
export type Account = ReturnType<typeof presentAccount>;
export type EmailPreferences = Record<EmailCategory, boolean>;
export { EMAIL_CATEGORIES, type EmailCategory } from '../../src/mail/rules';

export interface ProjectDetail extends Project {
  files: FileUpload[];
  /** Newest first. */
  payments: Payment[];
  /** The lifecycle actions the signed-in user may take now. */
  allowedActions: ProjectAction[];
  /** Whether the signed-in user may change the name and description now. */
  canEditDetails: boolean;
  /** Whether the signed-in user may put the project on hold now, or release it when it is held. */
  canHold: boolean;
  /** Whether the signed-in user may reorder the project (a new request from it). */
  canReorder: boolean;
  /** Per document type: null when the signed-in user may upload it now, else the reason the API would refuse it. */
  uploads: Record<DocumentType, string | null>;
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

export interface Stats {
  projects: { total: number; byStatus: Record<ProjectStatus, number>; rejected: number };
  documents: { total: number; byType: Record<DocumentType, number> };
  /** Open projects overdue, due today, due today or in the next 6 days. */
  due: { overdue: number; today: number; week: number };
  /** PIs awaiting verification; for ADMINs, what is owed per currency in minor units (digits past 2^53 − 1). */
  pi: { awaitingVerification: number; outstanding?: Record<string, { amount: number | string; projects: number }> };
  team?: { total: number; active: number; byRole: Record<Role, number> };
  /** Open projects whose latest proof waits for the customer, or came back with changes requested. */
  proofs?: { awaitingCustomer: number; changesRequested: number };
  /** Open projects on hold, and rush ones. */
  held: number;
  rush: number;
}

/** A refusal of the API: its status and its `{"error"}` message, as is. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

const errorOf = (status: number, body: unknown, retryAfter: string | null): ApiError => {
  const message =
    body && typeof body === 'object' && typeof (body as { error?: unknown }).error === 'string'
      ? (body as { error: string }).error
      : `The service answered ${status}`;
  const seconds = retryAfter !== null && /^\d+$/.test(retryAfter) ? Number(retryAfter) : null;
  return new ApiError(status, message, seconds);
};

export type TokenScope = 'read' | 'write';

/** An API token as My account lists it (the token itself is shown once, when made). */
export interface ApiToken {
  id: string;
  name: string;
  scope: TokenScope;
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
}

/** One JSON request. A non-2xx answer becomes an ApiError carrying the API's message. */
export async function request<T>(method: string, path: string, body?: unknown): Promise<T> {
  let res: Response;
  try {
    res = await fetch(path, {
      method,
      credentials: 'same-origin',
      headers: body === undefined ? { accept: 'application/json' } : { accept: 'application/json', 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, 'The service cannot be reached. Check your connection and try again.');
  }
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  if (!res.ok) throw errorOf(res.status, parsed, res.headers.get('retry-after'));
  return parsed as T;
}

const query = (params: Record<string, string | number | undefined>) => {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
};

export interface ProjectFilter {
  status?: string;
  approval?: string;
  q?: string;
  due?: string;
  piStatus?: string;
  customerId?: string;
  /** 'true': only held (or only rush) projects. */
  held?: string;
  rush?: string;
  sort?: string;
  limit?: number;
  cursor?: string;
}

export interface NewMember {
  name: string;
  email: string;
  password: string;
  role: Role;
  phone?: string;
  location?: string;
  branch?: string;
}

export type MemberChange = Partial<{ name: string; email: string; phone: string | null; role: Role; location: string | null; branch: string | null; active: boolean; password: string }>;

export const api = {
  session: () => request<{ user: SessionUser; expiresAt: string; maxUploadBytes: number }>('GET', '/api/auth/session'),
  login: (email: string, password: string) => request<{ user: SessionUser }>('POST', '/api/auth/login', { email, password }),
  logout: () => request<void>('POST', '/api/auth/logout'),
  /** The first run: whether the install waits for its first admin, and making that admin with the logged link's token. */
  setupNeeded: () => request<{ needed: boolean }>('GET', '/api/setup'),
  setup: (body: { token: string; name: string; email: string; password: string }) => request<{ user: SessionUser }>('POST', '/api/setup', body),

  stats: () => request<Stats>('GET', '/api/dashboard/stats'),
  activity: (params: { entityType?: string; entityId?: string; limit?: number }) => request<Page<ActivityEntry>>('GET', `/api/activity${query(params)}`),

  projects: (filter: ProjectFilter) => request<Page<Project>>('GET', `/api/projects${query({ ...filter })}`),
  project: (id: string) => request<ProjectDetail>('GET', `/api/projects/${encodeURIComponent(id)}`),
  comments: (id: string, cursor?: string) => request<Page<Comment>>('GET', `/api/projects/${encodeURIComponent(id)}/comments${query({ limit: 200, cursor })}`),
  addComment: (id: string, body: { body: string; internal: boolean }) => request<Comment>('POST', `/api/projects/${encodeURIComponent(id)}/comments`, body),
  /** The CSV of the projects a filter lists (a download link, not a fetch). */
  projectsCsvUrl: (filter: ProjectFilter) => `/api/projects.csv${query({ ...filter })}`,
  createProject: (body: { name: string; description?: string; pocId?: string } & JobFields) => request<Project>('POST', '/api/projects', body),
  editDetails: (id: string, body: { name?: string; description?: string | null } & JobFields) => request<Project>('PATCH', `/api/projects/${encodeURIComponent(id)}/details`, body),
  /** The PI with its figures: the amount in minor units of the currency. */
  submitPi: (id: string, body: { number: string; amount: number; currency: string; validUntil?: string; note?: string }) =>
    request<Project>('POST', `/api/projects/${encodeURIComponent(id)}/submit-pi`, body),
  /** Withdraw a wrong document (an admin at any time, its uploader within 24 hours), with the reason. */
  voidDocument: (projectId: string, fileId: string, reason: string) =>
    request<FileUpload>('POST', `/api/projects/${encodeURIComponent(projectId)}/files/${encodeURIComponent(fileId)}/void`, { reason }),
  /** A payment received (ADMIN): the amount in minor units. */
  recordPayment: (id: string, body: { amount: number; receivedOn: string; currency?: string; method?: string; reference?: string }) =>
    request<Payment>('POST', `/api/projects/${encodeURIComponent(id)}/payments`, body),

  customers: (filter: { q?: string; active?: string; limit?: number; cursor?: string }) => request<Page<Customer>>('GET', `/api/customers${query({ ...filter })}`),
  customer: (id: string) => request<Customer>('GET', `/api/customers/${encodeURIComponent(id)}`),
  createCustomer: (body: CustomerFields) => request<Customer>('POST', '/api/customers', body),
  updateCustomer: (id: string, body: CustomerFields) => request<Customer>('PATCH', `/api/customers/${encodeURIComponent(id)}`, body),
  /** Hold with the reason, release with an optional note (interface.md, "Holds, rush, reorders"). */
  hold: (id: string, reason: string) => request<Project>('POST', `/api/projects/${encodeURIComponent(id)}/hold`, { reason }),
  release: (id: string, note?: string) => request<Project>('POST', `/api/projects/${encodeURIComponent(id)}/release`, note ? { note } : {}),
  /** A new request from this project's job: the new project. */
  reorder: (id: string, body: { dueDate?: string; reference?: string } = {}) => request<Project>('POST', `/api/projects/${encodeURIComponent(id)}/reorder`, body),
  act: (id: string, action: ProjectAction, note?: string) =>
    request<Project>('POST', `/api/projects/${encodeURIComponent(id)}/${action}`, note ? { note } : {}),

  team: () => request<TeamMember[]>('GET', '/api/team'),
  createMember: (body: NewMember) => request<TeamMember>('POST', '/api/team', body),
  updateMember: (id: string, change: MemberChange) => request<TeamMember>('PATCH', `/api/team/${encodeURIComponent(id)}`, change),
  member: (id: string) => request<TeamMemberDetail>('GET', `/api/team/${encodeURIComponent(id)}`),
  /** Attach a CLIENT to their company, or detach (null). */
  setMemberCustomer: (id: string, customerId: string | null) => request<TeamMemberDetail>('PATCH', `/api/team/${encodeURIComponent(id)}`, { customerId }),

  account: () => request<Account>('GET', '/api/account'),
  updateAccount: (change: { name?: string; phone?: string | null; emailPreferences?: Partial<EmailPreferences> }) => request<Account>('PATCH', '/api/account', change),
  changePassword: (currentPassword: string, newPassword: string) => request<void>('POST', '/api/account/password', { currentPassword, newPassword }),
  apiTokens: () => request<ApiToken[]>('GET', '/api/account/tokens'),
  createApiToken: (fields: { name: string; scope: TokenScope; expiresInDays?: number }) => request<ApiToken & { token: string }>('POST', '/api/account/tokens', fields),
  revokeApiToken: (id: string) => request<void>('DELETE', `/api/account/tokens/${encodeURIComponent(id)}`),
  everyonesApiTokens: () => request<(ApiToken & { userId: string; userName: string })[]>('GET', '/api/tokens'),
  revokeAnyApiToken: (id: string) => request<void>('DELETE', `/api/tokens/${encodeURIComponent(id)}`),
  forgotPassword: (email: string) => request<Record<string, never>>('POST', '/api/auth/forgot-password', { email }),
  resetPassword: (token: string, password: string) => request<{ user: SessionUser }>('POST', '/api/auth/reset-password', { token, password }),
};

/** An upload in flight: `done` settles with the API's answer; `abort` stops it. */
export interface Upload {
  done: Promise<{ id: string; url: string; filename: string; size: number }>;
  abort(): void;
}

/**
 * POST /api/upload with XMLHttpRequest, for its upload progress events. projectId and fileType go
 * before the file, so the service checks them at the file's first byte and refuses at once.
 */
export function uploadDocument(projectId: string, fileType: DocumentType, file: File, onProgress: (loaded: number, total: number) => void, idempotencyKey?: string): Upload {
  if (file.size >= RESUMABLE_FROM_BYTES) return resumableUpload(projectId, fileType, file, onProgress);
  const xhr = new XMLHttpRequest();
  const done = new Promise<{ id: string; url: string; filename: string; size: number }>((resolve, reject) => {
    const form = new FormData();
    form.append('projectId', projectId);
    form.append('fileType', fileType);
    form.append('file', file, file.name);
    xhr.open('POST', '/api/upload');
    xhr.setRequestHeader('accept', 'application/json');
    // One key per chosen file: a retry after a lost answer gets the first answer instead of a second copy.
    if (idempotencyKey) xhr.setRequestHeader('idempotency-key', idempotencyKey);
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) onProgress(e.loaded, e.total);
    };
    xhr.upload.onload = (e) => onProgress(e.total || e.loaded, e.total || e.loaded);
    xhr.onload = () => {
      let body: unknown;
      try {
        body = xhr.responseText ? JSON.parse(xhr.responseText) : undefined;
      } catch {
        body = undefined;
      }
      if (xhr.status >= 200 && xhr.status < 300) resolve(body as { id: string; url: string; filename: string; size: number });
      else reject(errorOf(xhr.status, body, xhr.getResponseHeader('retry-after')));
    };
    xhr.onerror = () => reject(new ApiError(0, 'The upload was interrupted: the service could not be reached.'));
    xhr.onabort = () => reject(new ApiError(0, 'The upload was cancelled.'));
    xhr.send(form);
  });
  return { done, abort: () => xhr.abort() };
}

/** Files from this size go up resumably (tus): a dropped connection or a reloaded page continues where it stopped. */
export const RESUMABLE_FROM_BYTES = 20 * 1024 * 1024;

/**
 * A resumable upload (tus 1.0, /api/resumable-uploads) with tus-js-client: 5 MiB chunks, retried
 * with back-off; tus-js-client remembers the upload's URL by the file's fingerprint (localStorage),
 * so choosing the same file after a reload continues from the offset the service holds.
 */
export function resumableUpload(projectId: string, fileType: DocumentType, file: File, onProgress: (loaded: number, total: number) => void): Upload {
  let upload: import('tus-js-client').Upload | undefined;
  let aborted = false;
  const done = (async () => {
    const tus = await import('tus-js-client');
    const url = await new Promise<string>((resolve, reject) => {
      upload = new tus.Upload(file, {
        endpoint: '/api/resumable-uploads',
        chunkSize: 5 * 1024 * 1024,
        retryDelays: [0, 1000, 3000, 5000, 10000, 20000, 30000, 60000],
        // tus-js-client gives up at once while the browser says it is offline; a phone on a bad
        // link is offline for seconds at a time, so keep retrying (a refusal, 4xx, still ends it).
        onShouldRetry: (err) => {
          const status = (err as { originalResponse?: { getStatus(): number } | null }).originalResponse?.getStatus() ?? 0;
          return status < 400 || status >= 500 || status === 409 || status === 423;
        },
        metadata: { projectId, fileType, filename: file.name, filetype: file.type || 'application/octet-stream' },
        removeFingerprintOnSuccess: true,
        onProgress: (sent, total) => onProgress(sent, total),
        onSuccess: () => resolve(upload!.url!),
        onError: (err) => {
          const res = (err as { originalResponse?: { getStatus(): number; getBody(): string } | null }).originalResponse;
          if (!res) return reject(new ApiError(0, 'The upload was interrupted: the service could not be reached. Choose the same file again to continue.'));
          let body: unknown;
          try {
            body = JSON.parse(res.getBody());
          } catch {
            body = undefined;
          }
          reject(errorOf(res.getStatus(), body, null));
        },
      });
      if (aborted) return reject(new ApiError(0, 'The upload was cancelled.'));
      void upload.findPreviousUploads().then((previous) => {
        if (previous[0]) upload!.resumeFromPreviousUpload(previous[0]);
        upload!.start();
      });
    });
    return request<{ id: string; url: string; filename: string; size: number }>('GET', `${new URL(url, location.href).pathname}/result`);
  })();
  return {
    done,
    abort: () => {
      aborted = true;
      void upload?.abort();
    },
  };
}

/** Files up to this size are checksummed in the browser before sending (Web Crypto digests one buffer). */
export const CHECKSUM_UP_TO_BYTES = 64 * 1024 * 1024;

/** SHA-256 of a file as lower-case hex, read in 4 MiB slices; null past CHECKSUM_UP_TO_BYTES or without Web Crypto (plain http off localhost). */
export async function sha256OfFile(file: File): Promise<string | null> {
  if (file.size > CHECKSUM_UP_TO_BYTES || !globalThis.crypto?.subtle) return null;
  const bytes = new Uint8Array(file.size);
  for (let offset = 0; offset < file.size; offset += 4 * 1024 * 1024) {
    bytes.set(new Uint8Array(await file.slice(offset, offset + 4 * 1024 * 1024).arrayBuffer()), offset);
  }
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
}
