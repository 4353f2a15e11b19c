/**
 * npm run soak: the chaos soak of issue 39, item 1 (test/helpers/soak/soak.ts). Two built instances
 * on one fresh PostgreSQL schema, Redis and s3rver under a steady load while one of them is killed
 * with SIGKILL and restarted every SOAK_KILL_EVERY seconds (60), for SOAK_SECONDS (600); then it
 * prints what it counted and exits 1 on any loss. SOAK_DATABASE_URL (default the machine's
 * postgres://…/test) and REDIS_URL (default redis://127.0.0.1:6379) choose the servers.
 */
import { runSoak } from '../test/helpers/soak/soak.js';

const seconds = Number(process.env.SOAK_SECONDS ?? 600);
const killEvery = Number(process.env.SOAK_KILL_EVERY ?? 60);
if (!(seconds > 0) || !(killEvery > 0)) throw new Error('SOAK_SECONDS and SOAK_KILL_EVERY must be positive numbers of seconds');

const result = await runSoak({
  seconds,
  killEveryMs: killEvery * 1000,
  postgresUrl: process.env.SOAK_DATABASE_URL?.trim() || 'postgres://postgres@127.0.0.1:5432/test',
  redisUrl: process.env.REDIS_URL?.trim() || 'redis://127.0.0.1:6379',
  logLevel: process.env.SOAK_LOG_LEVEL?.trim() || undefined,
});
console.log('\nchaos soak: counts');
for (const line of result.lines) console.log(`  ${line}`);
if (result.failures.length) {
  console.log(`\nLOSSES (${result.failures.length}):`);
  for (const f of result.failures.slice(0, 100)) console.log(`  ${f}`);
  process.exitCode = 1;
} else console.log('\nnothing acknowledged was lost; everything delivered in order');
