/**
 * What GET /api/openapi.json says beyond the route schemas: where the service is (servers), its
 * licence, and a stable operationId for every operation (client generators name their methods by
 * it, so a rename breaks integrators' code: never change one). Kept here, one line per operation,
 * because a route serving several methods (tus) shares one schema and so cannot name each itself.
 * A single-method route may also carry `operationId` in its own schema, which wins.
 * test/openapi.test.ts lints the document with Redocly's recommended rules and names any operation
 * left without one.
 */
export const OPERATION_IDS: Readonly<Record<string, string>> = {
  'POST /api/auth/login': 'login',
  'POST /api/auth/logout': 'logout',
  'GET /api/auth/session': 'getSession',
  'GET /api/account': 'getAccount',
  'PATCH /api/account': 'updateAccount',
  'POST /api/account/password': 'changePassword',
  'POST /api/auth/forgot-password': 'forgotPassword',
  'POST /api/auth/reset-password': 'resetPassword',
  'GET /api/account/tokens': 'listMyApiTokens',
  'POST /api/account/tokens': 'createApiToken',
  'DELETE /api/account/tokens/{id}': 'revokeMyApiToken',
  'GET /api/tokens': 'listApiTokens',
  'DELETE /api/tokens/{id}': 'revokeApiToken',
  'GET /api/team': 'listTeam',
  'POST /api/team': 'createTeamMember',
  'GET /api/team/{id}': 'getTeamMember',
  'PATCH /api/team/{id}': 'updateTeamMember',
  'GET /api/customers': 'listCustomers',
  'POST /api/customers': 'createCustomer',
  'GET /api/customers/{id}': 'getCustomer',
  'PATCH /api/customers/{id}': 'updateCustomer',
  'POST /api/upload': 'uploadDocument',
  'POST /api/projects': 'createProject',
  'GET /api/projects': 'listProjects',
  'GET /api/projects.csv': 'exportProjectsCsv',
  'GET /api/projects/{id}': 'getProject',
  'PATCH /api/projects/{id}': 'updateProject',
  'PATCH /api/projects/{id}/details': 'updateProjectDetails',
  'POST /api/projects/{id}/submit-pi': 'submitPi',
  'POST /api/projects/{id}/payments': 'recordPayment',
  'POST /api/projects/{id}/{action}': 'takeProjectAction',
  'GET /api/projects/{id}/comments': 'listComments',
  'POST /api/projects/{id}/comments': 'createComment',
  'GET /api/activity': 'listActivity',
  'GET /api/dashboard/stats': 'getDashboardStats',
  'GET /api/realtime': 'streamEvents',
  'POST /api/realtime/pusher-auth': 'authorizePusherChannel',
  'POST /api/realtime/pusher-user-auth': 'authenticatePusherUser',
  'GET /files/{path}': 'getDocumentFile',
  'GET /api/projects/{id}/documents.zip': 'downloadProjectDocuments',
  'GET /api/projects/{id}/files/{fileId}/preview': 'getDocumentPreview',
  'POST /api/projects/{id}/files/{fileId}/void': 'voidDocument',
  'POST /api/resumable-uploads': 'createResumableUpload',
  'OPTIONS /api/resumable-uploads': 'describeResumableUploads',
  'HEAD /api/resumable-uploads/{id}': 'getResumableUploadOffset',
  'PATCH /api/resumable-uploads/{id}': 'continueResumableUpload',
  'DELETE /api/resumable-uploads/{id}': 'cancelResumableUpload',
  'OPTIONS /api/resumable-uploads/{id}': 'describeResumableUpload',
  'GET /api/resumable-uploads/{id}/result': 'getResumableUploadResult',
  'GET /healthz': 'getHealth',
  'GET /readyz': 'getReadiness',
  'GET /metrics': 'getMetrics',
  'GET /api/webhooks': 'listWebhooks',
  'POST /api/webhooks': 'createWebhook',
  'PATCH /api/webhooks/{id}': 'updateWebhook',
  'DELETE /api/webhooks/{id}': 'deleteWebhook',
  'GET /api/webhooks/{id}/deliveries': 'listWebhookDeliveries',
  'POST /api/webhooks/{id}/deliveries/{deliveryId}/retry': 'retryWebhookDelivery',
  'POST /api/webhooks/{id}/test': 'sendWebhookTestEvent',
};

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

type Operation = { operationId?: string; parameters?: { name: string; in: string; description?: string }[] } & Record<string, unknown>;
type OpenApi = { info: Record<string, unknown>; servers?: unknown[]; paths?: Record<string, Record<string, unknown>> } & Record<string, unknown>;

/**
 * The finished document: servers (PUBLIC_URL), the licence, each operation its own object with its
 * operationId (the generator shares one object among a route's methods), and the catch-all
 * `/files/*` as `/files/{path}`: OpenAPI cannot name a parameter `*`.
 */
export function finishOpenApi<T extends object>(document: T, publicUrl: string): T {
  const doc = document as unknown as OpenApi;
  const paths: Record<string, Record<string, unknown>> = {};
  for (const [rawPath, item] of Object.entries(doc.paths ?? {})) {
    const path = rawPath.replace(/\{\*\}$/, '{path}');
    const finished: Record<string, unknown> = { ...item };
    for (const method of METHODS) {
      const op = item[method] as Operation | undefined;
      if (!op) continue;
      const operationId = op.operationId ?? OPERATION_IDS[`${method.toUpperCase()} ${path}`];
      const parameters = op.parameters?.map((p) =>
        p.in === 'path' && p.name === '*' ? { ...p, name: 'path', description: "the document's key, slashes included (print-orders/<project>/<type>/<name>)" } : p,
      );
      finished[method] = { ...op, ...(operationId ? { operationId } : {}), ...(parameters ? { parameters } : {}) };
    }
    paths[path] = finished;
  }
  return {
    ...doc,
    info: { ...doc.info, license: { name: 'Proprietary: the print shop’s own service, not for redistribution' } },
    servers: [{ url: publicUrl.replace(/\/+$/, ''), description: 'this service (PUBLIC_URL)' }],
    paths,
  } as unknown as T;
}
