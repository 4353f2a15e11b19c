/**
 * Comments on a project (interface.md, Comments), over real HTTP on both databases: validation and
 * who may comment (a POC who may not see the project gets 404, a CLIENT owner's internal note 403),
 * the thread's pages, and one test per channel that an internal note never reaches a CLIENT (list,
 * activity, stream, replay, email); the emails' recipients, the text in them, and batching.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { User } from '../src/domain/model.js';
import { newId } from '../src/ids.js';
import { type FakePusher, startFakePusher } from './helpers/fake-pusher.js';
import { sendNow, settled, startMailService } from './helpers/mail.js';
import { type Client, type TestService, openEventStream, startTestService } from './helpers/service.js';
import type { TestSmtpServer } from './helpers/smtp.js';

type Someone = { user: User; client: Client };

const NOT_FOUND = { error: 'Project not found' };

describe('comments', () => {
  let smtp: TestSmtpServer;
  let svc: TestService;
  let admin: Someone;
  let admin2: Someone;
  let poc: Someone;
  let otherPoc: Someone;
  let clientOwner: Someone;
  /** The POC's project, and the CLIENT's own. */
  let ofPoc: string;
  let ofClient: string;

  let close: () => Promise<void>;

  before(async () => {
    ({ smtp, svc, close } = await startMailService(0));
    [admin, admin2, poc, otherPoc, clientOwner] = await Promise.all([
      svc.signIn('ADMIN', { email: 'ann@example.com', name: 'Ann Admin' }),
      svc.signIn('ADMIN', { email: 'abe@example.com', name: 'Abe Admin' }),
      svc.signIn('POC', { email: 'pia@example.com', name: 'Pia Poc' }),
      svc.signIn('POC', { email: 'oscar@example.com', name: 'Oscar Other' }),
      svc.signIn('CLIENT', { email: 'cleo@example.com', name: 'Cleo Client' }),
    ]);
    ofPoc = (await svc.createProject(poc.user.id, { name: 'Menus' })).id;
    // A project a CLIENT owns (an ADMIN may give one to any active user; a CLIENT's own orders go to the account manager).
    const created = await admin.client.post('/api/projects', { name: 'Cleo cards', pocId: clientOwner.user.id });
    assert.equal(created.status, 201, created.text);
    ofClient = created.body.id;
  });
  after(() => close?.());

  const post = (who: Someone | { client: Client }, projectId: string, json: unknown) => who.client.post(`/api/projects/${projectId}/comments`, json);
  const thread = async (who: Someone, projectId: string, query = '') => {
    const res = await who.client.get(`/api/projects/${projectId}/comments${query}`);
    assert.equal(res.status, 200, res.text);
    return res.body as { items: { id: string; body: string; internal: boolean; authorId: string; authorName: string }[]; nextCursor: string | null };
  };
  const count = async (projectId: string) => Number((await svc.deps.database.db.selectFrom('comments').select((eb) => eb.fn.countAll().as('n')).where('project_id', '=', projectId).executeTakeFirst())?.n);

  describe('validation and permissions', () => {
    test('a comment is answered 201 as the interface shapes it, and listed', async () => {
      const res = await post(poc, ofPoc, { body: '  Please use the matt stock.\nThanks  ' });
      assert.equal(res.status, 201, res.text);
      assert.deepEqual(Object.keys(res.body).sort(), ['authorId', 'authorName', 'body', 'createdAt', 'id', 'internal', 'projectId']);
      assert.deepEqual(
        { ...res.body, id: undefined, createdAt: undefined },
        { id: undefined, createdAt: undefined, projectId: ofPoc, authorId: poc.user.id, authorName: 'Pia Poc', body: 'Please use the matt stock.\nThanks', internal: false },
      );
      assert.deepEqual((await thread(admin, ofPoc)).items.at(-1), res.body);
    });

    test('bad input: a clear 400, nothing stored', async () => {
      const before = await count(ofPoc);
      const cases: [unknown, RegExp][] = [
        [{}, /Comment/],
        [{ body: '' }, /^Comment is required$/],
        [{ body: ' \n\t ' }, /^Comment is required$/],
        [{ body: 'x'.repeat(5001) }, /^Comment must be at most 5000 characters$/],
        [{ body: 42 }, /Comment/],
        [{ body: 'ok', internal: 'perhaps' }, /internal/i],
        [{ body: 'ok', extra: 1 }, /./],
        [['ok'], /./],
      ];
      for (const [json, message] of cases) {
        const res = await post(poc, ofPoc, json);
        assert.equal(res.status, 400, `${JSON.stringify(json).slice(0, 40)}: ${res.text}`);
        assert.match(res.body.error, message, JSON.stringify(json).slice(0, 40));
      }
      const raw = await fetch(`${svc.url}/api/projects/${ofPoc}/comments`, { method: 'POST', headers: { 'content-type': 'application/json', cookie: poc.client.cookie! }, body: '{"body": "x",' });
      assert.equal(raw.status, 400);
      assert.equal(typeof ((await raw.json()) as { error: unknown }).error, 'string');
      assert.equal(await count(ofPoc), before);
      // 5,000 characters (emoji count as one each) are fine.
      assert.equal((await post(poc, ofPoc, { body: '😀'.repeat(5000) })).status, 201);
    });

    test('no session: 401 for reading and writing', async () => {
      assert.equal((await svc.anonymous.get(`/api/projects/${ofPoc}/comments`)).status, 401);
      assert.equal((await svc.anonymous.post(`/api/projects/${ofPoc}/comments`, { body: 'hi' })).status, 401);
    });

    test('a POC who may not see the project gets 404 (reading, writing, internal or not); nothing stored', async () => {
      const before = await count(ofPoc);
      assert.deepEqual((await otherPoc.client.get(`/api/projects/${ofPoc}/comments`)).body, NOT_FOUND);
      for (const json of [{ body: 'hello' }, { body: 'note', internal: true }, { body: '' }]) {
        const res = await post(otherPoc, ofPoc, json);
        assert.deepEqual([res.status, res.body], [404, NOT_FOUND], JSON.stringify(json));
      }
      // A CLIENT who does not own it, likewise; and a project that does not exist.
      assert.equal((await post(clientOwner, ofPoc, { body: 'hello' })).status, 404);
      assert.equal((await admin.client.get('/api/projects/01890000-0000-7000-8000-000000000000/comments')).status, 404);
      assert.equal((await post(admin, '01890000-0000-7000-8000-000000000000', { body: 'x' })).status, 404);
      assert.equal(await count(ofPoc), before);
    });

    test('internal notes: ADMIN and the owner POC may write them; a CLIENT owner gets 403 and nothing is stored', async () => {
      assert.equal((await post(admin, ofPoc, { body: 'admin note', internal: true })).status, 201);
      const own = await post(poc, ofPoc, { body: 'poc note', internal: true });
      assert.equal(own.status, 201);
      assert.equal(own.body.internal, true);
      const before = await count(ofClient);
      const refused = await post(clientOwner, ofClient, { body: 'can I?', internal: true });
      assert.deepEqual([refused.status, refused.body], [403, { error: 'Forbidden' }]);
      assert.equal(await count(ofClient), before);
      // internal: false is an ordinary comment, for anyone who may see the project.
      assert.equal((await post(clientOwner, ofClient, { body: 'ordinary', internal: false })).status, 201);
      assert.equal((await post(admin, ofClient, { body: 'on the client’s project', internal: true })).status, 201);
    });
  });

  test('the thread in pages, oldest first; a bad cursor or limit is 400', async () => {
    const project = (await svc.createProject(poc.user.id)).id;
    const written: string[] = [];
    for (let i = 1; i <= 5; i++) {
      const res = await post(i % 2 ? poc : admin, project, { body: `comment ${i}` });
      assert.equal(res.status, 201);
      written.push(res.body.id);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = await thread(poc, project, `?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      assert.ok(page.items.length <= 2);
      seen.push(...page.items.map((c) => c.id));
      cursor = page.nextCursor;
      pages++;
    } while (cursor);
    assert.equal(pages, 3);
    assert.deepEqual(seen, written);
    assert.deepEqual((await thread(poc, project)).items.map((c) => c.body), ['comment 1', 'comment 2', 'comment 3', 'comment 4', 'comment 5']);
    for (const query of ['?cursor=nonsense', '?limit=0', '?limit=201', '?limit=x']) {
      const res = await poc.client.get(`/api/projects/${project}/comments${query}`);
      assert.equal(res.status, 400, query);
      assert.equal(typeof res.body.error, 'string');
    }
  });

  describe('an internal note never reaches a CLIENT', () => {
    test('list: left out of the CLIENT’s thread, shown to the shop', async () => {
      const note = await post(admin, ofClient, { body: 'list: the shop only', internal: true });
      const open = await post(admin, ofClient, { body: 'list: for everyone' });
      const clients = (await thread(clientOwner, ofClient)).items;
      assert.ok(clients.some((c) => c.id === open.body.id));
      assert.ok(!clients.some((c) => c.internal || c.id === note.body.id));
      assert.ok((await thread(admin2, ofClient)).items.some((c) => c.id === note.body.id));
      // Paging does not bring it back either.
      const paged: string[] = [];
      let cursor: string | null = null;
      do {
        const page = await thread(clientOwner, ofClient, `?limit=1${cursor ? `&cursor=${cursor}` : ''}`);
        paged.push(...page.items.map((c) => c.id));
        cursor = page.nextCursor;
      } while (cursor);
      assert.ok(!paged.includes(note.body.id));
    });

    test('activity: COMMENT_ADDED of an internal note is not in the CLIENT’s activity (nor recent activity), and no entry holds the text', async () => {
      const note = await post(admin, ofClient, { body: 'activity: secret text', internal: true });
      const open = await post(admin, ofClient, { body: 'activity: open text' });
      const entries = async (who: Someone, query = '') => {
        const res = await who.client.get(`/api/activity?entityId=${ofClient}${query}`);
        assert.equal(res.status, 200);
        return res.body.items as { action: string; details: Record<string, unknown>; userId: string }[];
      };
      const forAdmin = await entries(admin2, '&action=COMMENT_ADDED');
      assert.ok(forAdmin.some((e) => e.details.commentId === note.body.id && e.details.internal === true));
      const ofOpen = forAdmin.find((e) => e.details.commentId === open.body.id);
      assert.deepEqual(ofOpen?.details, { commentId: open.body.id, internal: false });
      assert.equal(ofOpen?.userId, admin.user.id);
      const forClient = await entries(clientOwner);
      assert.ok(forClient.some((e) => e.details.commentId === open.body.id));
      assert.ok(!forClient.some((e) => e.details.commentId === note.body.id || e.details.internal === true));
      // The dashboard's recent activity is this list without filters.
      const recent = (await clientOwner.client.get('/api/activity?limit=50')).body.items as { details: Record<string, unknown> }[];
      assert.ok(!recent.some((e) => e.details.internal === true));
      const everything = JSON.stringify((await admin.client.get('/api/activity?limit=200')).body);
      assert.ok(!everything.includes('secret text') && !everything.includes('open text'));
    });

    test('stream: the CLIENT receives nothing at all for an internal note (not even stats-updated); the shop gets both', async () => {
      const clientStream = await openEventStream(clientOwner.client);
      const adminStream = await openEventStream(admin2.client);
      try {
        assert.equal((await post(admin, ofClient, { body: 'stream: shop only', internal: true })).status, 201);
        assert.deepEqual(
          (await adminStream.next(2)).map((e) => e.event),
          ['project-updated', 'stats-updated'],
        );
        assert.equal((await post(admin, ofClient, { body: 'stream: everyone' })).status, 201);
        const events = await clientStream.next(2);
        assert.deepEqual(events.map((e) => [e.event, e.data]), [
          ['project-updated', { channel: 'projects', payload: { id: ofClient } }],
          ['stats-updated', { channel: 'dashboard', payload: {} }],
        ]);
        await adminStream.next(2);
        // Nothing more queued for the CLIENT: the internal note's two events were never written.
        await clientStream.idWithin(300);
        await assert.rejects(clientStream.next(1, 300));
      } finally {
        clientStream.close();
        adminStream.close();
      }
    });

    test('replay: a CLIENT reconnecting with Last-Event-ID is not replayed an internal note; its position does not move for one', async () => {
      const first = await openEventStream(clientOwner.client);
      const lastEventId = await first.idWithin(200);
      first.close();
      assert.ok(lastEventId);
      assert.equal((await post(admin, ofClient, { body: 'replay: shop only', internal: true })).status, 201);
      // Only an internal note since: nothing to replay, and no reset.
      const quiet = await openEventStream(clientOwner.client, '', { 'last-event-id': lastEventId });
      await assert.rejects(quiet.next(1, 400));
      quiet.close();
      assert.equal((await post(admin, ofClient, { body: 'replay: shop only again', internal: true })).status, 201);
      assert.equal((await post(poc, ofPoc, { body: 'someone else’s project' })).status, 201);
      assert.equal((await post(admin, ofClient, { body: 'replay: everyone' })).status, 201);
      const again = await openEventStream(clientOwner.client, '', { 'last-event-id': lastEventId });
      try {
        assert.deepEqual((await again.next(2)).map((e) => [e.event, e.data]), [
          ['project-updated', { channel: 'projects', payload: { id: ofClient } }],
          ['stats-updated', { channel: 'dashboard', payload: {} }],
        ]);
        await assert.rejects(again.next(1, 400));
      } finally {
        again.close();
      }
      // A fresh stream's position is that of the last change the CLIENT may see: an internal note after it moves nothing.
      const fresh = await openEventStream(clientOwner.client);
      const position = await fresh.idWithin(200);
      fresh.close();
      assert.equal((await post(admin, ofClient, { body: 'replay: moves nothing', internal: true })).status, 201);
      const later = await openEventStream(clientOwner.client);
      assert.equal(await later.idWithin(200), position);
      later.close();
    });

    test('email: an internal note is emailed to the shop only, never the CLIENT; an ordinary comment reaches the CLIENT with its text', async () => {
      await settled(svc);
      let from = smtp.received.length;
      assert.equal((await post(admin, ofClient, { body: 'email: the shop only <b>bold</b>', internal: true })).status, 201);
      await settled(svc);
      const toShop = smtp.received.slice(from);
      assert.deepEqual(toShop.map((m) => m.rcptTo.join(',')).sort(), ['abe@example.com']);
      assert.match(toShop[0]!.text, /Internal note by Ann Admin: email: the shop only <b>bold<\/b>/);
      assert.ok(toShop[0]!.html.includes('email: the shop only &#60;b&#62;bold&#60;/b&#62;'), toShop[0]!.html);
      from = smtp.received.length;
      assert.equal((await post(admin, ofClient, { body: 'email: for Cleo too' })).status, 201);
      await settled(svc);
      const mails = smtp.received.slice(from);
      assert.deepEqual(mails.map((m) => m.rcptTo.join(',')).sort(), ['abe@example.com', 'cleo@example.com']);
      const toClient = mails.find((m) => m.rcptTo.includes('cleo@example.com'))!;
      assert.match(toClient.subject, /^New comment: #\d+ Cleo cards$/);
      assert.match(toClient.text, /Comment by Ann Admin: email: for Cleo too/);
      assert.ok(!smtp.received.some((m) => m.rcptTo.includes('cleo@example.com') && /shop only/.test(m.text + m.html)));
    });
  });

  describe('emails', () => {
    test('to everyone else who may see the project, its author excepted; never another POC; category comments can be switched off', async () => {
      await settled(svc);
      let from = smtp.received.length;
      assert.equal((await post(poc, ofPoc, { body: 'From Pia' })).status, 201);
      await settled(svc);
      assert.deepEqual(smtp.received.slice(from).map((m) => m.rcptTo.join(',')).sort(), ['abe@example.com', 'ann@example.com']);

      from = smtp.received.length;
      assert.equal((await post(admin, ofPoc, { body: 'From Ann' })).status, 201);
      await settled(svc);
      assert.deepEqual(smtp.received.slice(from).map((m) => m.rcptTo.join(',')).sort(), ['abe@example.com', 'pia@example.com']);

      // The owner POC sees internal notes: told of one.
      from = smtp.received.length;
      assert.equal((await post(admin, ofPoc, { body: 'Internal for Pia', internal: true })).status, 201);
      await settled(svc);
      assert.deepEqual(smtp.received.slice(from).map((m) => m.rcptTo.join(',')).sort(), ['abe@example.com', 'pia@example.com']);

      const off = await admin2.client.patch('/api/account', { emailPreferences: { comments: false } });
      assert.equal(off.status, 200, off.text);
      assert.equal(off.body.emailPreferences.comments, false);
      from = smtp.received.length;
      assert.equal((await post(poc, ofPoc, { body: 'Abe switched comments off' })).status, 201);
      await settled(svc);
      assert.deepEqual(smtp.received.slice(from).map((m) => m.rcptTo.join(',')), ['ann@example.com']);
      assert.equal((await admin2.client.patch('/api/account', { emailPreferences: { comments: true } })).status, 200);
      assert.ok(!smtp.received.some((m) => m.rcptTo.includes('oscar@example.com')));
    });
  });
});

describe('comment emails are batched like other changes (MAIL_BATCH_SECONDS)', () => {
  let smtp: TestSmtpServer;
  let svc: TestService;
  let close: () => Promise<void>;
  before(async () => ({ smtp, svc, close } = await startMailService(3600)));
  after(() => close?.());

  test('two comments and an upload-free change within the window: one email per recipient, each comment’s text listed in order', async () => {
    const admin = await svc.signIn('ADMIN', { email: 'batch-admin@example.com', name: 'Ann Admin' });
    const client = await svc.signIn('CLIENT', { email: 'batch-client@example.com', name: 'Cleo Client' });
    const id = (await svc.createProject(client.user.id, { name: 'Brochures' })).id;
    assert.equal((await admin.client.post(`/api/projects/${id}/comments`, { body: 'First: which paper?' })).status, 201);
    assert.equal((await admin.client.post(`/api/projects/${id}/comments`, { body: 'Shop only: check stock', internal: true })).status, 201);
    assert.equal((await admin.client.post(`/api/projects/${id}/comments`, { body: 'Second: 300 gsm.' })).status, 201);
    assert.equal(smtp.received.length, 0, 'nothing before the window ends');
    await sendNow(svc);
    const toClient = smtp.received.filter((m) => m.rcptTo.includes('batch-client@example.com'));
    assert.equal(toClient.length, 1);
    assert.match(toClient[0]!.subject, /^2 updates: #\d+ Brochures$/);
    assert.match(toClient[0]!.text, /- Comment by Ann Admin: First: which paper\?\n- Comment by Ann Admin: Second: 300 gsm\.\n/);
    assert.ok(!toClient[0]!.text.includes('check stock'));
    // The admin wrote them all and created nothing: only the project's creation reached them.
    assert.ok(smtp.received.every((m) => !m.rcptTo.includes('batch-admin@example.com') || !/Comment by/.test(m.text)));
  });
});

describe('REALTIME_DRIVER=pusher: an internal note never reaches a CLIENT’s channel, nor a public one', () => {
  let pusher: FakePusher;
  let svc: TestService;
  before(async () => {
    pusher = await startFakePusher();
    // Public channels on: what an ordinary comment goes to, and an internal note must not.
    svc = await startTestService({ env: pusher.env({ PUSHER_PUBLIC_CHANNELS: 'true' }) });
  });
  after(async () => {
    await svc?.close();
    await pusher?.close();
  });

  test('a CLIENT owner’s channel gets the ordinary comment only; the owner POC’s gets the internal note too', async () => {
    const admin = await svc.signIn('ADMIN');
    const client = await svc.signIn('CLIENT');
    const poc = await svc.signIn('POC');
    const ofClient = (await svc.createProject(client.user.id)).id;
    const ofPoc = (await svc.createProject(poc.user.id)).id;
    const sent = async (projectId: string, json: unknown) => {
      const from = pusher.events.length;
      assert.equal((await admin.client.post(`/api/projects/${projectId}/comments`, json)).status, 201);
      return pusher.events.slice(from).map((e) => [e.name, e.channels]);
    };
    assert.deepEqual(await sent(ofClient, { body: 'shop only', internal: true }), [
      ['project-updated', ['private-projects']],
      ['stats-updated', ['private-dashboard']],
    ]);
    assert.deepEqual(await sent(ofClient, { body: 'for everyone' }), [
      ['project-updated', ['private-projects', `private-user-${client.user.id}`, 'projects']],
      ['stats-updated', ['private-dashboard', `private-user-${client.user.id}`, 'dashboard']],
    ]);
    assert.deepEqual(await sent(ofPoc, { body: 'for the owner POC', internal: true }), [
      ['project-updated', ['private-projects', `private-user-${poc.user.id}`]],
      ['stats-updated', ['private-dashboard', `private-user-${poc.user.id}`]],
    ]);
    assert.deepEqual(pusher.refused, []);
  });
});

const REDIS_URL = process.env.REDIS_URL;
describe('REALTIME_DRIVER=redis, two instances: a CLIENT streaming from one gets nothing of an internal note written on the other', { skip: REDIS_URL ? false : 'REDIS_URL not set' }, () => {
  let one: TestService;
  let two: TestService;
  before(async () => {
    const env = { REALTIME_DRIVER: 'redis', REDIS_URL: REDIS_URL!, REDIS_CHANNEL_PREFIX: `test-${newId()}` };
    one = await startTestService({ env });
    two = await startTestService({ env, sharedDatabase: one.deps.config.database });
  });
  after(async () => {
    await two?.close();
    await one?.close();
  });

  test('live: only the ordinary comment’s two events reach the CLIENT’s stream on the other instance', async () => {
    const admin = await one.signIn('ADMIN');
    const { email, password, user } = await one.createUser({ role: 'CLIENT' });
    const client = await two.login(email, password);
    const projectId = (await one.createProject(user.id)).id;
    const stream = await openEventStream(client);
    try {
      assert.equal((await admin.client.post(`/api/projects/${projectId}/comments`, { body: 'shop only', internal: true })).status, 201);
      assert.equal((await admin.client.post(`/api/projects/${projectId}/comments`, { body: 'for everyone' })).status, 201);
      assert.deepEqual((await stream.next(2)).map((e) => [e.event, e.data]), [
        ['project-updated', { channel: 'projects', payload: { id: projectId } }],
        ['stats-updated', { channel: 'dashboard', payload: {} }],
      ]);
      await assert.rejects(stream.next(1, 400));
    } finally {
      stream.close();
    }
  });
});
