import type { Role, User } from '../domain/model.js';
import type { Database, DB } from './index.js';
import { type Cursor, USER_COLUMNS, olderThan, toUser } from './rows.js';

export interface NewUser {
  name: string;
  email: string;
  passwordHash: string;
  phone: string | null;
  role: Role;
  location: string | null;
  branch: string | null;
}

export type UserChange = Partial<Pick<User, 'name' | 'email' | 'phone' | 'role' | 'location' | 'branch' | 'active' | 'customerId'>> & { passwordHash?: string };

/** The team: users, and their password hashes (read only where a password is checked). */
export function usersRepo(db: DB, dialect: Database['dialect']) {
  return {
    async insert(id: string, u: NewUser, now: string): Promise<User> {
      const row = await db
        .insertInto('users')
        .values({
          id,
          name: u.name,
          email: u.email,
          email_key: u.email.toLowerCase(),
          phone: u.phone,
          role: u.role,
          location: u.location,
          branch: u.branch,
          active: true,
          password_hash: u.passwordHash,
          created_at: now,
          updated_at: now,
        })
        .returning(USER_COLUMNS)
        .executeTakeFirstOrThrow();
      return toUser(row);
    },
    async findById(id: string): Promise<User | undefined> {
      const row = await db.selectFrom('users').select(USER_COLUMNS).where('id', '=', id).executeTakeFirst();
      return row && toUser(row);
    },
    async findByEmailWithHash(email: string): Promise<{ user: User; passwordHash: string } | undefined> {
      const row = await db.selectFrom('users').selectAll().where('email_key', '=', email.toLowerCase()).executeTakeFirst();
      return row && { user: toUser(row), passwordHash: row.password_hash };
    },
    async emailTaken(email: string): Promise<boolean> {
      const row = await db.selectFrom('users').select('id').where('email_key', '=', email.toLowerCase()).executeTakeFirst();
      return row !== undefined;
    },
    /** The team, newest first (ties broken by id). */
    async list(): Promise<User[]> {
      const rows = await db.selectFrom('users').select(USER_COLUMNS).orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
      return rows.map(toUser);
    },
    /** Up to `limit` members in list order, after the given one (keyset on the created_at, id index): the team read in short steps. */
    async listPage(after: Cursor | undefined, limit: number): Promise<User[]> {
      const rows = await db
        .selectFrom('users')
        .select(USER_COLUMNS)
        .$if(after !== undefined, (q) => q.where(olderThan('users', after!)))
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(limit)
        .execute();
      return rows.map(toUser);
    },
    /** The team's version (migration 004): it changes in the same transaction as any change the team list shows. */
    async teamVersion(): Promise<number> {
      const row = await db.selectFrom('team_version').select('version').where('id', '=', 1).executeTakeFirstOrThrow();
      return Number(row.version);
    },
    async update(id: string, change: UserChange, now: string): Promise<User | undefined> {
      const row = await db
        .updateTable('users')
        .set({
          name: change.name,
          email: change.email,
          email_key: change.email?.toLowerCase(),
          phone: change.phone,
          role: change.role,
          location: change.location,
          branch: change.branch,
          active: change.active,
          customer_id: change.customerId,
          password_hash: change.passwordHash,
          updated_at: now,
        })
        .where('id', '=', id)
        .returning(USER_COLUMNS)
        .executeTakeFirst();
      return row && toUser(row);
    },
    /**
     * With forUpdate, in a transaction on PostgreSQL the active admins' rows stay locked until
     * commit, so two concurrent demotions cannot both see two admins and leave none.
     */
    async countActiveAdmins(opts: { forUpdate?: boolean } = {}): Promise<number> {
      const rows = await db
        .selectFrom('users')
        .select('id')
        .where('role', '=', 'ADMIN')
        .where('active', '=', true)
        .orderBy('id') // one lock order for every transaction
        .$if(Boolean(opts.forUpdate) && dialect === 'postgres', (q) => q.forNoKeyUpdate())
        .execute();
      return rows.length;
    },
  };
}
