import { openDatabase, migrate } from '../src/db/index.ts';
import { sql } from 'kysely';
const database = await (openDatabase as any)({ dialect: 'sqlite', file: '/tmp/qp.db' });
await migrate(database);
for (const q of [
 sql`explain query plan select "activity_log"."seq", "activity_log"."entity_id", "projects"."poc_id" from "activity_log" left join "projects" on "projects"."id" = "activity_log"."entity_id" where "activity_log"."seq" > 5 and "activity_log"."entity_type" = 'project' order by "activity_log"."seq" limit 100`,
 sql`explain query plan select "activity_log"."seq", "activity_log"."entity_id", "projects"."poc_id" from "activity_log" left join "projects" on "projects"."id" = "activity_log"."entity_id" where "activity_log"."seq" > 5 and "activity_log"."entity_type" = 'project' and projects.poc_id='x' order by "activity_log"."seq" limit 100`,
 sql`explain query plan select max(activity_log.seq) from activity_log inner join projects on projects.id = activity_log.entity_id where entity_type='project' and projects.poc_id = 'x' and activity_log.seq <= 100`,
 sql`explain query plan select coalesce(max(seq), 0) + 1 from activity_log`,
]) console.log((await q.execute(database.db)).rows.map((r: any) => r.detail));
