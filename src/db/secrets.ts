import type { DB } from './index.js';

/** Secrets every instance shares (migration 011), made on first use. */
export function secretsRepo(db: DB) {
  return {
    /** The stored value of a secret, made by `make` and stored the first time: of instances asking at once, the first write wins for all. */
    async getOrCreate(name: string, make: () => string): Promise<string> {
      await db
        .insertInto('server_secrets')
        .values({ name, value: make() })
        .onConflict((oc) => oc.column('name').doNothing())
        .execute();
      const row = await db.selectFrom('server_secrets').select('value').where('name', '=', name).executeTakeFirstOrThrow();
      return row.value;
    },
  };
}
