import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const api = 'http://localhost:3000';

/**
 * The web app: sources in web/, built into dist/web, which the service serves at `/`.
 * `npm run dev:web` serves it with hot reload and proxies /api and /files to the service on :3000.
 */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [react()],
  build: {
    outDir: '../dist/web',
    emptyOutDir: true,
  },
  server: {
    proxy: Object.fromEntries(
      ['/api', '/files'].map((prefix) => [
        prefix,
        {
          target: api,
          // The service refuses writes whose Origin is not its PUBLIC_URL (default http://localhost:3000).
          configure: (proxy) => proxy.on('proxyReq', (req) => req.getHeader('origin') && req.setHeader('origin', api)),
        },
      ]),
    ),
  },
});
