/**
 * GET /api/realtime as an outsider would try it: a stream hears only about projects its user may
 * see at that moment (interface.md, Realtime: Scope), and it ends with its session (End).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { hashToken } from '../src/actions/auth.js';
import type { User } from '../src/domain/model.js';
import { changeEvents, withoutIds } from './helpers/projects.js';
import { type Client, type EventStream, type TestService, openEventStream, startTestService } from './helpers/service.js';

interface Person {
  user: User;
  client: Client;
  password: string;
}

let svc: TestService;
let admin: Person;

before(async () => {
  svc = await startTestService();
  admin = await svc.signIn('ADMIN');
});
after(() => svc.close());

/** A change to a project by an admin: two events to whoever may see it. */
async function touch(projectId: string, name: string) {
  const res = await admin.client.patch(`/api/projects/${projectId}`, { name });
  assert.equal(res.status, 200, res.text);
}

/** Makes a change nobody under test may see, then one the stream may: if the first had come through, it would arrive first. */
async function assertHearsOnly(stream: EventStream, hidden: () => Promise<unknown>, visibleProjectId: string) {
  await hidden();
  await touch(visibleProjectId, `visible ${Date.now()}`);
  assert.deepEqual(withoutIds(await stream.next(2)), changeEvents(visibleProjectId));
}

describe('scope: a stream hears only about projects its user may see', () => {
  test('a CLIENT and another POC hear nothing of a POC’s project; the POC and every admin hear it all', async () => {
    const [owner, otherPoc, client, secondAdmin] = await Promise.all([svc.signIn('POC'), svc.signIn('POC'), svc.signIn('CLIENT'), svc.signIn('ADMIN')]);
    const theirs = await svc.createProject(owner.user.id);
    const otherOwn = await svc.createProject(otherPoc.user.id);
    const clientOwn = await svc.createProject(client.user.id);
    const streams = await Promise.all([owner, otherPoc, client, admin, secondAdmin].map((p) => openEventStream(p.client)));
    const [ownerStream, otherStream, clientStream, adminStream, secondAdminStream] = streams;
    try {
      await touch(theirs.id, 'Secret order');
      for (const s of [ownerStream!, adminStream!, secondAdminStream!]) assert.deepEqual(withoutIds(await s.next(2)), changeEvents(theirs.id));
      // The outsiders' next events are about their own projects: the POC's change never reached them.
      await touch(otherOwn.id, 'Other’s own');
      await touch(clientOwn.id, 'Client’s own');
      assert.deepEqual(withoutIds(await otherStream!.next(2)), changeEvents(otherOwn.id));
      assert.deepEqual(withoutIds(await clientStream!.next(2)), changeEvents(clientOwn.id));
      // An upload by the owner: the same rule.
      const ready = await svc.createProject(owner.user.id, { status: 'APPROVED', piStatus: 'VERIFIED' });
      const up = await owner.client.upload([['projectId', ready.id], ['fileType', 'PO'], ['file', { data: Buffer.from('%PDF-1.4\n'), filename: 'po.pdf', type: 'application/pdf' }]]);
      assert.equal(up.status, 201, up.text);
      assert.deepEqual(withoutIds(await ownerStream!.next(2)), changeEvents(ready.id));
      await assertHearsOnly(clientStream!, async () => {}, clientOwn.id);
    } finally {
      for (const s of streams) s.close();
    }
  });

  test('a reassigned project’s events move from the old POC to the new one at once', async () => {
    const [oldPoc, newPoc] = await Promise.all([svc.signIn('POC'), svc.signIn('POC')]);
    const project = await svc.createProject(oldPoc.user.id);
    const oldOwn = await svc.createProject(oldPoc.user.id);
    const [oldStream, newStream] = await Promise.all([openEventStream(oldPoc.client), openEventStream(newPoc.client)]);
    try {
      await touch(project.id, 'Before the move');
      assert.deepEqual(withoutIds(await oldStream.next(2)), changeEvents(project.id));
      const moved = await admin.client.patch(`/api/projects/${project.id}`, { pocId: newPoc.user.id });
      assert.equal(moved.status, 200, moved.text);
      // The move itself and what follows reach the new POC only.
      assert.deepEqual(withoutIds(await newStream.next(2)), changeEvents(project.id));
      await assertHearsOnly(oldStream, () => touch(project.id, 'After the move'), oldOwn.id);
      assert.deepEqual(withoutIds(await newStream.next(2)), changeEvents(project.id));
    } finally {
      oldStream.close();
      newStream.close();
    }
  });

  test('a demoted admin’s open stream stops hearing others’ projects at once; a promoted POC’s starts', async () => {
    const [demoted, promoted, poc] = await Promise.all([svc.signIn('ADMIN'), svc.signIn('POC'), svc.signIn('POC')]);
    const others = await svc.createProject(poc.user.id);
    const demotedOwn = await svc.createProject(demoted.user.id);
    const [demotedStream, promotedStream] = await Promise.all([openEventStream(demoted.client), openEventStream(promoted.client)]);
    try {
      await touch(others.id, 'Seen by admins');
      assert.deepEqual(withoutIds(await demotedStream.next(2)), changeEvents(others.id));
      for (const [person, role] of [[demoted, 'POC'], [promoted, 'ADMIN']] as const) {
        const res = await admin.client.patch(`/api/team/${person.user.id}`, { role });
        assert.equal(res.status, 200, res.text);
      }
      await assertHearsOnly(demotedStream, () => touch(others.id, 'Not for the demoted'), demotedOwn.id);
      // The promoted POC heard the last two changes, although neither project is theirs.
      assert.deepEqual(withoutIds(await promotedStream.next(4)), [...changeEvents(others.id), ...changeEvents(demotedOwn.id)]);
    } finally {
      demotedStream.close();
      promotedStream.close();
    }
  });

  test('the stream sends no project id, owner or name beyond the payload {id}', async () => {
    const poc = await svc.signIn('POC');
    const p = await svc.createProject(poc.user.id);
    const stream = await openEventStream(poc.client);
    try {
      await touch(p.id, 'Payload check');
      const events = await stream.next(2);
      assert.deepEqual(events.map((e) => e.data), [{ channel: 'projects', payload: { id: p.id } }, { channel: 'dashboard', payload: {} }]);
    } finally {
      stream.close();
    }
  });
});

describe('positions say nothing of other people’s activity', () => {
  /** Where a fresh stream stands once settled (its last `id:` after half a second), optionally resuming from an id. */
  async function positionOf(client: Client, headers: Record<string, string> = {}): Promise<string> {
    const stream = await openEventStream(client, '', headers);
    try {
      return (await stream.idWithin(500))!;
    } finally {
      stream.close();
    }
  }

  test('a POC’s stream starts at their own latest change, however much happens elsewhere; an admin’s at the log’s', async () => {
    const [poc, other] = await Promise.all([svc.signIn('POC'), svc.signIn('POC')]);
    const own = await svc.createProject(poc.user.id);
    const elsewhere = await svc.createProject(other.user.id);
    await touch(own.id, 'own change');
    const before = await positionOf(poc.client);
    const adminBefore = await positionOf(admin.client);
    for (let i = 0; i < 3; i++) await touch(elsewhere.id, `elsewhere ${i}`);
    assert.equal(await positionOf(poc.client), before, 'a fresh stream');
    assert.equal(await positionOf(poc.client, { 'last-event-id': 'not-ours' }), before, 'a reset');
    // An admin's moved past the six events, which a stream resuming from the old one replays.
    const adminAfter = await positionOf(admin.client);
    assert.notEqual(adminAfter, adminBefore, 'an admin sees every change');
    const resumed = await openEventStream(admin.client, '', { 'last-event-id': adminBefore });
    try {
      assert.deepEqual(withoutIds(await resumed.next(6)), [...changeEvents(elsewhere.id), ...changeEvents(elsewhere.id), ...changeEvents(elsewhere.id)]);
      assert.equal(await resumed.idWithin(300), adminAfter);
    } finally {
      resumed.close();
    }
    await touch(own.id, 'own change again');
    assert.notEqual(await positionOf(poc.client), before, 'their own change moves it');
  });

  test('ids carry no position: a viewer’s ids differ from anyone else’s for the same events, and are no numbers', async () => {
    const poc = await svc.signIn('POC');
    const own = await svc.createProject(poc.user.id);
    const [pocStream, adminStream] = await Promise.all([openEventStream(poc.client), openEventStream(admin.client)]);
    try {
      await touch(own.id, 'seen by both');
      const [mine, admins] = await Promise.all([pocStream.next(2), adminStream.next(2)]);
      assert.deepEqual(withoutIds(mine), withoutIds(admins));
      for (const [i, e] of mine.entries()) {
        assert.notEqual(e.id, admins[i]!.id, 'another viewer’s id for the same event');
        assert.doesNotMatch(e.id, /^\d+$/, 'not a position');
      }
    } finally {
      pocStream.close();
      adminStream.close();
    }
  });

  test('an id not issued to the viewer gets reset, the same before and after others’ changes (polling tells nothing)', async () => {
    const [poc, other] = await Promise.all([svc.signIn('POC'), svc.signIn('POC')]);
    const own = await svc.createProject(poc.user.id);
    const elsewhere = await svc.createProject(other.user.id);
    const adminStream = await openEventStream(admin.client);
    const pocStream = await openEventStream(poc.client);
    let last: string;
    let adminsLater: string;
    try {
      await touch(own.id, 'own change');
      last = (await pocStream.next(2))[1]!.id;
      await adminStream.next(2);
      await touch(elsewhere.id, 'a later change the admin sees');
      adminsLater = (await adminStream.next(2))[1]!.id;
    } finally {
      pocStream.close();
      adminStream.close();
    }
    // What a POC might try: the old ids' arithmetic past its own, a changed id, an admin's later one.
    const numeric = Number(last);
    const guesses = [String(numeric + 2), String(numeric + 4), String(numeric + 10), `${last.slice(0, -2)}${last.endsWith('AA') ? 'BA' : 'AA'}`, adminsLater];
    /** For each guess: whether the stream answers it with reset. */
    const answers = async () => {
      const out: boolean[] = [];
      for (const guess of guesses) {
        const stream = await openEventStream(poc.client, '', { 'last-event-id': guess });
        try {
          await stream.idWithin(300);
          out.push(await stream.next(1, 50).then((e) => e[0]?.event === 'reset', () => false));
        } finally {
          stream.close();
        }
      }
      return out;
    };
    const before = await answers();
    for (let i = 0; i < 6; i++) await touch(elsewhere.id, `others’ activity ${i}`);
    assert.deepEqual(await answers(), before, 'others’ changes changed an answer');
    assert.deepEqual(before, guesses.map(() => true), 'none of them names a position of the viewer’s');
  });
});

describe('a stream ends with its session', () => {
  /** Asserts the stream's last event is session-ended {reason} and the server closed it within a second. */
  async function assertEnded(stream: EventStream, reason: string, started: number) {
    const events = await stream.end(1500);
    assert.deepEqual(events.at(-1), { id: '', event: 'session-ended', data: { reason } });
    assert.ok(Date.now() - started < 1000, `closed ${Date.now() - started} ms after the change`);
  }

  test('logout: signed-out, this session only (the same user’s other session keeps its stream)', async () => {
    const { user, email, password } = await svc.createUser({ role: 'POC' });
    const [first, second] = [await svc.login(email, password), await svc.login(email, password)];
    const [s1, s2] = await Promise.all([openEventStream(first), openEventStream(second)]);
    try {
      const started = Date.now();
      assert.equal((await first.post('/api/auth/logout')).status, 204);
      await assertEnded(s1, 'signed-out', started);
      const own = await svc.createProject(user.id);
      await touch(own.id, 'Still heard by the other session');
      assert.deepEqual(withoutIds(await s2.next(2)), changeEvents(own.id));
    } finally {
      s1.close();
      s2.close();
    }
  });

  test('deactivation by an admin: deactivated, every session of that user', async () => {
    const { user, email, password } = await svc.createUser({ role: 'POC' });
    const [first, second] = [await svc.login(email, password), await svc.login(email, password)];
    const streams = await Promise.all([openEventStream(first), openEventStream(second)]);
    try {
      const started = Date.now();
      const res = await admin.client.patch(`/api/team/${user.id}`, { active: false });
      assert.equal(res.status, 200, res.text);
      for (const s of streams) await assertEnded(s, 'deactivated', started);
      assert.equal((await first.get('/api/auth/session')).status, 401);
    } finally {
      for (const s of streams) s.close();
    }
  });

  test('a new password set by an admin: password-changed', async () => {
    const person = await svc.signIn('CLIENT');
    const stream = await openEventStream(person.client);
    try {
      const started = Date.now();
      const res = await admin.client.patch(`/api/team/${person.user.id}`, { password: 'a-new-password-1' });
      assert.equal(res.status, 200, res.text);
      await assertEnded(stream, 'password-changed', started);
    } finally {
      stream.close();
    }
  });

  test('a role change keeps the stream open (re-scoped, not ended)', async () => {
    const person = await svc.signIn('POC');
    const own = await svc.createProject(person.user.id);
    const stream = await openEventStream(person.client);
    try {
      assert.equal((await admin.client.patch(`/api/team/${person.user.id}`, { role: 'CLIENT' })).status, 200);
      await touch(own.id, 'still mine');
      assert.deepEqual(withoutIds(await stream.next(2)), changeEvents(own.id));
    } finally {
      stream.close();
    }
  });

  test('a session that was ended without a signal (as in an outage) is found by the sweep', async () => {
    const quick = await startTestService({ env: { REALTIME_SESSION_SWEEP_MS: '300' } });
    try {
      const person = await quick.signIn('POC');
      const stream = await openEventStream(person.client);
      try {
        // Straight in the database: no instance heard of it.
        await quick.deps.store.sessions.deleteForUser(person.user.id);
        const events = await stream.end(2000);
        assert.deepEqual(events.at(-1)?.data, { reason: 'signed-out' });
      } finally {
        stream.close();
      }
    } finally {
      await quick.close();
    }
  });
});

describe('expiry', () => {
  let short: TestService;
  before(async () => {
    // With a one-hour lifetime a session is never renewed by a request (renewal waits for the first hour to pass).
    short = await startTestService({ env: { SESSION_TTL_HOURS: '1' } });
  });
  after(() => short.close());

  test('a stream ends with expired when its session’s time is up', async () => {
    const person = await short.signIn('POC');
    const token = /session=([^;]+)/.exec(person.client.cookie!)![1]!;
    await short.deps.store.sessions.extend(hashToken(token), new Date(Date.now() + 1200).toISOString());
    const stream = await openEventStream(person.client);
    try {
      const events = await stream.end(3000);
      assert.deepEqual(events.at(-1), { id: '', event: 'session-ended', data: { reason: 'expired' } });
      assert.equal((await person.client.get('/api/auth/session')).status, 401);
    } finally {
      stream.close();
    }
  });
});
