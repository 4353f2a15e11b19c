/**
 * Issue 22, the morning due-date digest, over a real service and a real SMTP server
 * (test/helpers/smtp.ts): from DUE_DIGEST_HOUR in TIMEZONE (the service's clock set by the test),
 * each active POC gets one email listing their own open projects overdue or due today, each active
 * ADMIN one listing all of them, nobody an empty one; once per person and day, whichever instance
 * and however often the job runs; never for a past day; not to whoever switched it off on My account.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { queueDueDigests } from '../src/actions/due-digest.js';
import { ConfigError, loadConfig } from '../src/config.js';
import type { Deps } from '../src/deps.js';
import { serviceJobs } from '../src/jobs.js';
import type { ProjectStatus, User } from '../src/domain/model.js';
import { eventually, eventuallyPasses } from './helpers/eventually.js';
import { type Client, type TestService, startTestService, testDialect } from './helpers/service.js';
import { type ReceivedMail, type TestSmtpServer, startSmtpServer } from './helpers/smtp.js';

/** Kolkata (UTC+05:30), digest at 8: 02:30 UTC. Jobs and the dispatcher at a test's pace. */
const env = (smtp: TestSmtpServer): Record<string, string> => ({
  SMTP_URL: smtp.url,
  MAIL_FROM: 'Print shop <orders@shop.example>',
  MAIL_BATCH_SECONDS: '0',
  MAIL_POLL_MS: '50',
  TIMEZONE: 'Asia/Kolkata',
  DUE_DIGEST_HOUR: '8',
  DUE_DIGEST_CHECK_MS: '50',
  MAIL_RETRY_BASE_MS: '100',
  MAIL_RETRY_MAX_MS: '400',
});

const isDigest = (m: ReceivedMail) => m.subject.startsWith('Due dates for ');
const digestsTo = (smtp: TestSmtpServer, user: User) => smtp.to(user.email).filter(isDigest);

/** Sets the service's clock (what "now" is for the date rules and the digest's hour). */
const setClock = (svc: TestService, iso: string) => {
  svc.deps.clock = { now: () => new Date(iso) };
};

/** Waits until the digest job has run two whole rounds after now (so one started after the clock moved), and the outbox has nothing pending. */
async function settle(svc: TestService): Promise<void> {
  const rounds = () => svc.running.jobs.status().find((s) => s.name === 'due-date digest')!.rounds;
  const from = rounds();
  await eventually('two rounds of the digest job', () => rounds() >= from + 2, 10_000);
  await eventuallyPasses(async () => {
    const pending = await svc.deps.database.db.selectFrom('outbox').select('id').where('status', '=', 'pending').execute();
    assert.equal(pending.length, 0, 'the outbox has emails pending');
  }, 10_000);
}

/** The digest rows of the outbox, per recipient. */
async function digestRows(svc: TestService, userId: string): Promise<string[]> {
  const rows = await svc.deps.database.db.selectFrom('outbox').select(['id', 'project_id', 'events']).where('recipient_id', '=', userId).execute();
  return rows.filter((r) => r.project_id === null && JSON.stringify(r.events).includes('DUE_DIGEST')).map((r) => r.id);
}

describe('the due-date digest: who gets what, when', () => {
  let smtp: TestSmtpServer;
  let svc: TestService;
  let admin: User;
  let inactiveAdmin: User;
  let poc: User;
  let otherPoc: User;
  let idlePoc: User;
  let client: User;
  const projects: Record<string, string> = {};

  before(async () => {
    smtp = await startSmtpServer();
    svc = await startTestService({ env: env(smtp) });
    // 20:00 UTC is past 8 in UTC, but 01:30 on the 10th in Kolkata: not yet the digest's hour.
    setClock(svc, '2026-03-09T20:00:00.000Z');
    admin = (await svc.createUser({ role: 'ADMIN', name: 'Ann Admin' })).user;
    inactiveAdmin = (await svc.createUser({ role: 'ADMIN', active: false })).user;
    poc = (await svc.createUser({ role: 'POC', name: 'Pia Poc' })).user;
    otherPoc = (await svc.createUser({ role: 'POC', name: 'Oli Other' })).user;
    idlePoc = (await svc.createUser({ role: 'POC', name: 'Ida Idle' })).user;
    client = (await svc.createUser({ role: 'CLIENT', name: 'Cal Client' })).user;
    const make = async (key: string, pocId: string, dueDate: string | null, status: ProjectStatus, reference: string | null = null, name = key) => {
      projects[key] = (await svc.createProject(pocId, { name, dueDate, status, reference })).id;
    };
    await make('late', poc.id, '2026-03-08', 'PRINTING', 'PO <7> & "x"', 'Late <b>bold</b> & co');
    await make('today', poc.id, '2026-03-10', 'APPROVED');
    await make('tomorrow', poc.id, '2026-03-11', 'PRINTING');
    await make('delivered', poc.id, '2026-03-01', 'DELIVERED');
    await make('cancelled', poc.id, '2026-03-10', 'CANCELLED');
    await make('undated', poc.id, null, 'REQUESTED');
    await make('other', otherPoc.id, '2026-03-05', 'DISPATCHED', 'PO-99');
    await make('later', idlePoc.id, '2026-03-20', 'PRINTING');
  });
  after(async () => {
    await svc?.close();
    await smtp?.stop();
  });

  test('before the hour in TIMEZONE nothing goes, whatever the hour in UTC; at 08:00 there each POC gets their own, each admin all, nobody an empty one', async () => {
    await settle(svc);
    assert.deepEqual(smtp.received.filter(isDigest), [], 'nothing at 01:30 in Kolkata (20:00 UTC)');
    setClock(svc, '2026-03-10T02:29:59.000Z'); // 07:59:59 in Kolkata
    await settle(svc);
    assert.deepEqual(smtp.received.filter(isDigest), [], 'nothing before 08:00 in Kolkata');

    setClock(svc, '2026-03-10T02:30:00.000Z'); // 08:00 in Kolkata
    await settle(svc);
    assert.deepEqual(smtp.received.filter(isDigest).map((m) => m.rcptTo.join()).sort(), [admin.email, poc.email, otherPoc.email].map((e) => e.toLowerCase()).sort());

    const [mine] = digestsTo(smtp, poc);
    assert.equal(mine!.subject, 'Due dates for 10 Mar 2026: 1 overdue, 1 due today');
    const url = svc.deps.config.publicUrl;
    assert.match(mine!.text, /Hello Pia Poc,/);
    assert.match(mine!.text, /Overdue \(1\):\n\n- #\d+ Late <b>bold<\/b> & co \(ref\. PO <7> & "x"\): due 8 Mar 2026, 2 days overdue; /);
    assert.ok(mine!.text.includes(`${url}/projects/${projects.late}`), 'the overdue project has its link');
    assert.match(mine!.text, /Due today \(1\):\n\n- #\d+ today: due today; /);
    assert.ok(mine!.text.includes(`${url}/projects/${projects.today}`));
    for (const left of ['tomorrow', 'delivered', 'cancelled', 'undated', 'other', 'later']) {
      assert.ok(!mine!.text.includes(projects[left]!), `${left} is not in the POC's digest`);
    }
    // Nothing a person typed is HTML: the name and the reference arrive escaped, the links are the project's.
    assert.ok(!mine!.html.includes('<b>bold</b>'), 'the name is not rendered as HTML');
    assert.match(mine!.html, /<a href="[^"]*\/projects\/[^"]+">#\d+ Late &#60;b&#62;bold&#60;\/b&#62; &#38; co<\/a> \(ref\. PO &#60;7&#62; &#38; &#34;x&#34;\)/);
    assert.ok(mine!.html.includes(`href="${url}/projects/${projects.today}"`));

    const [theirs] = digestsTo(smtp, otherPoc);
    assert.equal(theirs!.subject, 'Due dates for 10 Mar 2026: 1 overdue');
    assert.ok(theirs!.text.includes(projects.other!) && !theirs!.text.includes(projects.late!), 'another POC: their own only');

    const [all] = digestsTo(smtp, admin);
    assert.equal(all!.subject, 'Due dates for 10 Mar 2026: 2 overdue, 1 due today');
    // Longest overdue first: the 5th before the 8th.
    assert.ok(all!.text.indexOf(projects.other!) < all!.text.indexOf(projects.late!), 'the longest overdue comes first');
    assert.ok(all!.text.includes(projects.today!));
    for (const left of ['tomorrow', 'delivered', 'cancelled', 'undated', 'later']) assert.ok(!all!.text.includes(projects[left]!), `${left} is not in the admin's digest`);

    for (const nobody of [idlePoc, client, inactiveAdmin]) assert.deepEqual(digestsTo(smtp, nobody), [], `${nobody.name} gets no digest`);
    // The idle POC's day is decided all the same: nothing to list, no email.
    const claim = await svc.deps.database.db.selectFrom('due_digests').selectAll().where('user_id', '=', idlePoc.id).executeTakeFirst();
    assert.deepEqual([claim?.day, claim?.outbox_id], ['2026-03-10', null]);
  });

  test('not twice on the same day: more rounds, the job run again by hand, a project falling due later that day', async () => {
    const before = smtp.received.filter(isDigest).length;
    await svc.createProject(idlePoc.id, { name: 'Due this afternoon', dueDate: '2026-03-10', status: 'PRINTING' });
    setClock(svc, '2026-03-10T12:00:00.000Z'); // 17:30 in Kolkata
    assert.equal(await queueDueDigests(svc.deps), 0);
    assert.equal(await queueDueDigests(svc.deps), 0);
    await settle(svc);
    assert.equal(smtp.received.filter(isDigest).length, before);
    assert.equal((await digestRows(svc, poc.id)).length, 1);
    assert.deepEqual(digestsTo(smtp, idlePoc), [], 'decided at 08:00: no afternoon digest');
  });

  test('the next morning: a new day, a new digest, as the projects stand then', async () => {
    setClock(svc, '2026-03-11T03:00:00.000Z'); // 08:30 in Kolkata on the 11th
    await settle(svc);
    const mails = digestsTo(smtp, poc);
    assert.equal(mails.length, 2);
    assert.equal(mails[1]!.subject, 'Due dates for 11 Mar 2026: 2 overdue, 1 due today');
    assert.match(mails[1]!.text, /- #\d+ today: due 10 Mar 2026, 1 day overdue; /);
    assert.match(mails[1]!.text, /Due today \(1\):\n\n- #\d+ tomorrow: due today; /);
    assert.equal(digestsTo(smtp, idlePoc).length, 1, "the idle POC's project due yesterday is overdue now");
  });

  test('after days with no instance running: only today’s digest, once, even past the hour', async () => {
    const before = digestsTo(smtp, poc).length;
    setClock(svc, '2026-03-14T10:00:00.000Z'); // 15:30 in Kolkata, three days on
    await settle(svc);
    const mails = digestsTo(smtp, poc).slice(before);
    assert.deepEqual(mails.map((m) => m.subject), ['Due dates for 14 Mar 2026: 3 overdue']);
    const days = await svc.deps.database.db.selectFrom('due_digests').select('day').where('user_id', '=', poc.id).orderBy('day').execute();
    assert.deepEqual(days.map((d) => d.day), ['2026-03-10', '2026-03-11', '2026-03-14'], 'the 12th and 13th are not sent later');
  });

  test('a project delivered or cancelled leaves the digest; one with nothing left sends nothing', async () => {
    const lone = await svc.createUser({ role: 'POC', name: 'Lou Lone' });
    // Delivered from the start: the job, running meanwhile on the earlier day's clock, never sees it open.
    await svc.createProject(lone.user.id, { name: 'Only one', dueDate: '2026-03-14', status: 'DELIVERED' });
    setClock(svc, '2026-03-15T03:00:00.000Z');
    await settle(svc);
    assert.deepEqual(digestsTo(smtp, lone.user), []);
    const claim = await svc.deps.database.db.selectFrom('due_digests').selectAll().where('user_id', '=', lone.user.id).where('day', '=', '2026-03-15').executeTakeFirst();
    assert.deepEqual([claim?.day, claim?.outbox_id], ['2026-03-15', null]);
  });
});

describe('the due-date digest in My account', () => {
  let smtp: TestSmtpServer;
  let svc: TestService;

  before(async () => {
    smtp = await startSmtpServer();
    svc = await startTestService({ env: env(smtp) });
    setClock(svc, '2026-03-09T20:00:00.000Z');
  });
  after(async () => {
    await svc?.close();
    await smtp?.stop();
  });

  test('on by default for every role, shown by GET /api/account', async () => {
    for (const role of ['ADMIN', 'POC', 'CLIENT'] as const) {
      const { client } = await svc.signIn(role);
      const res = await client.get('/api/account');
      assert.equal(res.status, 200);
      assert.equal(res.body.emailPreferences.dueDigest, true, role);
    }
  });

  test('switched off with PATCH /api/account: no digest; a bad value is a clear 400 and changes nothing; switched on again, it comes', async () => {
    const someone = async (role: 'ADMIN' | 'POC') => {
      const { user, client } = await svc.signIn(role);
      await svc.createProject(role === 'POC' ? user.id : (await svc.createUser({ role: 'POC' })).user.id, { dueDate: '2026-03-01', status: 'PRINTING' });
      return { user, client };
    };
    const [poc, admin] = [await someone('POC'), await someone('ADMIN')];
    const off = async (who: { client: Client }) => {
      const res = await who.client.patch('/api/account', { emailPreferences: { dueDigest: false } });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.emailPreferences.dueDigest, false);
      assert.equal(res.body.emailPreferences.progress, true, 'the others stay as they were');
    };
    await off(poc);
    await off(admin);
    assert.equal((await poc.client.get('/api/account')).body.emailPreferences.dueDigest, false);

    for (const bad of [{ dueDigest: 'no' }, { dueDigest: null }, { dueDigest: 1 }]) {
      const res = await poc.client.patch('/api/account', { emailPreferences: bad });
      assert.equal(res.status, 400, JSON.stringify(bad));
      assert.match(res.body.error, /^emailPreferences\.dueDigest must be true or false$/);
    }
    assert.equal((await poc.client.get('/api/account')).body.emailPreferences.dueDigest, false, 'a refused change changed nothing');

    setClock(svc, '2026-03-10T03:00:00.000Z');
    await settle(svc);
    assert.deepEqual(digestsTo(smtp, poc.user), []);
    assert.deepEqual(digestsTo(smtp, admin.user), []);

    // Back on later that day: their day was never decided, so it comes now.
    assert.equal((await poc.client.patch('/api/account', { emailPreferences: { dueDigest: true } })).status, 200);
    await settle(svc);
    assert.equal(digestsTo(smtp, poc.user).length, 1);
    assert.deepEqual(digestsTo(smtp, admin.user), []);
  });

  test('switched off after the digest was queued and before it went: it is dropped', async () => {
    const { user, client } = await svc.signIn('POC');
    await svc.createProject(user.id, { dueDate: '2026-03-10', status: 'APPROVED' });
    await smtp.stop();
    try {
      setClock(svc, '2026-03-11T03:00:00.000Z');
      await eventually('the digest queued', async () => (await digestRows(svc, user.id)).length === 1, 10_000);
      assert.equal((await client.patch('/api/account', { emailPreferences: { dueDigest: false } })).status, 200);
    } finally {
      await smtp.start();
    }
    await eventuallyPasses(async () => {
      const rows = await svc.deps.database.db.selectFrom('outbox').select('status').where('recipient_id', '=', user.id).execute();
      assert.deepEqual(rows.map((r) => r.status), ['dropped']);
    }, 20_000);
    assert.deepEqual(digestsTo(smtp, user), []);
  });
});

describe('the due-date digest on two instances of one database', () => {
  let smtp: TestSmtpServer;
  let first: TestService;

  before(async () => {
    smtp = await startSmtpServer();
    first = await startTestService({ env: env(smtp) });
    setClock(first, '2026-03-09T20:00:00.000Z');
  });
  after(async () => {
    await first?.close();
    await smtp?.stop();
  });

  // Several instances share PostgreSQL; SQLite has one writer (two services in one process would wait on each other's locks).
  const concurrently = testDialect === 'postgres' ? {} : { skip: 'PostgreSQL only (runs in the PostgreSQL pass)' };
  test('both running the job at once, again and again: each person gets one digest', concurrently, async () => {
    const second = await startTestService({ env: env(smtp), sharedDatabase: first.deps.config.database });
    try {
      setClock(second, '2026-03-09T20:00:00.000Z');
      const people = await Promise.all([first.createUser({ role: 'ADMIN' }), ...Array.from({ length: 6 }, () => first.createUser({ role: 'POC' }))]);
      for (const p of people.slice(1)) await first.createProject(p.user.id, { dueDate: '2026-03-10', status: 'PRINTING' });
      for (const svc of [first, second]) setClock(svc, '2026-03-10T02:30:00.000Z');
      // Their own rounds run meanwhile (every 50 ms); these race them and each other.
      const queued = await Promise.all(Array.from({ length: 6 }, (_, i) => queueDueDigests((i % 2 ? second : first).deps)));
      await settle(first);
      await settle(second);
      assert.ok(queued.reduce((a, b) => a + b, 0) <= people.length);
      for (const p of people) {
        assert.equal(digestsTo(smtp, p.user).length, 1, `${p.user.email}: one digest`);
        assert.equal((await digestRows(first, p.user.id)).length, 1);
      }
      const claims = await first.deps.database.db.selectFrom('due_digests').select(['user_id', 'day']).where('day', '=', '2026-03-10').execute();
      assert.equal(claims.length, people.length);
    } finally {
      await second.close();
    }
  });

  test('a restart the same day sends nothing again; the instance that starts on a new day sends that day’s', async () => {
    const { user } = await first.createUser({ role: 'POC' });
    await first.createProject(user.id, { dueDate: '2026-03-12', status: 'APPROVED' });
    setClock(first, '2026-03-12T02:45:00.000Z');
    await settle(first);
    assert.equal(digestsTo(smtp, user).length, 1);
    await first.running.close(); // its database stays until first.close()

    const again = await startTestService({ env: env(smtp), sharedDatabase: first.deps.config.database });
    // Until its clock is set, the new instance's first rounds read the wall clock, and past 08:00 in
    // Kolkata they send the real day's digest of the project now long overdue: only March's are this test's.
    const march = () => digestsTo(smtp, user).filter((m) => /^Due dates for \d+ Mar 2026/.test(m.subject));
    try {
      setClock(again, '2026-03-12T09:00:00.000Z');
      await settle(again);
      assert.deepEqual(march().map((m) => m.subject), ['Due dates for 12 Mar 2026: 1 due today'], 'not twice on the 12th');
      setClock(again, '2026-03-13T02:45:00.000Z');
      await settle(again);
      assert.deepEqual(march().map((m) => m.subject), ['Due dates for 12 Mar 2026: 1 due today', 'Due dates for 13 Mar 2026: 1 overdue']);
    } finally {
      await again.close();
    }
  });
});

test('DUE_DIGEST_HOUR: 0–23 (default 8) or off; anything else stops start-up', async () => {
  assert.deepEqual(loadConfig({}).dueDigest, { hour: 8, checkMs: 300_000 });
  assert.deepEqual(loadConfig({ DUE_DIGEST_HOUR: '0', DUE_DIGEST_CHECK_MS: '60000' }).dueDigest, { hour: 0, checkMs: 60_000 });
  assert.equal(loadConfig({ DUE_DIGEST_HOUR: 'off' }).dueDigest, null);
  for (const bad of ['24', '-1', '8.5', 'eight', 'morning']) assert.throws(() => loadConfig({ DUE_DIGEST_HOUR: bad }), ConfigError, bad);
  assert.throws(() => loadConfig({ DUE_DIGEST_CHECK_MS: '10' }), ConfigError);

  // Off: no job in the service's list, and a round (were one run) queues nothing, reading no table.
  const off = loadConfig({ DUE_DIGEST_HOUR: 'off', TIMEZONE: 'UTC' });
  const jobs = serviceJobs({ config: off } as Deps, { streams: { sweep: async () => {} } });
  assert.ok(!jobs.some((j) => j.name === 'due-date digest'), 'off: no digest job');
  assert.ok(serviceJobs({ config: loadConfig({}) } as Deps, { streams: { sweep: async () => {} } }).some((j) => j.name === 'due-date digest'));
  const noon = { now: () => new Date('2026-03-10T12:00:00.000Z') };
  assert.equal(await queueDueDigests({ config: off, clock: noon, store: undefined as never }), 0);
});
