/**
 * A body made from one shared read of a project's documents (bodyWithDocuments) is byte for byte the
 * body webhookBody makes from the documents as they stood at the event's time: for events before,
 * between and after uploads, a repeated upload (a duplicate) and a withdrawal, on a real database.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type TestService, startTestService } from '../../test/helpers/service.js';
import { documentsAsOf } from '../domain/webhooks.js';
import { webhookBody } from '../presenters/webhooks.js';
import { bodyWithDocuments } from './body.js';

let svc: TestService;
before(async () => {
  svc = await startTestService();
});
after(async () => {
  await svc?.close();
});

test('the same bytes as webhookBody, for every event time, with one JSON per document shared by all', async () => {
  const admin = await svc.signIn('ADMIN');
  const project = (await admin.client.post('/api/projects', { name: 'Shared read' })).body.id as string;
  assert.equal((await admin.client.post(`/api/projects/${project}/approve`, {})).status, 200);
  const times: string[] = [new Date().toISOString()];
  const ids: string[] = [];
  for (const [filename, data] of [['a.pdf', '%PDF-1.4 one'], ['b.pdf', '%PDF-1.4 two'], ['c.pdf', '%PDF-1.4 one'], ['d.pdf', '%PDF-1.4 one']]) {
    await new Promise((r) => setTimeout(r, 5));
    const res = await admin.client.upload([['projectId', project], ['fileType', 'PO'], ['file', { data: data!, filename: filename!, type: 'application/pdf' }]]);
    assert.equal(res.status, 201, res.text);
    ids.push(res.body.id as string);
    await new Promise((r) => setTimeout(r, 5));
    times.push(new Date().toISOString());
  }
  // The first of the repeated bytes withdrawn: before that, c and d repeat a; after it, d repeats c.
  assert.equal((await admin.client.post(`/api/projects/${project}/files/${ids[0]}/void`, { reason: 'wrong' })).status, 200);
  await new Promise((r) => setTimeout(r, 5));
  times.push(new Date().toISOString());
  const store = svc.deps.store;
  const files = await store.files.listForProject(project);
  const withNames = await store.projects.findWithNames(project);
  const access = { mode: 'private' as const, publicUrl: 'https://shop.example' };
  for (const withDuplicates of [true, false]) {
    const shared = { json: new Map<string, string>() } as Parameters<typeof bodyWithDocuments>[2];
    // Without the withdrawal in the read, the duplicates of the whole list serve every event.
    const read = withDuplicates ? files : files.map((f) => ({ ...f, voidedAt: null, voidedById: null, voidReason: null, voidedByName: null }));
    for (const [i, at] of times.entries()) {
      const event = { id: `event-${i}`, type: 'document.uploaded', createdAt: at, payload: { action: 'FILE_UPLOADED', actorId: admin.user.id, details: { n: i }, project: withNames, payments: [], fileId: ids[Math.max(0, i - 1)] } };
      const expected = webhookBody(event, documentsAsOf(read, at), 'Asia/Kolkata', access);
      assert.equal(bodyWithDocuments(event, read, shared, access, 'Asia/Kolkata'), expected, `event ${i}`);
    }
    assert.ok(shared.json.size < times.length * files.length, 'documents presented once for many events');
  }
  const last = JSON.parse(bodyWithDocuments({ id: 'e', type: 'document.voided', createdAt: times.at(-1)!, payload: { action: 'FILE_VOIDED', actorId: null, details: {}, project: withNames, fileId: ids[3] } }, files, { json: new Map() }, access, 'UTC'));
  assert.deepEqual(
    last.data.project.files.map((f: { filename: string; duplicateOf: { filename: string } | null }) => [f.filename, f.duplicateOf?.filename ?? null]),
    [['d.pdf', 'c.pdf'], ['c.pdf', null], ['b.pdf', null], ['a.pdf', null]],
  );
});
