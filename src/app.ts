import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import cookie from '@fastify/cookie';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { TypeBoxValidatorCompiler, type TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyReply } from 'fastify';
import type { Deps } from './deps.js';
import { errors } from './errors.js';
import { registerCompression } from './http/compression.js';
import { registerErrorHandling } from './http/error-handler.js';
import { registerJsonParser } from './http/json-body.js';
import { nulRefusal } from './http/nul.js';
import { registerBodyTimeouts } from './http/timeouts.js';
import { accountRoutes } from './http/routes/account.js';
import { apiTokenRoutes } from './http/routes/api-tokens.js';
import { activityRoutes } from './http/routes/activity.js';
import { authRoutes } from './http/routes/auth.js';
import { setupRoutes } from './http/routes/setup.js';
import { FirstRun } from './actions/first-run.js';
import { customerRoutes } from './http/routes/customers.js';
import { commentRoutes } from './http/routes/comments.js';
import type { App, RouteContext } from './http/routes/context.js';
import { documentRoutes } from './http/routes/documents.js';
import { fileRoutes } from './http/routes/files.js';
import { healthRoutes } from './http/routes/health.js';
import { metricsRoutes } from './http/routes/metrics.js';
import { moneyRoutes } from './http/routes/money.js';
import { projectRoutes } from './http/routes/projects.js';
import { proofRoutes } from './http/routes/proofs.js';
import { boardRoutes } from './http/routes/board.js';
import { floorRoutes } from './http/routes/floor.js';
import { realtimeRoutes } from './http/routes/realtime.js';
import { resumableRoutes } from './http/routes/resumable.js';
import { teamRoutes } from './http/routes/team.js';
import { uploadRoutes } from './http/routes/upload.js';
import { webRoutes } from './http/routes/web.js';
import { webhookRoutes } from './http/routes/webhooks.js';
import { knownFieldsHook } from './http/known-fields.js';
import { finishOpenApi } from './http/openapi.js';
import { reportRoutes } from './http/routes/reports.js';
import { ErrorBody } from './http/schemas.js';
import { sessionHooks } from './http/session.js';
import type { StreamHub } from './realtime/streams.js';

/** What Node's own refusals become: status line and message. */
const CLIENT_ERRORS: Record<string, [string, string]> = {
  HPE_HEADER_OVERFLOW: ['431 Request Header Fields Too Large', 'Request headers too large'],
  ERR_HTTP_REQUEST_TIMEOUT: ['408 Request Timeout', 'Request headers not received in time'],
};

/** A request Node could not parse (bad request line or headers): 400, JSON, and the connection closed. */
function answerClientError(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const [status, message] = CLIENT_ERRORS[err.code ?? ''] ?? ['400 Bad Request', 'Bad Request'];
  const body = JSON.stringify({ error: message });
  socket.end(`HTTP/1.1 ${status}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}

/** What Node would answer by itself, or not at all, answered in our shape. */
function answerInJson(server: Server): void {
  // Any Expect but 100-continue: Node's own 417 has no body.
  server.on('checkExpectation', (_req: IncomingMessage, res: ServerResponse) => {
    const body = JSON.stringify({ error: 'Expectation Failed: only Expect: 100-continue is supported' });
    res.writeHead(417, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), connection: 'close' });
    res.end(body);
  });
  // CONNECT (a proxy's method): Node hands over the socket and, with no listener, closes it unanswered.
  server.on('connect', (_req: IncomingMessage, socket: Duplex) => {
    const body = JSON.stringify({ error: 'Method CONNECT is not supported' });
    socket.on('error', () => {});
    socket.end(`HTTP/1.1 405 Method Not Allowed\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  });
}

/**
 * The HTTP application over the given dependencies, logging through `deps.log` (each request's
 * lines, and `req.log`, carry its id). Tests build it too. `streams`: this process's realtime
 * streams (GET /api/realtime), started and closed by the caller (startService). `webRoot`: the
 * built web app served at `/` (default: dist/web under the package root).
 */
export async function buildApp(deps: Deps, options: { streams: StreamHub; webRoot?: string | null; firstRun?: FirstRun }): Promise<App> {
  const timeouts = deps.config.timeouts;
  const app = Fastify({
    loggerInstance: deps.log,
    requestIdHeader: 'x-request-id',
    genReqId: () => randomUUID(),
    trustProxy: deps.config.trustProxy,
    // Errors Fastify and Node answer before a route runs keep the {"error": message} shape too.
    frameworkErrors: (err, _req, reply: FastifyReply) => {
      reply.code(err.statusCode ?? 400).send({ error: err.message });
    },
    clientErrorHandler: answerClientError,
    return503OnClosing: false, // answered below, in our shape
    // Uploads of large files take as long as they take (no whole-request limit); the headers must
    // come within HEADERS_TIMEOUT_MS (checked every second), bodies within the limits of
    // http/timeouts.ts, and idle keep-alive connections are closed after KEEP_ALIVE_TIMEOUT_MS.
    requestTimeout: 0,
    // An HTTP/1.1 request without Host is refused below, in JSON: Node's own refusal has no body.
    http: { headersTimeout: timeouts.headersMs, connectionsCheckingInterval: Math.min(1000, timeouts.headersMs), requireHostHeader: false },
    keepAliveTimeout: timeouts.keepAliveMs,
  }).withTypeProvider<TypeBoxTypeProvider>();

  // TypeBox validates bodies as sent (no coercion, unknown fields refused) and converts only query strings and params.
  app.setValidatorCompiler(TypeBoxValidatorCompiler);
  registerErrorHandling(app);
  registerJsonParser(app);
  registerBodyTimeouts(app, { bodyTimeoutMs: timeouts.bodyMs, uploadIdleTimeoutMs: timeouts.uploadIdleMs, drainMs: timeouts.drainMs, drainBytes: timeouts.drainBytes });
  app.addSchema(ErrorBody);
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onRequest', async (req, reply) => {
    if (closing) return reply.code(503).send({ error: 'Service is shutting down' });
    // RFC 9112 3.2: HTTP/1.1 requires Host (HTTP/1.0 clients may leave it out).
    if (req.headers.host === undefined && req.raw.httpVersionMajor === 1 && req.raw.httpVersionMinor >= 1) throw errors.missingHost();
  });
  // Before validation, so even a field the schema would refuse for another reason is named for its NUL or lone surrogate.
  app.addHook('preValidation', async (req) => {
    const refused = nulRefusal(req);
    if (refused) throw refused;
  });
  app.addHook('onSend', async (req, reply) => {
    reply.header('x-request-id', req.id);
    // A request that was in flight when shutdown began closes its connection with its answer.
    if (closing) reply.header('connection', 'close');
  });

  registerCompression(app);
  const { metrics } = deps;
  if (metrics) {
    app.addHook('onResponse', async (req, reply) => {
      const labels = { method: req.method, route: req.routeOptions.url ?? 'unmatched', status: String(reply.statusCode) };
      metrics.httpRequests.inc(labels);
      metrics.httpDuration.observe(labels, reply.elapsedTime / 1000);
    });
  }
  await app.register(cookie);
  await app.register(swagger, {
    openapi: {
      info: {
        title: 'Print-order project service',
        version: '1.0.0',
        description:
          'Projects, approvals, PI verification and document uploads. Every error is {"error": message}. ' +
          'A request that fails because the database or Redis is unreachable or timed out answers 503 {"error": "Service temporarily unavailable"} with Retry-After: 5 (worth retrying), ' +
          'except the specified POST /api/upload, GET /api/team and POST /api/team, which keep their 500.',
      },
      components: {
        securitySchemes: {
          session: { type: 'apiKey', in: 'cookie', name: 'session' },
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API token (pos_…), made on My account or with the CLI: wherever the session cookie works; a read token only GET and HEAD' },
          metricsToken: { type: 'http', scheme: 'bearer', description: 'METRICS_TOKEN' },
        },
      },
      security: [{ session: [] }],
    },
    transformObject: (document) => 'openapiObject' in document ? finishOpenApi(document.openapiObject, deps.config.publicUrl) : document.swaggerObject,
  });
  await app.register(swaggerUi, { routePrefix: '/api/docs' });
  app.get('/api/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  const context: RouteContext = { deps, hooks: sessionHooks(app, deps), streams: options.streams, firstRun: options.firstRun ?? FirstRun.none() };
  // The document's default is the session cookie; a route that asks for none (login, health, …) says so itself,
  // and every route behind the session hooks takes an API token as well.
  app.addHook('onRoute', (route) => {
    const guarded = [route.onRequest ?? []].flat().some((hook) => hook === context.hooks.requireSession || hook === context.hooks.requireAdmin);
    if (!route.schema || route.schema.security !== undefined) return;
    route.schema.security = guarded ? [{ session: [] }, { bearerAuth: [] }] : [];
  });
  app.addHook('onRoute', (route) => {
    const hook = knownFieldsHook(route);
    if (hook) route.preValidation = [...[route.preValidation ?? []].flat(), hook];
  });
  for (const routes of [authRoutes, setupRoutes, accountRoutes, apiTokenRoutes, teamRoutes, customerRoutes, uploadRoutes, projectRoutes, floorRoutes, commentRoutes, activityRoutes, realtimeRoutes, fileRoutes, documentRoutes, resumableRoutes, healthRoutes, metricsRoutes, webhookRoutes, proofRoutes, boardRoutes, moneyRoutes, reportRoutes]) {
    await app.register(routes, context);
  }
  await app.register(webRoutes(options.webRoot));
  answerInJson(app.server);
  return app;
}
