import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TestService, openEventStream, startTestService } from './helpers/service.js';

/** GET /metrics: Prometheus text behind METRICS_TOKEN, over real HTTP. */

const TOKEN = 'metrics-token-for-tests';
let svc: TestService;
before(async () => {
  svc = await startTestService({ env: { METRICS_TOKEN: TOKEN } });
});
after(() => svc?.close());

const scrape = async () => {
  const res = await svc.anonymous.get('/metrics', { authorization: `Bearer ${TOKEN}` });
  assert.equal(res.status, 200, res.text);
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain/);
  return res.text;
};

/** The value of one sample line (0 when the series is not there yet). */
const sample = (text: string, series: string): number => {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
};

describe('GET /metrics', () => {
  test('refused without the token or with another one: 401 JSON, nothing listed', async () => {
    for (const authorization of [undefined, `Bearer ${TOKEN}x`, `Bearer ${TOKEN.slice(0, -1)}`, TOKEN, `Basic ${TOKEN}`]) {
      const res = await svc.anonymous.get('/metrics', authorization ? { authorization } : {});
      assert.equal(res.status, 401, `${authorization}: ${res.text}`);
      assert.deepEqual(res.body, { error: 'Unauthorized' });
      assert.doesNotMatch(res.text, /http_requests_total/);
    }
  });

  test('with the token: requests, the event loop, and an upload counted with its bytes', async () => {
    const before = await scrape();
    assert.match(before, /^# TYPE http_requests_total counter$/m);
    assert.match(before, /^nodejs_eventloop_lag_p99_seconds /m);
    assert.match(before, /^sse_open_streams 0$/m);
    assert.match(before, /^mail_backlog\{measure="count"\} \d+$/m);
    assert.match(before, /^dependency_errors_total\{dependency="database"\} 0$/m);

    const { client, user } = await svc.signIn('ADMIN');
    const project = await svc.createProject(user.id, { status: 'APPROVED', piStatus: 'VERIFIED' });
    const data = 'x'.repeat(12_345);
    const res = await client.upload([
      ['projectId', project.id],
      ['fileType', 'PO'],
      ['file', { data, filename: 'po.pdf', type: 'application/pdf' }],
    ]);
    assert.equal(res.status, 201, res.text);

    const text = await scrape();
    assert.equal(sample(text, 'upload_bytes_total{type="PO"}') - sample(before, 'upload_bytes_total{type="PO"}'), data.length);
    assert.equal(sample(text, 'upload_duration_seconds_count{type="PO"}') - sample(before, 'upload_duration_seconds_count{type="PO"}'), 1);
    const uploads = 'http_requests_total{method="POST",route="/api/upload",status="201"}';
    assert.equal(sample(text, uploads) - sample(before, uploads), 1);
    assert.ok(sample(text, 'http_request_duration_seconds_count{method="POST",route="/api/upload",status="201"}') >= 1);
    assert.ok(sample(text, 'http_requests_total{method="GET",route="/metrics",status="401"}') >= 5, 'refused scrapes are counted too');
  });

  test('open SSE streams are counted while open', async () => {
    const { client } = await svc.signIn('POC');
    const streams = [await openEventStream(client), await openEventStream(client)];
    assert.equal(sample(await scrape(), 'sse_open_streams'), 2);
    for (const s of streams) s.close();
    for (let i = 0; i < 50 && sample(await scrape(), 'sse_open_streams') !== 0; i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(sample(await scrape(), 'sse_open_streams'), 0);
  });

  test('a service without METRICS_TOKEN has no /metrics', async () => {
    const plain = await startTestService();
    try {
      const res = await plain.anonymous.get('/metrics', { authorization: `Bearer ${TOKEN}` });
      assert.equal(res.status, 404);
      assert.equal(typeof res.body.error, 'string');
    } finally {
      await plain.close();
    }
  });
});
