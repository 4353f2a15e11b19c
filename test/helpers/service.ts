import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { loadConfig, type Config } from '../../src/config.js';
import type { Deps } from '../../src/deps.js';
import { nowIso } from '../../src/deps.js';
import type { ApprovalStatus, PiStatus, Project, ProjectStatus, Role, User } from '../../src/domain/model.js';
import { newId } from '../../src/ids.js';
import type { Log } from '../../src/logger.js';
import { hashPassword } from '../../src/passwords.js';
import { type RunningService, startService } from '../../src/service.js';

/**
 * The one way tests start the service: a real HTTP server on a free port of 127.0.0.1, on a
 * temporary data dir, with a fresh database. TEST_DB=postgres (set by scripts/test.mjs) runs it
 * on its own schema of TEST_DATABASE_URL; otherwise SQLite in the data dir.
 */
export const testDialect = process.env.TEST_DB === 'postgres' ? 'postgres' : 'sqlite';

export interface TestServiceOptions {
  /** Environment variables, as the service would read them (MAX_UPLOAD_BYTES, ADMIN_EMAIL, …). */
  env?: Record<string, string>;
  /** PostgreSQL to run on, in a fresh schema dropped by cleanup; default TEST_DATABASE_URL under TEST_DB=postgres, else SQLite. */
  postgresUrl?: string;
  /** Another test service's database (`config.database`) to share instead of a fresh one, as a second instance would; its owner's cleanup drops it. */
  sharedDatabase?: Config['database'];
  /** startTestService: the service's logger (default: from LOG_LEVEL, silent). */
  logger?: Log;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** Builds a test configuration (also used by tests that start the service as a child process). */
export async function testConfig(options: TestServiceOptions = {}): Promise<{ config: Config; env: Record<string, string>; cleanup: () => Promise<void> }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'print-orders-test-'));
  const port = await freePort();
  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    LOG_LEVEL: 'silent',
    ...options.env,
  };
  let schema: string | undefined;
  const shared = options.sharedDatabase;
  const postgresUrl = shared ? undefined : (options.postgresUrl ?? (testDialect === 'postgres' ? process.env.TEST_DATABASE_URL : undefined));
  if (testDialect === 'postgres' && !postgresUrl && !shared) throw new Error('TEST_DB=postgres needs TEST_DATABASE_URL');
  if (shared?.dialect === 'postgres') {
    env.DATABASE_URL = shared.url;
    if (shared.schema) env.DATABASE_SCHEMA = shared.schema;
  } else if (shared) {
    env.DATABASE_URL = `file:${shared.file}`;
  } else if (postgresUrl) {
    schema = `test_${newId().replace(/-/g, '')}`;
    env.DATABASE_URL = postgresUrl;
    env.DATABASE_SCHEMA = schema;
  }
  const config = loadConfig(env);
  return {
    config,
    env,
    cleanup: async () => {
      fs.rmSync(dataDir, { recursive: true, force: true });
      if (schema) await dropSchema(postgresUrl!, schema);
    },
  };
}

async function dropSchema(url: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

export interface TestService {
  url: string;
  deps: Deps;
  running: RunningService;
  dataDir: string;
  /** A client with no session. */
  anonymous: Client;
  close(): Promise<void>;
  /** Creates a user straight in the database (bcrypt cost 10, as the service does). */
  createUser(opts?: { role?: Role; email?: string; password?: string; name?: string; active?: boolean }): Promise<{ user: User; email: string; password: string }>;
  /** Signs in over HTTP and returns a client that carries the session cookie. */
  login(email: string, password: string): Promise<Client>;
  /** createUser + login. */
  signIn(role: Role, opts?: { email?: string; name?: string }): Promise<{ user: User; client: Client; password: string }>;
  /** Creates a project straight in the database, in any state (with a due date and reference when given). */
  createProject(
    pocId: string,
    opts?: { name?: string; status?: ProjectStatus; piStatus?: PiStatus; approval?: ApprovalStatus | null; dueDate?: string | null; reference?: string | null; customerId?: string | null },
  ): Promise<Project>;
}

let counter = 0;

export async function startTestService(options: TestServiceOptions = {}): Promise<TestService> {
  const { config, cleanup } = await testConfig(options);
  const running = await startService(config, { log: options.logger });
  const url = `http://127.0.0.1:${config.port}`;
  const deps = running.deps;

  const service: TestService = {
    url,
    deps,
    running,
    dataDir: config.dataDir,
    anonymous: new Client(url),
    async close() {
      await running.close();
      await cleanup();
    },
    async createUser(opts = {}) {
      const email = opts.email ?? `user${++counter}-${newId().slice(-8)}@example.com`;
      const password = opts.password ?? `pw-${newId().slice(-12)}`;
      const user = await deps.store.users.insert(
        newId(),
        { name: opts.name ?? `User ${counter}`, email, passwordHash: await hashPassword(password), role: opts.role ?? 'POC', phone: null, location: null, branch: null },
        nowIso(),
      );
      if (opts.active === false) await deps.store.users.update(user.id, { active: false }, nowIso());
      return { user: (await deps.store.users.findById(user.id))!, email, password };
    },
    async login(email, password) {
      const client = new Client(url);
      const res = await client.post('/api/auth/login', { email, password });
      assert.equal(res.status, 200, `login failed: ${res.text}`);
      return client;
    },
    async signIn(role, opts = {}) {
      const { user, email, password } = await service.createUser({ role, ...opts });
      return { user, client: await service.login(email, password), password };
    },
    async createProject(pocId, opts = {}) {
      const now = nowIso();
      const approval = opts.approval ?? (opts.status && opts.status !== 'REQUESTED' && opts.status !== 'CANCELLED' ? 'APPROVED' : null);
      const project: Project = {
        id: newId(),
        name: opts.name ?? `Project ${++counter}`,
        description: null,
        pocId,
        status: opts.status ?? 'REQUESTED',
        piStatus: opts.piStatus ?? 'PENDING',
        approval: approval ? { status: approval, note: null, decidedById: null, decidedAt: now } : null,
        customerId: opts.customerId ?? null,
        createdAt: now,
        updatedAt: now,
        number: 0,
        rush: false,
        hold: null,
        repeatOfId: null,
      };
      project.number = await deps.store.projects.insert({ ...project, dueDate: opts.dueDate ?? null, reference: opts.reference ?? null });
      return project;
    },
  };
  return service;
}

export interface Response {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed JSON body (undefined when the body is not JSON). */
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** Every response body the suite receives passes through here: no password, hash or token may ever leave the server. */
export function assertNoSecrets(text: string): void {
  assert.doesNotMatch(text, /"password(Hash|_hash)?"\s*:/i, 'a response carried a password field');
  assert.doesNotMatch(text, /\$2[aby]\$\d\d\$/, 'a response carried a bcrypt hash');
  // The one token that leaves: a new API token, in POST /api/account/tokens's answer (pos_…).
  assert.doesNotMatch(text, /"token"\s*:\s*(?!"pos_[0-9A-Za-z]{32,}")/, 'a response carried a token');
  assert.doesNotMatch(text, /"(tokenHash|token_hash|storageKey|storage_key)"\s*:/, 'a response carried a token hash or storage key');
}

/** A response body as the tests read it: checked for secrets, then parsed when it is JSON (else undefined). */
export function parseBody(text: string): unknown {
  assertNoSecrets(text);
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

/** A tiny HTTP client over fetch that keeps the session cookie. */
export class Client {
  cookie: string | undefined;

  constructor(readonly baseUrl: string) {}

  async request(method: string, urlPath: string, opts: { json?: unknown; body?: BodyInit; headers?: Record<string, string> } = {}): Promise<Response> {
    const headers: Record<string, string> = { ...opts.headers };
    if (this.cookie) headers.cookie = this.cookie;
    let body = opts.body;
    if (opts.json !== undefined) {
      headers['content-type'] ??= 'application/json';
      body = JSON.stringify(opts.json);
    }
    const res = await fetch(new URL(urlPath, this.baseUrl), { method, headers, body });
    const setCookie = res.headers.get('set-cookie');
    const session = setCookie && /(?:^|,\s*)session=([^;]*)/.exec(setCookie);
    if (session) this.cookie = session[1] ? `session=${session[1]}` : undefined;
    const text = await res.text();
    return { status: res.status, headers: res.headers, text, body: parseBody(text) };
  }

  get(p: string, headers?: Record<string, string>) {
    return this.request('GET', p, { headers });
  }
  post(p: string, json?: unknown, headers?: Record<string, string>) {
    return this.request('POST', p, { json, headers });
  }
  patch(p: string, json?: unknown) {
    return this.request('PATCH', p, { json });
  }
  /** POST /api/upload with a FormData built in the given field order. */
  upload(fields: [string, string | { data: Buffer | string; filename?: string; type?: string }][]) {
    const form = new FormData();
    for (const [name, value] of fields) {
      if (typeof value === 'string') form.append(name, value);
      else form.append(name, new Blob([typeof value.data === 'string' ? value.data : new Uint8Array(value.data)], { type: value.type ?? 'application/octet-stream' }), value.filename ?? 'file.bin');
    }
    return this.request('POST', '/api/upload', { body: form });
  }
}

export interface SseEvent {
  id: string;
  event: string;
  data: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export interface EventStream {
  headers: Headers;
  /** The next `count` events (messages with an event name), in order; fails after timeoutMs. */
  next(count: number, timeoutMs?: number): Promise<SseEvent[]>;
  /** Reads until the server ends the stream; the events that came before the end. Fails if it stays open past timeoutMs. */
  end(timeoutMs?: number): Promise<SseEvent[]>;
  /** The last `id:` the stream carried (with or without an event), as EventSource would send it in Last-Event-ID. */
  readonly lastEventId: string | undefined;
  /** The first `id:` the stream carried: where it started (its position, a reset, or its first replayed event). */
  readonly firstId: string | undefined;
  /** Reads whatever arrives for `ms`, then the last id (events read meanwhile stay queued for next()). */
  idWithin(ms: number): Promise<string | undefined>;
  close(): void;
}

/** An open /api/realtime stream (with a query string such as `?channels=dashboard`), read message by message. */
export async function openEventStream(client: Client, query = '', headers: Record<string, string> = {}): Promise<EventStream> {
  const controller = new AbortController();
  const res = await fetch(new URL(`/api/realtime${query}`, client.baseUrl), {
    headers: { ...headers, ...(client.cookie ? { cookie: client.cookie } : {}) },
    signal: controller.signal,
  });
  assert.equal(res.status, 200);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let ended = false;
  let lastEventId: string | undefined;
  let firstId: string | undefined;
  // One read at a time: a read left waiting (idWithin's timer won) is the next caller's, never lost.
  let inflight: Promise<void> | undefined;
  const readMore = () =>
    (inflight ??= (async () => {
      try {
        const { value, done } = await reader.read();
        if (done) {
          ended = true;
          throw new Error('the stream ended');
        }
        buffer += decoder.decode(value, { stream: true });
      } finally {
        inflight = undefined;
      }
    })());
  /** Events parsed from the complete messages read so far, not yet handed out. */
  const queue: SseEvent[] = [];
  const parse = () => {
    let end;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const fields = Object.fromEntries(
        block
          .split('\n')
          .filter((l) => l && !l.startsWith(':'))
          .map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 1).trim()]),
      );
      if (fields.id !== undefined) {
        lastEventId = fields.id;
        firstId ??= fields.id;
      }
      if (fields.event) queue.push({ id: fields.id ?? '', event: fields.event, data: JSON.parse(fields.data ?? 'null') });
    }
  };
  const read = async (count: number, timeoutMs: number, untilEnd: boolean) => {
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    try {
      for (;;) {
        parse();
        if (!untilEnd && queue.length >= count) return queue.splice(0, count);
        try {
          await readMore();
        } catch (err) {
          if (untilEnd && ended) return queue.splice(0);
          throw err;
        }
      }
    } catch (err) {
      if (!controller.signal.aborted) throw err;
      throw new Error(untilEnd ? `still open after ${timeoutMs} ms (${queue.length} events read)` : `timed out after ${queue.length} of ${count} events`);
    } finally {
      clearTimeout(timer);
    }
  };
  // The opening comment: from here on the subscription exists.
  while (!buffer.includes('\n\n')) await readMore();
  buffer = buffer.slice(buffer.indexOf('\n\n') + 2);
  return {
    headers: res.headers,
    next: (count, timeoutMs = EVENT_WAIT_MS) => read(count, timeoutMs, false),
    end: (timeoutMs = 5000) => read(0, timeoutMs, true),
    get lastEventId() {
      parse();
      return lastEventId;
    },
    get firstId() {
      parse();
      return firstId;
    },
    async idWithin(ms) {
      const deadline = Date.now() + ms;
      while (!ended && Date.now() < deadline) {
        let timer: NodeJS.Timeout | undefined;
        const waited = new Promise<void>((r) => (timer = setTimeout(r, deadline - Date.now())));
        try {
          await Promise.race([readMore(), waited]);
        } catch {
          break;
        } finally {
          clearTimeout(timer);
        }
      }
      parse();
      return lastEventId;
    },
    close: () => controller.abort(),
  };
}

/**
 * How long a test waits for events it expects: a bound only a failure reaches. 5 s was reached once by
 * a PATCH's two events on PostgreSQL with the machine's load average at 22 (CI run with both cores loaded).
 */
const EVENT_WAIT_MS = 15_000;

/** Opens /api/realtime, runs `during`, and returns the first `count` events it caused. */
export async function collectEvents(client: Client, count: number, during: () => Promise<unknown>, timeoutMs = EVENT_WAIT_MS): Promise<SseEvent[]> {
  const stream = await openEventStream(client);
  try {
    const action = during();
    const events = await stream.next(count, timeoutMs);
    await action;
    return events;
  } finally {
    stream.close();
  }
}
