import assert from 'node:assert/strict';
import { test } from 'node:test';
import Fastify, { errorCodes } from 'fastify';
import { AppError } from '../errors.js';
import { type FailureRule, isFrameworkRefusal, registerErrorHandling } from './error-handler.js';

/** An error as Fastify's plugins make them (@fastify/error): a code and a status. */
const coded = (code: string, statusCode: number, message: string) => Object.assign(new Error(message), { code, statusCode });

const UPLOAD: FailureRule = { message: 'Upload failed', exposeMessage: true };
const TEAM_POST: FailureRule = { message: 'Failed to create team member', exposeMessage: true, malformedJson: true };

test('isFrameworkRefusal: a 4xx with a Fastify code is the caller’s, except malformed JSON where the route’s rule says so', () => {
  const cases: [string, Parameters<typeof isFrameworkRefusal>[0], FailureRule | undefined, boolean][] = [
    ['body too large', new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE(), UPLOAD, true],
    ['no parser for the type', new errorCodes.FST_ERR_CTP_INVALID_MEDIA_TYPE(), UPLOAD, true],
    ['a multipart limit (@fastify/multipart)', coded('FST_PARTS_LIMIT', 413, 'reach parts limit'), UPLOAD, true],
    ['a multipart prototype key', coded('FST_PROTO_VIOLATION', 400, 'prototype property is not allowed as field name'), UPLOAD, true],
    ['malformed JSON, route without the rule', new errorCodes.FST_ERR_CTP_INVALID_JSON_BODY(), UPLOAD, true],
    ['malformed JSON, no failure rule', new errorCodes.FST_ERR_CTP_INVALID_JSON_BODY(), undefined, true],
    ['malformed JSON on team POST', new errorCodes.FST_ERR_CTP_INVALID_JSON_BODY(), TEAM_POST, false],
    ['empty JSON body on team POST', new errorCodes.FST_ERR_CTP_EMPTY_JSON_BODY(), TEAM_POST, false],
    ['too large on team POST', new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE(), TEAM_POST, true],
    ['a Fastify 5xx', coded('FST_FILE_BUFFER_NOT_FOUND', 500, 'the file buffer was not found'), UPLOAD, false],
    ['a storage failure carrying a 4xx', coded('AccessDenied', 403, 'Access Denied'), UPLOAD, false],
    ['a 4xx without a code', { statusCode: 400 }, UPLOAD, false],
    ['no status', { code: 'FST_SOMETHING' }, UPLOAD, false],
  ];
  for (const [what, err, rule, expected] of cases) assert.equal(isFrameworkRefusal(err, rule), expected, what);
});

test('over HTTP: on a route with a failure rule, a framework refusal keeps its 4xx; failures get the rule’s 500', async () => {
  const app = Fastify({ logger: false });
  registerErrorHandling(app);
  const errorsByName: Record<string, Error> = {
    parts: coded('FST_PARTS_LIMIT', 413, 'reach parts limit'),
    json: new errorCodes.FST_ERR_CTP_INVALID_JSON_BODY(),
    storage: coded('AccessDenied', 403, 'Access Denied'),
    plain: new Error(''),
    app: new AppError(404, 'Project not found'),
  };
  for (const [path, rule] of [
    ['/upload', UPLOAD],
    ['/team', TEAM_POST],
  ] as const) {
    app.get(`${path}/:name`, { config: { failure: rule } }, async (req) => {
      throw errorsByName[(req.params as { name: string }).name];
    });
  }
  await app.listen({ port: 0, host: '127.0.0.1' });
  try {
    const { port } = app.server.address() as { port: number };
    const cases: [string, number, unknown][] = [
      ['/upload/parts', 413, { error: 'reach parts limit' }],
      ['/upload/json', 400, { error: "Body is not valid JSON but content-type is set to 'application/json'" }],
      ['/upload/storage', 500, { error: 'Access Denied' }],
      ['/upload/plain', 500, { error: 'Upload failed' }],
      ['/upload/app', 404, { error: 'Project not found' }],
      ['/team/parts', 413, { error: 'reach parts limit' }],
      ['/team/json', 500, { error: "Body is not valid JSON but content-type is set to 'application/json'" }],
      ['/team/plain', 500, { error: 'Failed to create team member' }],
    ];
    for (const [path, status, body] of cases) {
      const res = await fetch(`http://127.0.0.1:${port}${path}`);
      assert.deepEqual([res.status, await res.json()], [status, body], path);
      assert.match(res.headers.get('content-type') ?? '', /^application\/json/, path);
    }
  } finally {
    await app.close();
  }
});

test('over HTTP: a dependency out of reach answers 503 with Retry-After, except where the specification fixes the 500', async () => {
  const app = Fastify({ logger: false });
  registerErrorHandling(app);
  const refused = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
  const routes: [string, FailureRule | undefined][] = [
    ['/plain', undefined],
    ['/resumable', { message: 'Upload failed', exposeMessage: true }],
    ['/upload', { ...UPLOAD, specified: true }],
    ['/team', { message: 'Failed to fetch team members', exposeMessage: false, specified: true }],
  ];
  for (const [path, rule] of routes) {
    app.get(path, { config: rule ? { failure: rule } : {} }, async () => {
      throw refused();
    });
  }
  app.get('/bug', async () => {
    throw new TypeError('x is undefined');
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  try {
    const { port } = app.server.address() as { port: number };
    const unavailable = { error: 'Service temporarily unavailable' };
    const cases: [string, number, unknown, string | null][] = [
      ['/plain', 503, unavailable, '5'],
      ['/resumable', 503, unavailable, '5'],
      ['/upload', 500, { error: 'connect ECONNREFUSED 127.0.0.1:5432' }, null],
      ['/team', 500, { error: 'Failed to fetch team members' }, null],
      ['/bug', 500, { error: 'Internal server error' }, null],
    ];
    for (const [path, status, body, retryAfter] of cases) {
      const res = await fetch(`http://127.0.0.1:${port}${path}`);
      assert.deepEqual([res.status, await res.json(), res.headers.get('retry-after')], [status, body, retryAfter], path);
    }
  } finally {
    await app.close();
  }
});
