/**
 * The soak's steady load: uploads (the specification's POST /api/upload), edits of a project's
 * details, comments, payments and proofs, each from its own worker to an instance that is up,
 * chosen at random per request. A request the kill cuts off is not acknowledged: only what was
 * answered counts. Every upload answered 201 is kept with the SHA-256 of the bytes sent.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Cluster, Instance } from './cluster.js';
import { sleep } from './cluster.js';

/** Every request's bound: an instance that is killed resets its connections at once; one that hangs is a failure of its own. */
const REQUEST_TIMEOUT_MS = 30_000;

export interface Answer {
  status: number;
  text: string;
}

/** One request to an instance with a session cookie; undefined when no answer came (connection refused or cut: the kill). */
export async function call(
  instance: Instance,
  method: string,
  path: string,
  cookie: string | undefined,
  body?: { json: unknown } | { form: FormData },
): Promise<Answer | undefined> {
  const headers: Record<string, string> = {};
  if (cookie) headers.cookie = cookie;
  let payload: BodyInit | undefined;
  if (body && 'json' in body) {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(body.json);
  } else if (body) payload = body.form;
  try {
    const res = await fetch(`${instance.url}${path}`, { method, headers, body: payload, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    return { status: res.status, text: await res.text() };
  } catch {
    return undefined;
  }
}

/** A sign-in's session cookie and user id. */
export async function signIn(instance: Instance, email: string, password: string): Promise<{ cookie: string; userId: string }> {
  const res = await fetch(`${instance.url}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password }),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
  });
  const session = /(?:^|,\s*)session=([^;]+)/.exec(res.headers.get('set-cookie') ?? '');
  const text = await res.text();
  if (res.status !== 200 || !session) throw new Error(`sign-in of ${email}: ${res.status} ${text}`);
  return { cookie: `session=${session[1]}`, userId: (JSON.parse(text) as { user: { id: string } }).user.id };
}

/** An upload answered 201: what the end checks find again. */
export interface Acknowledged {
  fileId: string;
  projectId: string;
  filename: string;
  size: number;
  sha256: string;
}

export interface OpStats {
  sent: number;
  /** Answered with the expected status. */
  ok: number;
  /** No answer (the kill cut the connection, or it was refused). */
  unanswered: number;
  /** Any other status, by status. */
  other: Record<number, number>;
}

export interface LoadPeople {
  admin: string;
  /** The POCs' cookies; project i belongs to POC i % pocs.length. */
  pocs: string[];
  projects: string[];
}

export class Load {
  readonly ops: Record<string, OpStats> = {};
  readonly uploads: Acknowledged[] = [];
  #n = 0;

  constructor(
    private readonly cluster: Cluster,
    private readonly people: LoadPeople,
  ) {}

  /** Runs the workers until `signal` aborts; resolves once each has finished its request in hand. */
  run(signal: AbortSignal): Promise<void> {
    const workers: [string, number, () => Promise<void>][] = [
      ['upload', 3, () => this.#upload()],
      ['edit', 1, () => this.#edit()],
      ['comment', 1, () => this.#comment()],
      ['payment', 1, () => this.#payment()],
      ['proof', 1, () => this.#proof()],
    ];
    const loops: Promise<void>[] = [];
    for (const [, count, op] of workers) {
      for (let i = 0; i < count; i++) {
        loops.push(
          (async () => {
            while (!signal.aborted) {
              await op();
              // A steady pace, not a flood: a loaded 2-core machine runs both instances, PostgreSQL, Redis and s3rver.
              await sleep(50 + Math.random() * 250, signal);
            }
          })(),
        );
      }
    }
    return Promise.all(loops).then(() => undefined);
  }

  #stats(op: string): OpStats {
    return (this.ops[op] ??= { sent: 0, ok: 0, unanswered: 0, other: {} });
  }

  /** One request to an instance that is up; waits (bounded by the caller's loop) while none is. */
  async #send(op: string, expected: number, method: string, path: string, cookie: string, body?: { json: unknown } | { form: FormData }): Promise<Answer | undefined> {
    const instance = this.cluster.pick();
    if (!instance) {
      await sleep(200);
      return undefined;
    }
    const stats = this.#stats(op);
    stats.sent++;
    const res = await call(instance, method, path, cookie, body);
    if (!res) stats.unanswered++;
    else if (res.status === expected) stats.ok++;
    else stats.other[res.status] = (stats.other[res.status] ?? 0) + 1;
    return res;
  }

  #project(): { id: string; poc: string } {
    const i = Math.floor(Math.random() * this.people.projects.length);
    return { id: this.people.projects[i]!, poc: this.people.pocs[i % this.people.pocs.length]! };
  }

  async #upload(): Promise<void> {
    const n = ++this.#n;
    const project = this.#project();
    // A PDF's first bytes, then random ones: never the same file twice (an identical one within 24 h is answered without storing).
    const bytes = Buffer.concat([Buffer.from(`%PDF-1.4\n% soak upload ${n}\n`), randomBytes(1024 + Math.floor(Math.random() * 31 * 1024))]);
    const filename = `soak-${n}-${randomBytes(4).toString('hex')}.pdf`;
    const form = new FormData();
    form.append('projectId', project.id);
    form.append('fileType', 'PO');
    form.append('file', new Blob([new Uint8Array(bytes)], { type: 'application/pdf' }), filename);
    const res = await this.#send('upload', 201, 'POST', '/api/upload', this.people.admin, { form });
    if (res?.status !== 201) return;
    const body = JSON.parse(res.text) as { id: string; size: number };
    this.uploads.push({ fileId: body.id, projectId: project.id, filename, size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') });
  }

  async #edit(): Promise<void> {
    const project = this.#project();
    await this.#send('edit', 200, 'PATCH', `/api/projects/${project.id}/details`, this.people.admin, { json: { reference: `SOAK-${++this.#n}` } });
  }

  async #comment(): Promise<void> {
    const project = this.#project();
    // The owner and the admin in turn: each one's comment emails the other.
    const byPoc = Math.random() < 0.5;
    await this.#send('comment', 201, 'POST', `/api/projects/${project.id}/comments`, byPoc ? project.poc : this.people.admin, { json: { body: `Soak comment ${++this.#n}` } });
  }

  async #payment(): Promise<void> {
    const project = this.#project();
    // Yesterday in UTC: never after today in any shop time zone.
    const receivedOn = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    await this.#send('payment', 201, 'POST', `/api/projects/${project.id}/payments`, this.people.admin, { json: { amount: 100 + Math.floor(Math.random() * 1000), receivedOn, method: 'NEFT' } });
  }

  async #proof(): Promise<void> {
    const project = this.#project();
    const n = ++this.#n;
    const form = new FormData();
    form.append('note', `Soak proof ${n}`);
    form.append('file', new Blob([new Uint8Array(Buffer.concat([Buffer.from(`%PDF-1.4\n% soak proof ${n}\n`), randomBytes(2048)]))], { type: 'application/pdf' }), `proof-${n}.pdf`);
    await this.#send('proof', 201, 'POST', `/api/projects/${project.id}/proofs`, this.people.admin, { form });
  }
}
