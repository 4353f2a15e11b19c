/**
 * The soak's realtime clients: each holds GET /api/realtime open on an instance that is up, and
 * when the stream ends (its instance killed) or on its own every few seconds (a client that moves
 * between instances) opens it again elsewhere with `Last-Event-ID`, as EventSource does. Every
 * message with an id is kept, in the order received, across connections: the end checks open the
 * ids (they are sealed per viewer) and compare them with the event log.
 */
import http from 'node:http';
import type { Cluster } from './cluster.js';
import { sleep } from './cluster.js';

/** The longest a connection attempt may wait for its answer's headers. */
const CONNECT_TIMEOUT_MS = 15_000;

export interface Frame {
  id: string;
  /** The event's name; undefined for a message with only an id (a position). */
  event: string | undefined;
  connection: number;
}

export class SseClient {
  readonly frames: Frame[] = [];
  connections = 0;
  /** Attempts that got no stream (refused, cut before the headers, not 200). */
  failedAttempts = 0;
  /** Streams that ended or were cut while the soak ran (kills), beside those closed on purpose. */
  cut = 0;
  #request: http.ClientRequest | undefined;
  #running: Promise<void> | undefined;
  #settled = false;

  constructor(
    readonly name: string,
    readonly userId: string,
    private readonly cookie: string,
    private readonly cluster: Cluster,
  ) {}

  /** The last id received (with or without an event), as EventSource keeps it. */
  lastId: string | undefined;

  /**
   * From now on the next stream is held until stop() (the drain: reading to the end of the log).
   * Hopping on would keep requests coming in, and with them the webhook dispatcher at its share of the loop (webhooks/loop-share.ts).
   */
  settle(): void {
    this.#settled = true;
  }

  start(signal: AbortSignal): void {
    this.#running = (async () => {
      while (!signal.aborted) {
        // Each stream lives 3–15 s unless its instance dies first (or, settled, until stop()).
        await this.#connectOnce(signal, this.#settled ? 3_600_000 : 3000 + Math.random() * 12_000);
        await sleep(100 + Math.random() * 400, signal);
      }
    })();
  }

  /** Closes the stream; resolves once the loop has ended. */
  async stop(): Promise<void> {
    this.#request?.destroy();
    await this.#running;
  }

  #connectOnce(signal: AbortSignal, lifeMs: number): Promise<void> {
    const instance = this.cluster.pick();
    if (!instance) return sleep(200).then(() => undefined);
    const connection = ++this.connections;
    const headers: Record<string, string> = { cookie: this.cookie, accept: 'text/event-stream' };
    if (this.lastId) headers['last-event-id'] = this.lastId;
    return new Promise<void>((resolve) => {
      let onPurpose = false;
      let opened = false;
      const done = () => {
        clearTimeout(connectTimer);
        clearTimeout(lifeTimer);
        signal.removeEventListener('abort', close);
        resolve();
      };
      const close = () => {
        onPurpose = true;
        req.destroy();
      };
      const url = new URL('/api/realtime?channels=projects,dashboard', instance.url);
      const req = http.get(url, { headers, agent: false }, (res) => {
        clearTimeout(connectTimer);
        if (res.statusCode !== 200) {
          this.failedAttempts++;
          res.resume();
          res.on('end', done);
          res.on('error', done);
          return;
        }
        opened = true;
        res.setEncoding('utf8');
        let text = '';
        res.on('data', (chunk: string) => {
          text += chunk;
          let end: number;
          while ((end = text.indexOf('\n\n')) >= 0) {
            this.#message(text.slice(0, end), connection);
            text = text.slice(end + 2);
          }
        });
        let over = false;
        const ended = () => {
          if (over) return;
          over = true;
          if (!onPurpose && !signal.aborted) this.cut++;
          done();
        };
        res.on('end', ended);
        res.on('error', ended);
        res.on('close', ended);
      });
      this.#request = req;
      req.on('error', () => {
        if (!opened) this.failedAttempts++;
        done();
      });
      const connectTimer = setTimeout(close, CONNECT_TIMEOUT_MS);
      const lifeTimer = setTimeout(close, lifeMs);
      signal.addEventListener('abort', close, { once: true });
    });
  }

  #message(block: string, connection: number): void {
    let id: string | undefined;
    let event: string | undefined;
    for (const line of block.split('\n')) {
      if (line.startsWith('id:')) id = line.slice(3).trim();
      else if (line.startsWith('event:')) event = line.slice(6).trim();
    }
    if (id) this.lastId = id;
    if (id !== undefined || event) this.frames.push({ id: id ?? '', event, connection });
  }
}
