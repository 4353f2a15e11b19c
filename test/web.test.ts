import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import { buildApp } from '../src/app.js';
import type { App } from '../src/http/routes/context.js';
import { WEB_CSP, defaultWebRoot } from '../src/http/routes/web.js';
import { type TestService, startTestService } from './helpers/service.js';

/**
 * The web app's serving (src/http/routes/web.ts), on the whole application over a real service's
 * dependencies, with a stand-in build in a temporary directory (the real build is the e2e test's).
 */

const INDEX = '<!doctype html><html><head><script type="module" src="/assets/index-abc123.js"></script></head><body><div id="root"></div></body></html>';
const HTML = { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' };

let svc: TestService;
let webRoot: string;
let app: App;
let bare: App;

before(async () => {
  svc = await startTestService();
  webRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'print-orders-web-'));
  fs.mkdirSync(path.join(webRoot, 'assets'));
  fs.writeFileSync(path.join(webRoot, 'index.html'), INDEX);
  fs.writeFileSync(path.join(webRoot, 'assets', 'index-abc123.js'), 'console.log("app")');
  fs.writeFileSync(path.join(webRoot, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  app = await buildApp(svc.deps, { streams: svc.running.streams, webRoot });
  bare = await buildApp(svc.deps, { streams: svc.running.streams, webRoot: path.join(webRoot, 'not-built') });
});

after(async () => {
  await app?.close();
  await bare?.close();
  await svc?.close();
  if (webRoot) {
    fs.rmSync(webRoot, { recursive: true, force: true });
    fs.rmSync(`${webRoot}-secret.txt`, { force: true });
  }
});

const get = (a: App, url: string, headers: Record<string, string> = {}) => a.inject({ method: 'GET', url, headers });

describe('the app at / and its pages', () => {
  test('/ answers index.html, never cached, with the security headers', async () => {
    const res = await get(app, '/');
    assert.equal(res.statusCode, 200);
    assert.match(res.headers['content-type'] as string, /^text\/html/);
    assert.equal(res.body, INDEX);
    assert.equal(res.headers['cache-control'], 'no-cache');
    assert.equal(res.headers['content-security-policy'], WEB_CSP);
    assert.equal(res.headers['x-content-type-options'], 'nosniff');
    assert.equal(res.headers['referrer-policy'], 'same-origin');
    assert.equal(res.headers['x-frame-options'], 'DENY');
  });

  test('index.html answers compressed as the client accepts, with an ETag that answers 304; a new build is served without a restart', async () => {
    const gz = await get(app, '/proofs/abc', { ...HTML, 'accept-encoding': 'gzip' });
    assert.equal(gz.statusCode, 200);
    assert.equal(gz.headers['content-encoding'], 'gzip');
    assert.match(gz.headers.vary as string, /Accept-Encoding/);
    assert.equal(zlib.gunzipSync(gz.rawPayload).toString(), INDEX);
    const br = await get(app, '/', { 'accept-encoding': 'br, gzip' });
    assert.equal(br.headers['content-encoding'], 'br');
    assert.equal(zlib.brotliDecompressSync(br.rawPayload).toString(), INDEX);
    const etag = gz.headers.etag as string;
    assert.match(etag, /^"[\w-]+"$/);
    const again = await get(app, '/', { 'if-none-match': etag });
    assert.equal(again.statusCode, 304);
    assert.equal(again.body, '');

    // A rebuild: the next look at the disk (at most a second later) finds it.
    const rebuilt = INDEX.replace('index-abc123.js', 'index-def456.js');
    fs.writeFileSync(path.join(webRoot, 'index.html'), rebuilt);
    try {
      const deadline = Date.now() + 5000;
      let body = '';
      while (Date.now() < deadline && (body = (await get(app, '/', HTML)).body) !== rebuilt) await new Promise((r) => setTimeout(r, 100));
      assert.equal(body, rebuilt);
      const changed = await get(app, '/', { 'if-none-match': etag });
      assert.equal(changed.statusCode, 200, 'the old ETag no longer matches');
    } finally {
      fs.writeFileSync(path.join(webRoot, 'index.html'), INDEX);
      const deadline = Date.now() + 5000;
      while (Date.now() < deadline && (await get(app, '/', HTML)).body !== INDEX) await new Promise((r) => setTimeout(r, 100));
    }
  });

  test('the CSP allows only our own scripts, styles and connections, and no framing', () => {
    const directives = Object.fromEntries(WEB_CSP.split('; ').map((d) => [d.split(' ')[0], d.split(' ').slice(1).join(' ')]));
    assert.deepEqual(directives, {
      'default-src': "'self'",
      'connect-src': "'self'",
      'img-src': "'self' data: https:",
      'style-src': "'self'",
      'frame-ancestors': "'none'",
      'object-src': "'none'",
      'base-uri': "'self'",
      'form-action': "'self'",
    });
  });

  test('any page address a browser asks for answers index.html (the app routes in the browser)', async () => {
    for (const url of ['/projects', '/projects/0193a0b0-0000-7000-8000-000000000000', '/team', '/some/deep/link?x=1', '/index.html']) {
      const res = await get(app, url, HTML);
      assert.equal(res.statusCode, 200, url);
      assert.equal(res.body, INDEX, url);
      assert.equal(res.headers['content-security-policy'], WEB_CSP, url);
      assert.equal(res.headers['cache-control'], 'no-cache', url);
    }
  });

  test('HEAD / answers like GET, without a body', async () => {
    const res = await app.inject({ method: 'HEAD', url: '/', headers: HTML });
    assert.equal(res.statusCode, 200);
    assert.match(res.headers['content-type'] as string, /^text\/html/);
    assert.equal(res.body, '');
  });

  test('hashed assets are cached for a year as immutable; top-level files for an hour', async () => {
    const js = await get(app, '/assets/index-abc123.js');
    assert.equal(js.statusCode, 200);
    assert.match(js.headers['content-type'] as string, /javascript/);
    assert.equal(js.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.equal(js.headers['x-content-type-options'], 'nosniff');
    assert.equal(js.headers['content-security-policy'], undefined);
    const icon = await get(app, '/favicon.svg');
    assert.equal(icon.statusCode, 200);
    assert.match(icon.headers['content-type'] as string, /^image\/svg\+xml/);
    assert.equal(icon.headers['cache-control'], 'public, max-age=3600');
  });

  test('a missing asset or file is a JSON 404, even for a browser', async () => {
    for (const [url, headers] of [
      ['/assets/missing.js', {}],
      ['/assets/missing.js', HTML],
      ['/missing.png', {}],
      ['/nope', {}],
    ] as const) {
      const res = await get(app, url, headers);
      assert.equal(res.statusCode, 404, url);
      assert.match(res.headers['content-type'] as string, /^application\/json/, url);
      assert.deepEqual(Object.keys(res.json()), ['error'], url);
    }
  });

  test('nothing outside the build is served, however the path is spelled', async () => {
    fs.writeFileSync(`${webRoot}-secret.txt`, 'secret');
    const address = await app.listen({ port: 0, host: '127.0.0.1' });
    const raw = (p: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        // http.request sends the path as written (fetch and inject would resolve the dots first).
        const req = http.request(`${address}/`, { path: p, headers: HTML }, (res) => {
          let body = '';
          res.on('data', (d) => (body += d));
          res.on('end', () => resolve({ status: res.statusCode!, body }));
        });
        req.on('error', reject);
        req.end();
      });
    const secret = `${path.basename(webRoot)}-secret.txt`;
    for (const p of [`/assets/../../${secret}`, `/assets/%2e%2e/%2e%2e/${secret}`, `/assets/..%2f..%2f${secret}`, `/../${secret}`, `/%2e%2e/${secret}`, '/.env']) {
      const res = await raw(p);
      assert.ok([200, 403, 404].includes(res.status), `${p}: ${res.status}`);
      assert.doesNotMatch(res.body, /secret/, p);
      if (res.status === 200) assert.equal(res.body, INDEX, p); // a page address: the app, nothing else
    }
  });
});

describe('the service’s own paths are never the app', () => {
  test('an unknown /api route is a JSON 404, even when a browser asks for HTML', async () => {
    for (const url of ['/api/unknown', '/api/projects/x/y/z', '/api', '/files/print-orders/none/po/po_1.pdf']) {
      for (const headers of [{}, HTML]) {
        const res = await get(app, url, headers);
        assert.equal(res.statusCode, 404, `${url} ${JSON.stringify(headers)}`);
        assert.match(res.headers['content-type'] as string, /^application\/json/);
        assert.equal(typeof res.json().error, 'string');
        assert.equal(res.headers['content-security-policy'], undefined);
      }
    }
  });

  test('/healthz, /readyz and the API keep their answers', async () => {
    assert.deepEqual((await get(app, '/healthz', HTML)).json(), { status: 'ok' });
    assert.equal((await get(app, '/readyz', HTML)).statusCode, 200);
    const session = await get(app, '/api/auth/session', HTML);
    assert.equal(session.statusCode, 401);
    assert.deepEqual(session.json(), { error: 'Unauthorized' });
  });

  test('other methods on page addresses are JSON 404s', async () => {
    for (const method of ['POST', 'PUT', 'DELETE'] as const) {
      const res = await app.inject({ method, url: '/projects', headers: HTML });
      assert.equal(res.statusCode, 404, method);
      assert.deepEqual(Object.keys(res.json()), ['error']);
    }
  });
});

describe('without a build', () => {
  test('/ and page addresses answer 503 naming the command to run; the API works', async () => {
    for (const [url, headers] of [
      ['/', {}],
      ['/projects', HTML],
    ] as const) {
      const res = await get(bare, url, headers);
      assert.equal(res.statusCode, 503, url);
      assert.deepEqual(res.json(), { error: 'The web app is not built: run `npm run build`' });
    }
    assert.equal((await get(bare, '/assets/index-abc123.js')).statusCode, 404);
    assert.deepEqual((await get(bare, '/healthz')).json(), { status: 'ok' });
    assert.equal((await get(bare, '/api/unknown', HTML)).statusCode, 404);
  });
});

describe('the running service', () => {
  test('finds the build at dist/web under the package root', () => {
    assert.equal(defaultWebRoot(), path.resolve(import.meta.dirname, '..', 'dist', 'web'));
  });

  test('serves the built app at / (or 503 before `npm run build`), and /api/unknown as JSON 404', async () => {
    const page = await fetch(new URL('/', svc.url), { headers: HTML });
    if (page.status === 200) {
      assert.match(await page.text(), /<div id="root"><\/div>/);
      assert.equal(page.headers.get('content-security-policy'), WEB_CSP);
    } else {
      assert.equal(page.status, 503);
      assert.deepEqual(await page.json(), { error: 'The web app is not built: run `npm run build`' });
    }
    const api = await fetch(new URL('/api/unknown', svc.url), { headers: HTML });
    assert.equal(api.status, 404);
    assert.deepEqual(await api.json(), { error: 'Route GET /api/unknown not found' });
  });
});
