import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'kysely';
import { silentLog } from '../logger.js';
import { migrate, openDatabase } from './index.js';
import { reusable } from './reusable.js';

test('a reusable query answers each call with its own values, as the built query does', async () => {
  const database = await openDatabase({ dialect: 'sqlite', file: ':memory:' }, silentLog);
  try {
    await migrate(database);
    const { db } = database;
    for (const key of ['a', 'b', 'c']) await db.insertInto('storage_names').values({ key, created_at: `2026-01-0${key.charCodeAt(0) - 96}` }).execute();
    const byKey = reusable((d, key: string, after: string) => d.selectFrom('storage_names').select('key').where('key', '=', key).where('created_at', '>', after));
    for (const [key, after, expected] of [
      ['a', '2025', ['a']],
      ['b', '2025', ['b']],
      ['b', '2027', []],
      ['zzz', '2025', []],
    ] as const) {
      const { rows } = await db.executeQuery(byKey(db, 'sqlite', key, after));
      const built = await db.selectFrom('storage_names').select('key').where('key', '=', key).where('created_at', '>', after).execute();
      assert.deepEqual(rows.map((r) => r.key), expected);
      assert.deepEqual(rows, built);
    }
  } finally {
    await database.db.destroy();
  }
});

test('an argument that would shape the query, not only be bound, is refused at the first call', async () => {
  const database = await openDatabase({ dialect: 'sqlite', file: ':memory:' }, silentLog);
  try {
    const { db } = database;
    const byColumn = reusable((d, column: string) => d.selectFrom('storage_names').select('key').where(sql.ref(column), '=', 'x'));
    assert.throws(() => byColumn(db, 'sqlite', 'key'), /must take each argument as a parameter/);
  } finally {
    await database.db.destroy();
  }
});
