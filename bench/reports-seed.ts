import { sql } from 'kysely';
import type { Database } from '../src/db/index.js';
import { newId } from '../src/ids.js';
import { seedProjects } from '../test/helpers/seed-projects.js';

/**
 * The reports bench's data (issue 38): `projects` projects (seedProjects: status by n mod 6, a PI
 * on every third, 2,000 customers, created a minute apart from 2025-01-01), every PI verified,
 * 3 × `projects` activity entries (each project's creation, its PI's verification, its delivery for
 * the DELIVERED, then edits) and `projects` / 2 payments on the PIs. One transaction, multi-row
 * INSERTs of BATCH rows: 100,000 projects take seconds, not minutes (a commit per statement, and on
 * SQLite a WAL sync each, was most of the time).
 */
const BATCH = 1000;
const DAY = 86_400_000;

export async function seedReportData(database: Database, o: { projects: number; pocId: string }): Promise<void> {
  await database.db.transaction().execute(async (trx) => {
    await seedProjects({ ...database, db: trx }, { projects: o.projects, customers: 2_000, pocIds: [o.pocId], today: '2025-06-01', piStatus: 'VERIFIED' });
    const projects = await trx.selectFrom('projects').select(['id', 'created_at', 'status', 'pi_amount']).orderBy('created_at').execute();
    const insert = async (table: 'activity_log' | 'payments', rows: object[]) => {
      for (let i = 0; i < rows.length; i += BATCH) await trx.insertInto(table).values(rows.slice(i, i + BATCH) as never).execute();
    };
    const entries: object[] = [];
    const entry = (projectId: string, action: string, at: number) =>
      entries.push({ id: newId(), seq: entries.length + 1, user_id: o.pocId, action, entity_type: 'project', entity_id: projectId, details: '{}', created_at: new Date(at).toISOString(), internal: false });
    for (const [n, p] of projects.entries()) {
      const at = Date.parse(p.created_at);
      entry(p.id, 'PROJECT_CREATED', at);
      if (p.pi_amount !== null) entry(p.id, 'PI_VERIFIED', at + DAY);
      if (p.status === 'DELIVERED') entry(p.id, 'PROJECT_DELIVERED', at + (n % 30) * DAY + 3_600_000);
    }
    // Edits until the log holds three entries a project.
    for (let n = 0; entries.length < o.projects * 3; n++) {
      const p = projects[n % projects.length]!;
      entry(p.id, 'PROJECT_UPDATED', Date.parse(p.created_at) + 7_200_000);
    }
    await insert('activity_log', entries);
    const withPi = projects.filter((p) => p.pi_amount !== null);
    const payments: object[] = [];
    const now = new Date().toISOString();
    for (let i = 0; i < o.projects / 2; i++) {
      const p = withPi[i % withPi.length]!;
      const on = new Date(Date.parse(p.created_at) + (2 + (i % 60)) * DAY).toISOString().slice(0, 10);
      payments.push({ id: newId(), project_id: p.id, amount: Math.max(1, Math.floor(p.pi_amount! / 3)), currency: 'INR', received_on: on, method: null, reference: null, recorded_by_id: o.pocId, created_at: now });
    }
    await insert('payments', payments);
  });
  // Fresh statistics and (PostgreSQL) a visibility map, as autovacuum keeps them for a database in use.
  await sql`${sql.raw(database.dialect === 'postgres' ? 'vacuum analyze' : 'analyze')}`.execute(database.db);
}
