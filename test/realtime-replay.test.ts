/**
 * GET /api/realtime after a reconnection (interface.md, Realtime: Ids and replay): Last-Event-ID
 * (or ?lastEventId=) first brings every later event the user may see, from the activity log, then
 * live ones, without gap or duplicate; an id outside the window, or unknown, gets one `reset`.
 *
 * Ids are opaque and the same for every stream of one user (realtime/event-ids.ts), so a stream
 * of the same user that stayed open (a witness) shows which ids a resumed stream must carry.
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
    const adminBefore = await openEventStream(admin.client);
    const last = await lastIdAfterOneChange(svc, admin.client, poc.client, mine.id);
    await adminBefore.next(2);
    const adminLast = adminBefore.lastEventId!;
    adminBefore.close();

    const witness = await openEventStream(poc.client);
    try {
      await touch(admin.client, mine.id, 'away 1');
      await touch(admin.client, notMine.id, 'away 2 (not theirs)');
      await touch(admin.client, mine.id, 'away 3');
      await touch(admin.client, notMine.id, 'away 4 (not theirs)');
      await touch(admin.client, mine.id, 'away 5');
      const seen = await witness.next(6);

      const stream = await openEventStream(poc.client, '', { 'last-event-id': last });
      try {
        const replayed = await stream.next(6);
        assert.deepEqual(withoutIds(replayed), [...changeEvents(mine.id), ...changeEvents(mine.id), ...changeEvents(mine.id)]);
        assert.deepEqual(replayed.map((e) => e.id), seen.map((e) => e.id), 'the ids a stream open meanwhile carried, in its order');
        assert.equal(new Set([last, ...seen.map((e) => e.id)]).size, 7, 'every id new');
        await touch(admin.client, mine.id, 'live');
        const live = await stream.next(2);
        assert.deepEqual(withoutIds(live), changeEvents(mine.id));
        assert.deepEqual(live.map((e) => e.id), (await witness.next(2)).map((e) => e.id));
      } finally {
        stream.close();
      }
    } finally {
      witness.close();
    }

    // An admin resuming from their own id at the same point gets all five.
    const adminStream = await openEventStream(admin.client, `?lastEventId=${encodeURIComponent(adminLast)}`);
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
    let statsUpdatedId: string;
    try {
      await touch(admin.client, p.id, 'half');
      const [first, second] = await stream.next(2);
      projectUpdatedId = first!.id;
      statsUpdatedId = second!.id;
    } finally {
      stream.close();
    }
    const again = await openEventStream(admin.client, '', { 'last-event-id': projectUpdatedId });
    try {
      assert.deepEqual(await again.next(1), [{ id: statsUpdatedId, event: 'stats-updated', data: { channel: 'dashboard', payload: {} } }]);
    } finally {
      again.close();
    }
  });

  test('changes racing the reconnection arrive exactly once each, in order: no gap, no duplicate at the seam', async () => {
    const p = await svc.createProject(poc.user.id);
    const last = await lastIdAfterOneChange(svc, admin.client, admin.client, p.id);
    const witness = await openEventStream(admin.client);
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
      const seen = await witness.next(50, 10_000);
      assert.deepEqual(events.map((e) => e.id), seen.map((e) => e.id), 'every id after the last one, each once, in order');
      assert.equal(new Set(events.map((e) => e.id)).size, 50);
      assert.deepEqual(withoutIds(events), Array.from({ length: 25 }, () => changeEvents(p.id)).flat());
    } finally {
      stream.close();
      witness.close();
    }
  });

  test('an id we never issued to this user gets one reset, then live events', async () => {
    const p = await svc.createProject(poc.user.id);
    const own = await lastIdAfterOneChange(svc, admin.client, poc.client, p.id);
    const adminsId = await lastIdAfterOneChange(svc, admin.client, admin.client, p.id);
    const tampered = `${own.slice(0, -2)}${own.endsWith('AA') ? 'BA' : 'AA'}`;
    for (const id of ['999999999', 'not-an-id', '-4', adminsId, tampered]) {
      const stream = await openEventStream(poc.client, '', { 'last-event-id': id });
      try {
        const [reset] = await stream.next(1);
        assert.equal(reset!.event, 'reset', id);
        assert.deepEqual(reset!.data, {});
        assert.ok(reset!.id, 'a reset carries the position to resume from');
        await touch(admin.client, p.id, `after reset ${id}`);
        const live = await stream.next(2);
        assert.deepEqual(withoutIds(live), changeEvents(p.id));
        // The reset's id is a position of this user's: resuming from it replays what followed, no reset.
        const resumed = await openEventStream(poc.client, '', { 'last-event-id': reset!.id });
        try {
          assert.deepEqual(await resumed.next(2), live);
        } finally {
          resumed.close();
        }
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
      assert.ok(position, 'a position before any event');
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
      return (await quiet.idWithin(300))!;
    } finally {
      quiet.close();
    }
  };

  /** The events that follow a position, as a stream resuming from it replays them from the log. */
  const replayedAfter = async (id: string, count: number) => {
    const resumed = await openEventStream(admin.client, '', { 'last-event-id': id });
    try {
      return await resumed.next(count);
    } finally {
      resumed.close();
    }
  };

  test('a stream opened after changes nobody heard starts at the end of the log, and the next change follows its position', async () => {
    const [p, q] = [await svc.createProject(admin.user.id), await svc.createProject(admin.user.id)];
    for (let i = 0; i < 3; i++) await touch(admin.client, q.id, `unheard ${i}`);
    const stream = await openEventStream(admin.client);
    try {
      const at = (await stream.idWithin(300))!;
      assert.equal(at, await position());
      await touch(admin.client, p.id, 'heard');
      const events = await stream.next(2);
      assert.deepEqual(withoutIds(events), changeEvents(p.id), 'none of the unheard changes');
      assert.deepEqual(await replayedAfter(at, 2), events, 'the next two after its position, with their ids');
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
        const positions = await Promise.all(tabs.map(async (tab) => (await tab.idWithin(300))!));
        const end = await position();
        assert.deepEqual(positions, tabs.map(() => end), 'every tab at the log’s end');
        await touch(admin.client, p.id, `heard ${round}`);
        const next = await replayedAfter(end, 2);
        for (const tab of tabs) {
          const events = await tab.next(2);
          assert.deepEqual(withoutIds(events), changeEvents(p.id), 'none of the unheard changes');
          assert.deepEqual(events, next, 'the next two after the end, with their ids');
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
      const events = [];
      while (events.at(-1)?.id !== end) events.push(...(await stream.next(1)));
      assert.equal(new Set(events.map((e) => e.id)).size, events.length, 'none twice');
      assert.equal(events.length % 2, 0);
      assert.deepEqual(withoutIds(events), Array.from({ length: events.length / 2 }, () => changeEvents(p.id)).flat(), 'only the racing changes and the last');
      // No gap: the log after the stream's starting position holds exactly what it carried.
      assert.deepEqual(await replayedAfter(stream.firstId!, events.length), events, 'every change after its start, in order');
      assert.equal(await stream.idWithin(200), end, 'nothing after the last change');
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
    // The entry behind that id: the project's latest.
    const { seq } = await svc.deps.database.db.selectFrom('activity_log').select('seq').where('entity_id', '=', p.id).orderBy('seq', 'desc').limit(1).executeTakeFirstOrThrow();
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
      const witness = await openEventStream(poc.client);
      await touch(admin.client, p.id, 'before the restart 1');
      await touch(admin.client, p.id, 'before the restart 2');
      const seen = await witness.next(4);
      witness.close();
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
          assert.deepEqual(events.map((e) => e.id), seen.map((e) => e.id), 'the ids the first process gave');
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
