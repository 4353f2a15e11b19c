/**
 * GET /api/openapi.json says what the service does: an operation that answers without a session is
 * marked `security: []`, one that answers 401 without it is not (and takes an API token too); the upload's fileType is its three values.
 * It passes Redocly's recommended rules, and every operation has its own stable operationId.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { newId } from '../src/ids.js';
import { type TestService, startTestService } from './helpers/service.js';

let svc: TestService;
type Operation = { operationId?: string; security?: unknown[]; requestBody?: { content: Record<string, { schema: { properties: Record<string, unknown> } }> } };
let paths: Record<string, Record<string, Operation>>;
let text: string;

before(async () => {
  svc = await startTestService({ env: { METRICS_TOKEN: 'metrics-token-for-the-openapi-test' } });
  // Read with fetch: the document names password fields, which the test client refuses in any answer.
  const res = await fetch(`${svc.url}/api/openapi.json`);
  assert.equal(res.status, 200);
  text = await res.text();
  const doc = JSON.parse(text) as { security: unknown; paths: typeof paths };
  assert.deepEqual(doc.security, [{ session: [] }], 'the session cookie is the default');
  paths = doc.paths;
});
after(() => svc?.close());

/** A concrete path for a documented one: any id, the first lifecycle action, any file. */
const concrete = (path: string) => path.replace('{id}', newId()).replace('{action}', 'approve').replace('{path}', 'print-orders/x/po/po_1.pdf');

test('an operation that answers without a session is marked security: [], one that answers 401 is not', async () => {
  const open: string[] = [];
  for (const [path, operations] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const res = await svc.anonymous.request(method.toUpperCase(), concrete(path));
      const name = `${method.toUpperCase()} ${path}`;
      if (res.status === 401) {
        assert.notDeepEqual(operation.security, [], `${name} answers 401 without a session but says it needs none`);
      } else {
        assert.deepEqual(operation.security, [], `${name} answers ${res.status} without a session but is marked as needing one`);
        open.push(name);
      }
    }
  }
  assert.deepEqual(open.sort(), [
    'GET /api/proof-links/{token}',
    'GET /api/proof-links/{token}/file',
    'GET /api/proof-links/{token}/preview',
    'GET /api/setup',
    'GET /files/{path}',
    'GET /healthz',
    'GET /readyz',
    'POST /api/auth/forgot-password',
    'POST /api/auth/login',
    'POST /api/auth/logout',
    'POST /api/auth/reset-password',
    'POST /api/proof-links/{token}/approve',
    'POST /api/proof-links/{token}/request-changes',
    'POST /api/setup',
  ]);
  // /metrics asks for its own bearer token, not a session.
  assert.deepEqual(paths['/metrics']?.get?.security, [{ metricsToken: [] }]);
});

test('every operation that takes a session takes an API token (bearerAuth) too, but making a token', async () => {
  const doc = (await (await fetch(`${svc.url}/api/openapi.json`)).json()) as { components: { securitySchemes: Record<string, unknown> } };
  assert.deepEqual(doc.components.securitySchemes.bearerAuth, {
    type: 'http',
    scheme: 'bearer',
    description: 'An API token (pos_…), made on My account or with the CLI: wherever the session cookie works; a read token only GET and HEAD',
  });
  let checked = 0;
  for (const [path, operations] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const name = `${method.toUpperCase()} ${path}`;
      if (!operation.security?.some((s) => JSON.stringify(s) === '{"session":[]}')) continue;
      if (name === 'POST /api/account/tokens') assert.deepEqual(operation.security, [{ session: [] }], name);
      else assert.deepEqual(operation.security, [{ session: [] }, { bearerAuth: [] }], name);
      checked++;
    }
  }
  assert.ok(checked > 20, `${checked} operations`);
  assert.deepEqual(paths['/api/upload']?.post?.security, [{ session: [] }, { bearerAuth: [] }]);
  assert.deepEqual(paths['/api/team']?.get?.security, [{ session: [] }, { bearerAuth: [] }]);
});

test('POST /api/upload documents fileType as its three values', () => {
  const form = paths['/api/upload']?.post?.requestBody?.content['multipart/form-data'];
  assert.ok(form, 'a multipart/form-data body');
  assert.deepEqual(form.schema.properties.fileType, { type: 'string', enum: ['PO', 'CHALLAN', 'INVOICE'] });
});

test('projects document the job: its fields in answers and bodies, the list’s piStatus, due and sort', () => {
  type Schema = { type?: unknown; properties?: Record<string, Schema>; items?: Schema; enum?: string[]; format?: string; maxItems?: number; minimum?: number; maximum?: number };
  type Parameter = { name: string; in: string; schema: Schema };
  const list = paths['/api/projects']?.get as unknown as { parameters: Parameter[]; responses: Record<string, { content: Record<string, { schema: Schema }> }> };
  const query = Object.fromEntries(list.parameters.filter((p) => p.in === 'query').map((p) => [p.name, p.schema]));
  assert.deepEqual(query.due?.enum, ['overdue', 'today', 'week']);
  assert.deepEqual(query.sort?.enum, ['newest', 'due', 'priority']);
  assert.deepEqual(query.piStatus?.enum, ['PENDING', 'SUBMITTED', 'VERIFIED', 'REJECTED']);
  const project = list.responses['200']!.content['application/json']!.schema.properties!.items!.items!;
  for (const field of ['reference', 'dueDate', 'deliveryAddress', 'overdue', 'items']) assert.ok(project.properties?.[field], `the project answer names ${field}`);
  assert.equal(project.properties!.dueDate!.format, 'date');
  assert.deepEqual(Object.keys(project.properties!.items!.items!.properties!), ['id', 'description', 'quantity', 'unit', 'size', 'stock', 'colours', 'finishing', 'notes', 'unitPrice', 'hsnSac', 'gstRate']);
  for (const [path, method] of [['/api/projects', 'post'], ['/api/projects/{id}', 'patch'], ['/api/projects/{id}/details', 'patch']] as const) {
    const body = paths[path]?.[method]?.requestBody?.content['application/json']?.schema.properties as Record<string, Schema> | undefined;
    assert.ok(body, `${method.toUpperCase()} ${path} has a JSON body`);
    for (const field of ['reference', 'dueDate', 'deliveryAddress', 'items']) assert.ok(body[field], `${method.toUpperCase()} ${path} takes ${field}`);
    assert.equal(body.items!.maxItems, 50);
    assert.deepEqual([body.items!.items!.properties!.quantity!.minimum, body.items!.items!.properties!.quantity!.maximum], [1, 10_000_000]);
  }
});

/**
 * Warnings of the recommended rules we keep, each for its reason. Anything else, error or warning,
 * fails the test: a new route is documented as well as the others or not merged.
 */
const JUSTIFIED: { rule: string; pointer: string; why: string }[] = [
  { rule: 'info-license-strict', pointer: '#/info/license/url', why: 'the service is the shop’s own and unpublished: there is no licence text at an address to link to' },
  { rule: 'operation-4xx-response', pointer: '#/paths/~1healthz/get/responses', why: 'a liveness probe answers 200, or 503 while shutting down; nothing the caller sends is wrong' },
  { rule: 'operation-4xx-response', pointer: '#/paths/~1readyz/get/responses', why: 'a readiness probe answers 200 or 503 (naming the dependency); nothing the caller sends is wrong' },
  { rule: 'operation-4xx-response', pointer: '#/paths/~1api~1setup/get/responses', why: 'whether setup is needed is answered 200 to anyone, with or without a session; it takes nothing the caller could send wrong' },
];

test("the document passes Redocly's recommended rules (but the justified warnings)", async () => {
  const config = await createConfig({ extends: ['recommended'] });
  const problems = await lintFromString({ source: text, absoluteRef: 'openapi.json', config });
  const left = problems
    .filter((p) => !JUSTIFIED.some((j) => j.rule === p.ruleId && p.location.some((l) => l.pointer === j.pointer)))
    .map((p) => `${p.severity} ${p.ruleId}: ${p.message} (${p.location.map((l) => l.pointer).join(', ')})`);
  assert.deepEqual(left, [], `GET /api/openapi.json fails Redocly's recommended rules:\n${left.join('\n')}`);
  // A justification that no longer applies goes too.
  for (const j of JUSTIFIED) assert.ok(problems.some((p) => p.ruleId === j.rule), `${j.rule} at ${j.pointer} no longer needs justifying: remove it`);
});

test('every operation has an operationId: camelCase, unique, servers and licence said', () => {
  const doc = JSON.parse(text) as { servers?: { url: string }[]; info: { license?: { name: string } } };
  assert.deepEqual(doc.servers?.map((s) => s.url), [svc.url], 'servers: PUBLIC_URL');
  assert.ok(doc.info.license?.name);
  const missing: string[] = [];
  const seen = new Map<string, string>();
  for (const [path, operations] of Object.entries(paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      const name = `${method.toUpperCase()} ${path}`;
      const id = operation.operationId;
      if (!id) {
        missing.push(name);
        continue;
      }
      assert.match(id, /^[a-z][a-zA-Z0-9]*$/, `${name}'s operationId ${id} is not camelCase`);
      assert.equal(seen.get(id), undefined, `${name} and ${seen.get(id)} share the operationId ${id}`);
      seen.set(id, name);
    }
  }
  assert.deepEqual(missing, [], `operations without an operationId: name each in src/http/openapi.ts (OPERATION_IDS) or in its route's schema; never rename one:\n${missing.join('\n')}`);
  // Client generators' names for integrators' code: these stay as they are.
  assert.equal(paths['/api/projects']?.get?.operationId, 'listProjects');
  assert.equal(paths['/api/upload']?.post?.operationId, 'uploadDocument');
  assert.equal(paths['/api/resumable-uploads/{id}']?.patch?.operationId, 'continueResumableUpload');
  assert.equal(paths['/api/resumable-uploads/{id}']?.delete?.operationId, 'cancelResumableUpload');
});
