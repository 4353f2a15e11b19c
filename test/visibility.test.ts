import { sql } from 'kysely';
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { migrate, openDatabase, type Database } from '../src/db/index.js';
import { type Store, createStore } from '../src/db/store.js';
import { internalShownTo, seeingInternal, viewersOf, visibleEntries, visibleTo } from '../src/db/visibility.js';
import type { Project } from '../src/domain/model.js';
import { type ProjectScope, type Viewer, maySeeEntry, maySeeProject, seesInternal } from '../src/domain/visibility.js';
import { newId } from '../src/ids.js';
import { silentLog } from '../src/logger.js';
import { testConfig } from './helpers/service.js';
import { CUSTOMERS, type CustomerName, PROJECTS, type ProjectName, VIEWERS, type ViewerName, projectNames, viewerNames } from './helpers/visibility-cases.js';

/**
 * The visibility rule's SQL twin (src/db/visibility.ts), and every repository query that scopes by
 * it, run on a real database (SQLite, or PostgreSQL under TEST_DB=postgres) over the cases of the
 * rule's table test: each must choose exactly the rows the pure rule (src/domain/visibility.ts) allows.
 */

let database: Database;
let store: Store;
let cleanup: () => Promise<void>;
const viewers = {} as Record<ViewerName, Viewer>;
const userIds = {} as Record<ViewerName, string>;
const projectIds = {} as Record<ProjectName, string>;
const customerIds = {} as Record<CustomerName, string>;
/** What the pure rule reads of each project (null: gone). */
const scopes = {} as Record<ProjectName, ProjectScope | null>;
const NOT_A_PROJECT = newId();
/** "Today" for the due filters and counts: every project is due before it. */
const DAY = '2026-03-10';

const names = <K extends string>(ids: Record<K, string>, found: Iterable<string>): K[] => {
  const byId = new Map(Object.entries(ids).map(([k, id]) => [id, k as K]));
  return [...found].map((id) => byId.get(id) ?? (id as K)).sort();
};
const expectedProjects = (v: ViewerName, among = projectNames) => among.filter((p) => maySeeProject(viewers[v], scopes[p])).sort();
const existing = projectNames.filter((p) => PROJECTS[p] !== null);
/** The entries the pure rule lets a viewer see, as "<entity id> <internal>": each project's ordinary and internal one, and the one about something else. */
const expectedEntries = (v: ViewerName) =>
  [
    ...projectNames.flatMap((p) => [false, true].filter((internal) => maySeeEntry(viewers[v], { entityType: 'project', internal }, scopes[p])).map((internal) => `${projectIds[p]} ${internal}`)),
    ...(maySeeEntry(viewers[v], { entityType: 'user' }, null) ? [`${NOT_A_PROJECT} false`] : []),
  ].sort();

before(async () => {
  const made = await testConfig();
  cleanup = made.cleanup;
  database = await openDatabase(made.config.database, silentLog);
  await migrate(database);
  store = createStore(database);
  const now = new Date().toISOString();
  for (const name of CUSTOMERS) {
    customerIds[name] = newId();
    await store.customers.insert({ id: customerIds[name], name, gstin: null, email: null, phone: null, billingAddress: null, active: true, createdAt: now, updatedAt: now });
  }
  const customerOf = (c: CustomerName | null) => (c === null ? null : customerIds[c]);
  for (const name of viewerNames) {
    const user = await store.users.insert(
      newId(),
      { name, email: `${name}@example.com`, passwordHash: 'not used', phone: null, role: VIEWERS[name].role, location: null, branch: null },
      now,
    );
    const customerId = customerOf(VIEWERS[name].customer);
    if (customerId) await store.users.update(user.id, { customerId }, now);
    viewers[name] = { id: user.id, role: user.role, customerId };
    userIds[name] = user.id;
  }
  for (const name of projectNames) {
    projectIds[name] = newId();
    const p = PROJECTS[name];
    scopes[name] = p === null ? null : { pocId: viewers[p.owner].id, customerId: customerOf(p.customer) };
    if (p === null) continue;
    const owner = p.owner;
    const project: Project = {
      id: projectIds[name],
      name,
      description: null,
      pocId: viewers[owner].id,
      // A rejected request, so that every dashboard figure counts it.
      status: 'REQUESTED',
      piStatus: 'PENDING',
      approval: { status: 'REJECTED', note: null, decidedById: viewers.admin.id, decidedAt: now },
      customerId: customerOf(p.customer),
      createdAt: now,
      updatedAt: now,
      number: 1,
      rush: false,
      hold: null,
      repeatOfId: null,
    };
    // Overdue on DAY (below), so that the due filters and counts choose it too.
    await store.projects.insert({ ...project, dueDate: '2026-01-01' });
    await store.files.insert({
      id: newId(),
      projectId: project.id,
      type: 'PO',
      url: `/files/${name}.pdf`,
      filename: `${name}.pdf`,
      size: 1,
      contentType: 'application/pdf',
      storageKey: `${project.id}/${name}.pdf`,
      uploadedById: viewers[owner].id,
      createdAt: now,
      sha256: null,
      detectedType: null,
    });
  }
  // One entry about each project (the gone one's included), and one about something else.
  for (const name of projectNames) {
    await store.activity.insert({ id: newId(), userId: viewers.admin.id, action: 'PROJECT_UPDATED', entityType: 'project', entityId: projectIds[name], details: {}, createdAt: now });
  }
  // An internal note's entry about each project, and a comment of each kind on each existing one.
  for (const name of projectNames) {
    await store.activity.insert({ id: newId(), userId: viewers.admin.id, action: 'COMMENT_ADDED', entityType: 'project', entityId: projectIds[name], details: { internal: true }, createdAt: now, internal: true });
  }
  for (const name of existing) {
    for (const internal of [false, true]) {
      await store.comments.insert({ id: newId(), projectId: projectIds[name], authorId: viewers.admin.id, body: `${name} ${internal}`, internal, createdAt: now });
    }
  }
  // Not an action the service writes (the repository takes only those): straight into the table, as an older version could have left it.
  await database.db
    .insertInto('activity_log')
    .values({ id: newId(), seq: sql<number>`(select coalesce(max(seq), 0) + 1 from activity_log)`, user_id: viewers.admin.id, action: 'USER_CHANGED', entity_type: 'user', entity_id: NOT_A_PROJECT, details: '{}', created_at: now })
    .execute();
});

after(async () => {
  await database?.destroy();
  await cleanup?.();
});

describe('the SQL twin agrees with the rule', () => {
  for (const v of viewerNames) {
    test(`visibleTo(${v}): the projects the rule lets them see`, async () => {
      const rows = await database.db.selectFrom('projects').select('projects.id').where(visibleTo(viewers[v])).execute();
      assert.deepEqual(names(projectIds, rows.map((r) => r.id)), expectedProjects(v, existing));
    });

    test(`visibleTo(${v}) over a LEFT JOIN: a project that is gone only for who sees everything`, async () => {
      const rows = await database.db
        .selectFrom('activity_log')
        .leftJoin('projects', 'projects.id', 'activity_log.entity_id')
        .select('activity_log.entity_id')
        .distinct()
        .where('activity_log.entity_type', '=', 'project')
        .where(visibleTo(viewers[v]))
        .execute();
      assert.deepEqual(names(projectIds, rows.map((r) => r.entity_id)), expectedProjects(v));
    });

    test(`visibleEntries(${v}): the activity entries the rule lets them see (internal notes' too)`, async () => {
      const rows = await database.db.selectFrom('activity_log').select(['entity_type', 'entity_id', 'internal']).where(visibleEntries(viewers[v])).execute();
      assert.deepEqual(rows.map((r) => `${r.entity_id} ${Boolean(r.internal)}`).sort(), expectedEntries(v));
    });

    test(`internalShownTo(${v}): a project's comments, internal ones only for who sees them`, async () => {
      const rows = await database.db.selectFrom('comments').select(['project_id', 'internal']).where(internalShownTo(viewers[v])).execute();
      const expected = existing.flatMap((p) => [`${p} false`, ...(seesInternal(viewers[v]) ? [`${p} true`] : [])]);
      assert.deepEqual(rows.map((r) => `${names(projectIds, [r.project_id])[0]} ${Boolean(r.internal)}`).sort(), expected.sort());
    });
  }

  for (const p of existing) {
    test(`viewersOf(${p}): the users the rule lets see it`, async () => {
      const rows = await database.db.selectFrom('users').select('users.id').where(viewersOf(scopes[p]!)).execute();
      const expected = viewerNames.filter((v) => maySeeProject(viewers[v], scopes[p]!)).sort();
      assert.deepEqual(names(userIds, rows.map((r) => r.id)), expected);
    });
  }
});

describe('every scoped repository query chooses by the rule', () => {
  for (const v of viewerNames) {
    test(`${v}: project list (both orders, due filter), dashboard figures, activity list, realtime log reads`, async () => {
      const viewer = viewers[v];
      const sees = expectedProjects(v, existing);

      const list = await store.projects.list(viewer, { limit: 50 });
      assert.deepEqual(names(projectIds, list.items.map((p) => p.id)), sees);
      const byDue = await store.projects.list(viewer, { limit: 50, sort: 'due' });
      assert.deepEqual(names(projectIds, byDue.items.map((p) => p.id)), sees);
      const overdue = await store.projects.list(viewer, { limit: 50, sort: 'due', dueRange: { before: DAY } });
      assert.deepEqual(names(projectIds, overdue.items.map((p) => p.id)), sees);
      assert.deepEqual(await store.stats.dueCounts(viewer, DAY, '2026-03-16'), { overdue: sees.length, today: 0, week: 0 });

      assert.deepEqual(await store.stats.projectsByStatus(viewer), sees.length ? { REQUESTED: sees.length } : {});
      assert.equal(await store.stats.rejectedRequests(viewer), sees.length);
      assert.deepEqual(await store.stats.documentsByType(viewer), sees.length ? { PO: sees.length } : {});

      const activity = await store.activity.list(viewer, { limit: 50 });
      assert.deepEqual(activity.items.map((e) => `${e.entityId} ${e.details.internal === true}`).sort(), expectedEntries(v));

      const changes = await store.activity.changesAfter(0, 50, viewer);
      assert.deepEqual(changes.map((c) => `${c.projectId} ${c.internal}`).sort(), expectedEntries(v).filter((e) => !e.startsWith(NOT_A_PROJECT)));
      for (const c of changes) assert.ok(maySeeEntry(viewer, { entityType: 'project', internal: c.internal }, c.project));

      for (const p of existing) {
        const thread = maySeeProject(viewer, scopes[p]) ? await store.comments.list(viewer, projectIds[p], { limit: 50 }) : { items: [] };
        const expected = maySeeProject(viewer, scopes[p]) ? [false, ...(seesInternal(viewer) ? [true] : [])] : [];
        assert.deepEqual(thread.items.map((c) => c.internal), expected, `${p}'s comments`);
      }
      const latest = await store.activity.latestSeqFor(viewer, Number.MAX_SAFE_INTEGER);
      const newestSeen = Math.max(0, ...changes.filter((c) => c.project !== null).map((c) => c.seq));
      assert.equal(latest, newestSeen);
    });
  }

  test('the hub’s unscoped log read hands every change with what the rule reads of its project', async () => {
    const changes = await store.activity.changesAfter(0, 50);
    assert.deepEqual(names(projectIds, changes.map((c) => c.projectId)), [...projectNames, ...projectNames].sort());
    for (const c of changes) assert.deepEqual(c.project, scopes[names(projectIds, [c.projectId])[0]!]);
  });

  for (const p of existing) {
    test(`${p}: the emails' recipients are among those who may see it`, async () => {
      // Everyone the audience names but someone who is not a user: nobody is excepted.
      const told = await store.outbox.recipients({ admins: true, poc: true, project: scopes[p]!, category: 'progress', exceptId: NOT_A_PROJECT });
      assert.deepEqual(names(userIds, told), viewerNames.filter((v) => maySeeProject(viewers[v], scopes[p]!)).sort());
      // A comment's: everyone who may see it; an internal one's, those of them who see internal notes.
      const all = await store.outbox.recipients({ admins: false, poc: false, viewers: true, project: scopes[p]!, category: 'comments', exceptId: NOT_A_PROJECT });
      assert.deepEqual(names(userIds, all), viewerNames.filter((v) => maySeeProject(viewers[v], scopes[p]!)).sort());
      const shop = await store.outbox.recipients({ admins: false, poc: false, viewers: true, shopOnly: true, project: scopes[p]!, category: 'comments', exceptId: NOT_A_PROJECT });
      assert.deepEqual(names(userIds, shop), viewerNames.filter((v) => maySeeProject(viewers[v], scopes[p]!) && seesInternal(viewers[v])).sort());
    });

    test(`${p}: seeingInternal chooses the users who see internal notes`, async () => {
      const rows = await database.db.selectFrom('users').select('users.id').where(seeingInternal).execute();
      assert.deepEqual(names(userIds, rows.map((r) => r.id)), viewerNames.filter((v) => seesInternal(viewers[v])).sort());
    });
  }

  test('the service’s own reads ({ all: true }) see every row', async () => {
    const list = await store.projects.list({ all: true }, { limit: 50 });
    assert.deepEqual(names(projectIds, list.items.map((p) => p.id)), [...existing].sort());
    const activity = await store.activity.list({ all: true }, { limit: 50 });
    assert.equal(activity.items.length, 2 * projectNames.length + 1);
  });
});
