/**
 * Unknown query parameters, over real HTTP on both databases: every GET added with the board, the
 * calendar, the priority sort, the job ticket, the money documents and the reports refuses a
 * parameter it does not name as GET /api/board always has, `400 {"error": "querystring.<name> is
 * not a known field"}` (http/schemas.ts QueryOf, NoQuery), and answers as before with the ones it
 * names. The specification's GET /api/team keeps its own behaviour.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type Client, type TestService, startTestService } from './helpers/service.js';

let svc: TestService;
let admin: Client;
let pocId: string;
let projectId: string;

before(async () => {
  svc = await startTestService();
  const [a, poc] = await Promise.all([svc.signIn('ADMIN'), svc.signIn('POC')]);
  admin = a.client;
  pocId = poc.user.id;
  projectId = (await svc.createProject(pocId, { name: 'Wedding cards', status: 'APPROVED', dueDate: '2026-12-10' })).id;
});
after(() => svc?.close());

/** Each route with a query it names, and what that answers (the PI of a job without prices: 409). */
const routes = (): [string, string, string, number][] => [
  ['the board', '/api/board', `pocId=${pocId}`, 200],
  ['the projects list', '/api/projects', 'status=APPROVED&limit=10', 200],
  ['the calendar’s range', '/api/projects', 'dueFrom=2026-12-01&dueTo=2026-12-31&sort=due', 200],
  ['the priority sort', '/api/projects', 'sort=priority&held=false&rush=false', 200],
  ['the projects CSV', '/api/projects.csv', 'sort=priority&q=Wedding', 200],
  ['the reports', '/api/reports', 'from=2026-01-01&to=2026-11-30', 200],
  ['a report’s CSV', '/api/reports.csv', 'report=byMonth&from=2026-01-01&to=2026-11-30', 200],
  ['the invoice register', '/api/invoices', 'from=2026-04-01&limit=10', 200],
  ['the invoice register’s CSV', '/api/invoices.csv', 'from=2026-04-01&to=2027-03-31', 200],
  ['the job ticket', `/api/projects/${projectId}/ticket.pdf`, '', 200],
  ['the PI’s PDF', `/api/projects/${projectId}/pi.pdf`, '', 409],
  ['the shop’s settings', '/api/settings/shop', '', 200],
  ['a project’s proofs', `/api/projects/${projectId}/proofs`, '', 200],
];

test('each route answers as before with the parameters it names', async () => {
  for (const [what, path, query, status] of routes()) {
    const res = await admin.get(query ? `${path}?${query}` : path);
    assert.equal(res.status, status, `${what}: ${res.text.slice(0, 200)}`);
  }
});

test('an unknown parameter, alone or beside known ones, is 400 naming it, as GET /api/board answers', async () => {
  for (const [what, path, query] of routes()) {
    for (const [extra, name] of [['colour=red', 'colour'], ['stauts=APPROVED', 'stauts'], ['cursor2=', 'cursor2']]) {
      const res = await admin.get(`${path}?${query ? `${query}&` : ''}${extra}`);
      assert.deepEqual([res.status, res.body], [400, { error: `querystring.${name} is not a known field` }], `${what} with ${extra}`);
    }
  }
});

test('who may not use a route is told so first: no session 401 before the query is looked at', async () => {
  for (const [what, path] of routes()) {
    assert.equal((await svc.anonymous.get(`${path}?colour=red`)).status, 401, what);
  }
});

test('the specification’s GET /api/team keeps its answer: its listed parameters, others not refused', async () => {
  const res = await admin.get('/api/team?colour=red');
  assert.equal(res.status, 200, res.text);
  assert.ok(Array.isArray(res.body));
});
