/**
 * The contract every realtime broker passes (RealtimeBroker, realtime/types.ts), each made by the
 * factory as the service makes it: memory, Redis at REDIS_URL (skipped with a notice when unset),
 * Pusher against its fake (which checks signatures and limits as Pusher does). Messages reach every
 * subscriber once and in order, session signals too; a throwing listener harms no one; a transport
 * that is away makes publish and check fail within a bound, with no unhandled 'error', and the
 * broker recovers when it is back; close leaves nothing that keeps the process alive. Redis and
 * Pusher are reached through a TCP proxy, so an outage is made without touching the server.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { rejectsWithin, resolvesWithin } from '../../test/helpers/bounded.js';
import { eventually } from '../../test/helpers/eventually.js';
import { type FakePusher, startFakePusher } from '../../test/helpers/fake-pusher.js';
import { startTcpProxy } from '../../test/helpers/tcp-proxy.js';
import { loadConfig } from '../config.js';
import { silentLog } from '../logger.js';
import { newId } from '../ids.js';
import { createRealtime } from './index.js';
import { CHANNELS, EVENTS, type RealtimeBroker, type RealtimeMessage, SESSIONS_CHANNEL } from './types.js';

const REDIS_URL = process.env.REDIS_URL;
/** Why a broker's suite cannot run here; printed, never silent. */
const unavailable: Partial<Record<string, string>> = {
  redis: REDIS_URL ? undefined : 'REDIS_URL not set (CI sets redis://127.0.0.1:6379)',
};
for (const [name, why] of Object.entries(unavailable)) if (why) console.log(`NOTICE: ${why}, so the ${name} realtime broker contract is skipped.`);

/** How long publish and check may take to fail when the transport drops every connection. */
const DOWN_BOUND_MS = 3000;
/** ... and when it accepts them and never answers: the drivers' own bounds (Redis 2 s, Pusher 5 s), with room for a busy machine. */
const SILENT_BOUND_MS = 7000;

interface Subject {
  broker: RealtimeBroker;
  /** The service's settings for this broker (REALTIME_DRIVER and its own), to make another in a process of its own. */
  env: Record<string, string>;
  /** Cuts the transport off ('down': connections dropped; 'silent': accepted, never answered); resolves with the way back, or undefined when it cannot go that way. */
  outage?(kind: 'down' | 'silent'): (() => Promise<void>) | undefined;
  close(): Promise<void>;
}

/** A broker made as the service makes it, from these settings (REALTIME_DRIVER …). */
const brokerFrom = (env: Record<string, string>) => createRealtime(loadConfig(env), silentLog);

const subjects: Record<string, () => Promise<Subject>> = {
  memory: async () => {
    const env = { REALTIME_DRIVER: 'memory' };
    const broker = await brokerFrom(env);
    return { broker, env, close: () => broker.close() };
  },
  redis: async () => {
    const target = new URL(REDIS_URL!);
    const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 6379) });
    const through = new URL(REDIS_URL!);
    through.hostname = '127.0.0.1';
    through.port = String(proxy.port);
    // A channel prefix of its own: test files running at the same time never hear each other.
    const env = { REALTIME_DRIVER: 'redis', REDIS_URL: REDIS_URL!, REDIS_CHANNEL_PREFIX: `contract-${newId()}` };
    const broker = await brokerFrom({ ...env, REDIS_URL: through.toString() });
    return {
      broker,
      env,
      outage: (kind) => proxy.outage(kind),
      close: async () => {
        await broker.close();
        await proxy.close();
      },
    };
  },
  pusher: async () => {
    const pusher: FakePusher = await startFakePusher();
    const proxy = await startTcpProxy({ host: '127.0.0.1', port: pusher.port });
    const broker = await brokerFrom(pusher.env({ PUSHER_PORT: String(proxy.port) }));
    return {
      broker,
      env: pusher.env(),
      outage: (kind) => proxy.outage(kind),
      close: async () => {
        await broker.close();
        await proxy.close();
        assert.deepEqual(pusher.refused, [], 'Pusher accepted every request the broker made');
        await pusher.close();
      },
    };
  },
};

/** Notifications on both channels and both session signals, each told apart by its payload. */
function messages(count: number, tag: string): RealtimeMessage[] {
  return Array.from({ length: count }, (_, i): RealtimeMessage => {
    switch (i % 4) {
      case 0:
        return { channel: CHANNELS.PROJECTS, event: EVENTS.PROJECT_UPDATED, payload: { id: `${tag}-${i}` }, ownerId: 'u1' };
      case 1:
        return { channel: CHANNELS.DASHBOARD, event: EVENTS.STATS_UPDATED, payload: { n: `${tag}-${i}` }, ownerId: 'u1' };
      case 2:
        return { channel: SESSIONS_CHANNEL, event: 'session-ended', payload: { reason: 'signed-out', tokenHash: `${tag}-${i}` } };
      default:
        return { channel: SESSIONS_CHANNEL, event: 'user-changed', payload: { userId: `${tag}-${i}`, role: 'POC', active: true } };
    }
  });
}

/** What a subscriber is promised of a message: its channel, event and payload. */
const seen = (m: RealtimeMessage) => ({ channel: m.channel, event: m.event, payload: m.payload });

/** A listener that keeps what it hears, of one test's messages only (a fan-out broker may carry others). */
function recorder(tag: string) {
  const heard: RealtimeMessage[] = [];
  const listener = (m: RealtimeMessage) => {
    if (JSON.stringify(m.payload).includes(`"${tag}-`)) heard.push(m);
  };
  return { heard, listener };
}

async function publishAll(broker: RealtimeBroker, all: RealtimeMessage[]): Promise<void> {
  for (const m of all) await broker.publish(m);
}

/** Lets a transport deliver what it still would (a duplicate, a late one) before counting. */
const settle = () => new Promise((r) => setTimeout(r, 300));

for (const [name, make] of Object.entries(subjects)) {
  describe(`realtime broker contract: ${name}`, { skip: unavailable[name] ?? false }, () => {
    let subject: Subject;
    before(async () => {
      subject = await make();
    });
    after(() => subject?.close());

    test('the factory makes the configured driver, and check() resolves while the transport answers', async () => {
      assert.equal(subject.broker.driver, name);
      await resolvesWithin(5000, subject.broker.check(), 'check()');
    });

    test('every subscriber hears every message once, in the order published: notifications and session signals', async () => {
      const tag = newId();
      const sent = messages(12, tag);
      const [a, b] = [recorder(tag), recorder(tag)];
      const unsubscribe = [subject.broker.subscribe(a.listener), subject.broker.subscribe(b.listener)];
      try {
        await publishAll(subject.broker, sent);
        await eventually('every message delivered', () => a.heard.length >= sent.length && b.heard.length >= sent.length, 5000);
        await settle();
        assert.deepEqual(a.heard.map(seen), sent.map(seen));
        assert.deepEqual(b.heard.map(seen), sent.map(seen));
      } finally {
        for (const u of unsubscribe) u();
      }
    });

    test('a listener that throws stops neither the other listeners nor the broker', async () => {
      const tag = newId();
      const sent = messages(4, tag);
      const calls: string[] = [];
      const fine = recorder(tag);
      const unsubscribe = [
        subject.broker.subscribe(() => {
          calls.push('thrower');
          throw new Error('a listener failed');
        }),
        subject.broker.subscribe(fine.listener),
      ];
      try {
        await publishAll(subject.broker, sent);
        await eventually('delivered past the failing listener', () => fine.heard.length >= sent.length, 5000);
        assert.deepEqual(fine.heard.map(seen), sent.map(seen));
        assert.ok(calls.length >= sent.length, 'the failing listener was called each time');
        const later = messages(1, tag).map((m) => ({ ...m, payload: { id: `${tag}-later` } }) as RealtimeMessage);
        await publishAll(subject.broker, later);
        await eventually('the broker still delivers', () => fine.heard.length === sent.length + 1, 5000);
      } finally {
        for (const u of unsubscribe) u();
      }
    });

    test('unsubscribing stops that listener only', async () => {
      const tag = newId();
      const [gone, stays] = [recorder(tag), recorder(tag)];
      const unsubscribe = subject.broker.subscribe(gone.listener);
      const keep = subject.broker.subscribe(stays.listener);
      try {
        unsubscribe();
        await publishAll(subject.broker, messages(2, tag));
        await eventually('delivered', () => stays.heard.length === 2, 5000);
        await settle();
        assert.deepEqual(gone.heard, []);
      } finally {
        keep();
      }
    });

    for (const kind of ['down', 'silent'] as const) {
      const bound = kind === 'down' ? DOWN_BOUND_MS : SILENT_BOUND_MS;
      test(`a transport that ${kind === 'down' ? 'drops every connection' : 'accepts connections and never answers'}: publish and check fail within ${bound / 1000} s, nothing is thrown unhandled, and once it is back messages flow again`, async (t) => {
        const restore = subject.outage?.(kind);
        if (!restore) return t.skip(`${name} cannot be made to go ${kind}`);
        const tag = newId();
        const heard = recorder(tag);
        const unsubscribe = subject.broker.subscribe(heard.listener);
        try {
          const [first] = messages(1, tag);
          const err = await rejectsWithin(bound, subject.broker.publish(first!), 'publish()');
          assert.match(err.message, new RegExp(`${EVENTS.PROJECT_UPDATED} was not (published|sent)`));
          await rejectsWithin(bound, subject.broker.check(), 'check()');
          // Reconnection attempts meet the outage meanwhile: their 'error' events must be handled (an unhandled one ends this process).
          await new Promise((r) => setTimeout(r, 1000));
        } finally {
          await restore();
        }
        const back = { channel: CHANNELS.PROJECTS, event: EVENTS.PROJECT_UPDATED, payload: { id: `${tag}-back` } } as RealtimeMessage;
        await eventually(
          'publishing works again',
          () =>
            subject.broker.publish(back).then(
              () => true,
              () => false,
            ),
          30_000,
        );
        await eventually('delivered again', () => heard.heard.some((m) => (m.payload as { id?: string }).id === `${tag}-back`), 5000);
        await eventually('check() passes again', () => subject.broker.check().then(() => true, () => false), 30_000);
        unsubscribe();
      });
    }

    test('close() leaves nothing running: a process whose broker delivered and closed ends by itself', async () => {
      const child = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, '../../test/helpers/broker-process.ts')], {
        cwd: path.resolve(import.meta.dirname, '../..'),
        env: { PATH: process.env.PATH, ...subject.env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d));
      child.stderr.on('data', (d: Buffer) => (out += d));
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      try {
        const code = await resolvesWithin(20_000, exited, 'the process').catch((err: Error) => {
          throw new Error(`${err.message}; it printed: ${out.trim()}`);
        });
        assert.equal(code, 0, out);
        assert.match(out, /"closed":true/);
      } finally {
        child.kill('SIGKILL');
      }
    });

    test('after close(): subscribe() registers nothing, publish() rejects at once, and closing again is fine', async () => {
      const tag = newId();
      await resolvesWithin(5000, subject.broker.close(), 'close()');
      const heard = recorder(tag);
      const unsubscribe = subject.broker.subscribe(heard.listener);
      assert.equal(typeof unsubscribe, 'function');
      const err = await rejectsWithin(1000, subject.broker.publish(messages(1, tag)[0]!), 'publish() after close()');
      assert.match(err.message, /closed/);
      await settle();
      assert.deepEqual(heard.heard, []);
      unsubscribe();
      await resolvesWithin(5000, subject.broker.close(), 'close() again');
    });
  });
}
