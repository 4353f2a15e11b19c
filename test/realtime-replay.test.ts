/**
 * GET /api/realtime after a reconnection (interface.md, Realtime: Ids and replay): Last-Event-ID
 * (or ?lastEventId=) first brings every later event the user may see, from the activity log, then
 * live ones, without gap or duplicate; an id outside the window, or unknown, gets one `reset`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'kysely';
import type { User } from '../src/domain/model.js';
import { changeEvents, withoutIds } from './helpers/projects.js';
import { Client, type TestService, openEventStream, startTestService } from './helpers/service.js';

interface Person {
  user: User;
  client: Client;
}

/** A change to a project by an admin. */
async function touch(admin: Client, projectId: string, name: string) {
  const res = await admin.patch(`/api/projects/${projectId}`, { name });
  assert.equal(res.status, 200, res.text);
}

/** Opens a stream, waits for one change to arrive, and returns the id to resume from after closing it. */
async function lastIdAfterOneChange(svc: TestService, admin: Client, who: Client, projectId: string): Promise<string> {
  const stream = await openEventStream(who);
  try {
    await touch(admin, projectId, `seen ${Date.now()}`);
    await stream.next(2);
    return stream.lastEventId!;
  } finally {
    stream.close();
  }
}

describe('replay after a reconnection', () => {
  let svc: TestService;
  let admin: Person;
  let poc: Person;

  before(async () => {
    svc = await startTestService();
    [admin, poc] = await Promise.all([svc.signIn('ADMIN'), svc.signIn('POC')]);
  });
  after(() => svc.close());

  test('5 changes while away: exactly the user’s own arrive once, in order, then live ones (Last-Event-ID header)', async () => {
    const mine = await svc.createProject(poc.user.id);
    const notMine = await svc.createProject(admin.user.id);
    const last = await lastIdAfterOneChange(svc, admin.client, poc.client, mine.id);

    await touch(admin.client, mine.id, 'away 1');
    await touch(admin.client, notMine.id, 'away 2 (not theirs)');
    await touch(admin.client, mine.id, 'away 3');
    await touch(admin.client, notMine.id, 'away 4 (not theirs)');
    await touch(admin.client, mine.id, 'away 5');

    const stream = await openEventStream(poc.client, '', { 'last-event-id': last });
    try {
      const replayed = await stream.next(6);
      assert.deepEqual(withoutIds(replayed), [...changeEvents(mine.id), ...changeEvents(mine.id), ...changeEvents(mine.id)]);
      const ids = replayed.map((e) => Number(e.id));
      assert.ok(ids.every((id, i) => id > Number(last) && (i === 0 || id > ids[i - 1]!)), `increasing after ${last}: ${ids}`);
      await touch(admin.client, mine.id, 'live');
      const live = await stream.next(2);
      assert.deepEqual(withoutIds(live), changeEvents(mine.id));
      assert.ok(Number(live[0]!.id) > ids.at(-1)!);
    } finally {
      stream.close();
    }

    // An admin resuming from the same point gets all five.
    const adminStream = await openEventStream(admin.client, `?lastEventId=${last}`);
    try {
      assert.deepEqual(
        (await adminStream.next(12)).filter((e) => e.event === 'project-updated').map((e) => e.data.payload.id),
        [mine.id, notMine.id, mine.id, notMine.id, mine.id, mine.id],
      );
    } finally {
      adminStream.close();
    }
  });

  test('an id between a change’s two events resumes with its stats-updated', async () => {
    const p = await svc.createProject(poc.user.id);
    const stream = await openEventStream(admin.client);
    let projectUpdatedId: string;
    try {
      await touch(admin.client, p.id, 'half');
      const [first] = await stream.next(2);
      projectUpdatedId = first!.id;
    } finally {
      stream.close();
    }
    const again = await openEventStream(admin.client, '', { 'last-event-id': projectUpdatedId });
    try {
      assert.deepEqual(await again.next(1), [{ id: String(Number(projectUpdatedId) + 1), event: 'stats-updated', data: { channel: 'dashboard', payload: {} } }]);
    } finally {
      again.close();
    }
  });

  test('changes racing the reconnection arrive exactly once each, in order: no gap, no duplicate at the seam', async () => {
    const p = await svc.createProject(poc.user.id);
    const last = await lastIdAfterOneChange(svc, admin.client, admin.client, p.id);
    const before = Array.from({ length: 5 }, (_, i) => `before ${i}`);
    for (const name of before) await touch(admin.client, p.id, name);
    // Twenty more while the stream reconnects and replays.
    const racing = (async () => {
      for (let i = 0; i < 20; i++) await touch(admin.client, p.id, `racing ${i}`);
    })();
    const stream = await openEventStream(admin.client, '', { 'last-event-id': last });
    try {
      await racing;
      const events = await stream.next(50, 10_000);
      const ids = events.map((e) => Number(e.id));
      assert.deepEqual(ids, Array.from({ length: 50 }, (_, i) => Number(last) + 1 + i), 'consecutive ids after the last one');
      assert.deepEqual(withoutIds(events), Array.from({ length: 25 }, () => changeEvents(p.id)).flat());
    } finally {
      stream.close();
    }
  });

  test('an id we never issued gets one reset, then live events', async () => {
    const p = await svc.createProject(poc.user.id);
    for (const id of ['999999999', 'not-an-id', '-4']) {
      const stream = await openEventStream(poc.client, '', { 'last-event-id': id });
      try {
        const [reset] = await stream.next(1);
        assert.equal(reset!.event, 'reset', id);
        assert.deepEqual(reset!.data, {});
        assert.match(reset!.id, /^\d+$/, 'a reset carries the position to resume from');
        await touch(admin.client, p.id, `after reset ${id}`);
        assert.deepEqual(withoutIds(await stream.next(2)), changeEvents(p.id));
      } finally {
        stream.close();
      }
    }
  });

  test('a fresh stream starts with its position, so even a client that heard nothing resumes without a gap', async () => {
    const p = await svc.createProject(poc.user.id);
    const quiet = await openEventStream(poc.client);
    let position: string | undefined;
    try {
      position = await quiet.idWithin(500);
      assert.match(position ?? '', /^\d+$/);
    } finally {
      quiet.close();
    }
    await touch(admin.client, p.id, 'while away');
    const stream = await openEventStream(poc.client, '', { 'last-event-id': position! });
    try {
      assert.deepEqual(withoutIds(await stream.next(2)), changeEvents(p.id));
    } finally {
      stream.close();
    }
  });
});

describe('an instance with no stream open', () => {
  // It does not read the log for changes nobody is there to hear; the next stream starts from the log's end all the same.
  let svc: TestService;
  let admin: Person;

  before(async () => {
    svc = await startTestService();
    admin = await svc.signIn('ADMIN');
  });
  after(() => svc.close());

  /** The log's end as a fresh admin stream reports it. */
  const position = async () => {
    const quiet = await openEventStream(admin.client);
    try {
      return Number(await quiet.idWithin(300));
    } finally {
      quiet.close();
    }
  };

  test('a stream opened after changes nobody heard starts at the end of the log, and the next change follows its position', async () => {
    const [p, q] = [await svc.createProject(admin.user.id), await svc.createProject(admin.user.id)];
    for (let i = 0; i < 3; i++) await touch(admin.client, q.id, `unheard ${i}`);
    const stream = await openEventStream(admin.client);
    try {
      const at = Number(await stream.idWithin(300));
      assert.equal(at, await position());
      await touch(admin.client, p.id, 'heard');
      const events = await stream.next(2);
      assert.deepEqual(withoutIds(events), changeEvents(p.id), 'none of the unheard changes');
      assert.deepEqual(events.map((e) => Number(e.id)), [at + 1, at + 2]);
    } finally {
      stream.close();
    }
  });

  test('streams opening at once after changes nobody heard all start at the end of the log', async () => {
    const [p, q] = [await svc.createProject(admin.user.id), await svc.createProject(admin.user.id)];
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 3; i++) await touch(admin.client, q.id, `unheard ${round} ${i}`);
      const tabs = await Promise.all(Array.from({ length: 6 }, () => openEventStream(admin.client)));
      try {
        const positions = await Promise.all(tabs.map(async (tab) => Number(await tab.idWithin(300))));
        const end = await position();
        assert.deepEqual(positions, tabs.map(() => end), 'every tab at the log’s end');
        await touch(admin.client, p.id, `heard ${round}`);
        for (const tab of tabs) {
          const events = await tab.next(2);
          assert.deepEqual(withoutIds(events), changeEvents(p.id), 'none of the unheard changes');
          assert.deepEqual(events.map((e) => Number(e.id)), [end + 1, end + 2]);
        }
      } finally {
        for (const tab of tabs) tab.close();
      }
    }
  });

  test('changes racing the first stream’s opening arrive exactly once each, in order, and none from before it', async () => {
    const [p, q] = [await svc.createProject(admin.user.id), await svc.createProject(admin.user.id)];
    for (let i = 0; i < 3; i++) await touch(admin.client, q.id, `unheard ${i}`);
    const racing = (async () => {
      for (let i = 0; i < 15; i++) await touch(admin.client, p.id, `racing ${i}`);
    })();
    const stream = await openEventStream(admin.client);
    try {
      await racing;
      await touch(admin.client, p.id, 'last');
      const end = await position();
      const [first] = await stream.next(1);
      const events = [first!, ...(await stream.next(end - Number(first!.id)))];
      assert.deepEqual(events.map((e) => Number(e.id)), Array.from({ length: events.length }, (_, i) => Number(first!.id) + i), 'consecutive, none twice');
      assert.equal(events.length % 2, 0);
      assert.deepEqual(withoutIds(events), Array.from({ length: events.length / 2 }, () => changeEvents(p.id)).flat(), 'only the racing changes and the last');
      assert.equal(Number(await stream.idWithin(200)), end, 'nothing after the last change');
    } finally {
      stream.close();
    }
  });
});

describe('replay window', () => {
  let svc: TestService;
  let admin: Person;

  before(async () => {
    svc = await startTestService({ env: { REALTIME_REPLAY_HOURS: '1', REALTIME_REPLAY_MAX_EVENTS: '6' } });
    admin = await svc.signIn('ADMIN');
  });
  after(() => svc.close());

  test('more events than REALTIME_REPLAY_MAX_EVENTS since the id: reset', async () => {
    const p = await svc.createProject(admin.user.id);
    const last = await lastIdAfterOneChange(svc, admin.client, admin.client, p.id);
    for (let i = 0; i < 3; i++) await touch(admin.client, p.id, `within ${i}`);
    const within = await openEventStream(admin.client, '', { 'last-event-id': last });
    try {
      assert.deepEqual(withoutIds(await within.next(6)), Array.from({ length: 3 }, () => changeEvents(p.id)).flat(), '6 events: replayed');
    } finally {
      within.close();
    }
    await touch(admin.client, p.id, 'one too many');
    const beyond = await openEventStream(admin.client, '', { 'last-event-id': last });
    try {
      assert.deepEqual(withoutIds(await beyond.next(1)), [{ event: 'reset', data: {} }]);
    } finally {
      beyond.close();
    }
  });

  test('an id whose entry is older than REALTIME_REPLAY_HOURS: reset', async () => {
    const p = await svc.createProject(admin.user.id);
    const last = await lastIdAfterOneChange(svc, admin.client, admin.client, p.id);
    const seq = Math.ceil(Number(last) / 2);
    const twoHoursAgo = new Date(Date.now() - 2 * 3_600_000).toISOString();
    await sql`update activity_log set created_at = ${twoHoursAgo} where seq = ${seq}`.execute(svc.deps.database.db);
    await touch(admin.client, p.id, 'after');
    const stream = await openEventStream(admin.client, '', { 'last-event-id': last });
    try {
      assert.deepEqual(withoutIds(await stream.next(1)), [{ event: 'reset', data: {} }]);
    } finally {
      stream.close();
    }
  });
});

describe('replay across a restart', () => {
  test('ids survive a restart of the instance: the new process replays what was missed', async () => {
    const first = await startTestService();
    try {
      const [admin, poc] = await Promise.all([first.signIn('ADMIN'), first.signIn('POC')]);
      const p = await first.createProject(poc.user.id);
      const last = await lastIdAfterOneChange(first, admin.client, poc.client, p.id);
      await touch(admin.client, p.id, 'before the restart 1');
      await touch(admin.client, p.id, 'before the restart 2');
      await first.running.close();

      const second = await startTestService({ sharedDatabase: first.deps.config.database });
      try {
        // The same cookie: sessions live in the database.
        const again = new Client(second.url);
        again.cookie = poc.client.cookie;
        const stream = await openEventStream(again, '', { 'last-event-id': last });
        try {
          const events = await stream.next(4);
          assert.deepEqual(withoutIds(events), [...changeEvents(p.id), ...changeEvents(p.id)]);
          assert.deepEqual(events.map((e) => Number(e.id)), [1, 2, 3, 4].map((i) => Number(last) + i));
        } finally {
          stream.close();
        }
      } finally {
        await second.close();
      }
    } finally {
      await first.close();
    }
  });
});
