import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isDependencyUnavailable } from './outage.js';

const withCode = (message: string, code: string, extra: Record<string, unknown> = {}) => Object.assign(new Error(message), { code }, extra);
const named = (message: string, name: string) => Object.assign(new Error(message), { name });

test('isDependencyUnavailable: an unreachable or timed-out database or Redis, however wrapped, and nothing else', () => {
  const cases: [string, unknown, boolean][] = [
    // Node sockets (pg and ioredis connecting or mid-query)
    ['refused', withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'), true],
    ['reset', withCode('read ECONNRESET', 'ECONNRESET'), true],
    ['connect timed out', withCode('connect ETIMEDOUT 10.0.0.1:5432', 'ETIMEDOUT'), true],
    ['broken pipe', withCode('write EPIPE', 'EPIPE'), true],
    ['no route', withCode('connect EHOSTUNREACH', 'EHOSTUNREACH'), true],
    ['DNS not answering', withCode('getaddrinfo EAI_AGAIN db', 'EAI_AGAIN'), true],
    ['every address refused (AggregateError)', Object.assign(new AggregateError([withCode('connect ECONNREFUSED ::1:5432', 'ECONNREFUSED')], ''), {}), true],
    // PostgreSQL SQLSTATEs
    ['admin shutdown 57P01', withCode('terminating connection due to administrator command', '57P01'), true],
    ['crash shutdown 57P02', withCode('terminating connection because of crash of another server process', '57P02'), true],
    ['starting up 57P03', withCode('the database system is starting up', '57P03'), true],
    ['too many connections 53300', withCode('sorry, too many clients already', '53300'), true],
    ['connection failure 08006', withCode('connection failure', '08006'), true],
    ['connection exception 08000', withCode('connection exception', '08000'), true],
    // pg and pg-pool without a code
    ['pg: terminated unexpectedly', new Error('Connection terminated unexpectedly'), true],
    ['pg: terminated', new Error('Connection terminated'), true],
    ['pg-pool: connect timeout', new Error('Connection terminated due to connection timeout', { cause: new Error('timeout expired') }), true],
    ['pg-pool: full pool timeout', new Error('timeout exceeded when trying to connect'), true],
    ['pg: query_timeout', new Error('Query read timeout'), true],
    ['pg: broken client', new Error('Client has encountered a connection error and is not queryable'), true],
    // SQLite after busy_timeout
    ['SQLITE_BUSY', withCode('database is locked', 'SQLITE_BUSY'), true],
    ['SQLITE_BUSY_SNAPSHOT', withCode('database is locked', 'SQLITE_BUSY_SNAPSHOT'), true],
    // ioredis
    ['ioredis: closed', new Error('Connection is closed.'), true],
    ['ioredis: no offline queue', new Error("Stream isn't writeable and enableOfflineQueue options is false"), true],
    ['ioredis: command timeout', new Error('Command timed out'), true],
    ['ioredis: max retries', named('Reached the max retries per request limit (which is 0).', 'MaxRetriesPerRequestError'), true],
    ['the broker wraps ioredis', new Error('Redis is unavailable: user-changed was not published (Connection is closed.)', { cause: new Error('Connection is closed.') }), true],
    ['deep in a cause chain', new Error('outer', { cause: new Error('middle', { cause: withCode('x', 'ECONNREFUSED') }) }), true],
    // not outages: bugs, constraint violations, slow queries of ours, the caller's mistakes
    ['a plain bug', new TypeError("Cannot read properties of undefined (reading 'id')"), false],
    ['unique violation 23505', withCode('duplicate key value violates unique constraint', '23505'), false],
    ['syntax error 42601', withCode('syntax error at or near "FORM"', '42601'), false],
    ['statement_timeout 57014', withCode('canceling statement due to statement timeout', '57014'), false],
    ['SQLite constraint', withCode('UNIQUE constraint failed: users.email', 'SQLITE_CONSTRAINT_UNIQUE'), false],
    ['SQLite locked table (a bug of ours)', withCode('database table is locked', 'SQLITE_LOCKED'), false],
    ['no such file', withCode('ENOENT: no such file or directory', 'ENOENT'), false],
    ['a Fastify code', withCode('Body is too large', 'FST_ERR_CTP_BODY_TOO_LARGE', { statusCode: 413 }), false],
    ['a message that merely mentions a connection', new Error('Connection terminated is not a project name'.slice(1)), false],
    ['a code that is not a string', withCode('x', 'ECONNREFUSED', { code: 111 }), false],
    ['a cause loop', (() => { const e = new Error('a') as Error & { cause?: unknown }; e.cause = e; return e; })(), false],
    ['not an error', 'ECONNREFUSED', false],
    ['null', null, false],
    ['undefined', undefined, false],
  ];
  for (const [name, err, expected] of cases) assert.equal(isDependencyUnavailable(err), expected, name);
});
