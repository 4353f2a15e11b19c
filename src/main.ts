import fs from 'node:fs';
import { ConfigError, describeDatabase, loadConfig } from './config.js';
import { startService } from './service.js';

if (fs.existsSync('.env')) process.loadEnvFile('.env');

let config;
try {
  config = loadConfig();
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
  console.error(`Configuration error: ${err.message}`);
  process.exit(1);
}

const service = await startService(config);
const log = service.log;
log.info(`Print-order service ready at ${config.publicUrl} (database: ${describeDatabase(config.database)}, storage: ${config.storage.driver}, realtime: ${config.realtime.driver})`);
// Without an admin, startService has logged the one-time setup link (interface.md, "First run").

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    log.info(`${signal}: finishing requests in flight, then stopping`);
    service.close().then(
      () => process.exit(0),
      (err: unknown) => {
        log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  });
}
