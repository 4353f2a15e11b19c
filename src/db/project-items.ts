import type { JobItem } from '../domain/model.js';
import type { DB, Dialect } from './index.js';
import { reusable } from './reusable.js';
import { toJobItem } from './rows.js';
import { amongIds } from './id-lists.js';

/** One project's lines, read with every change's webhook event and every project page: compiled once (reusable.ts). */
const linesOf = reusable((db, projectId: string) => db.selectFrom('project_items').selectAll().where('project_id', '=', projectId).orderBy('position'));

/** A job's lines (migration 013), kept in the order they were sent. The projects repository reads them with its projects. */
export function projectItemsRepo(db: DB, dialect: Dialect) {
  return {
    /** One project's lines, in order. */
    async of(projectId: string): Promise<JobItem[]> {
      return (await db.executeQuery(linesOf(db, dialect, projectId))).rows.map(toJobItem);
    },
    /** The lines of each of these projects, in order; a project without lines is missing from the map. */
    async forProjects(projectIds: readonly string[]): Promise<Map<string, JobItem[]>> {
      const lines = new Map<string, JobItem[]>();
      if (!projectIds.length) return lines;
      const rows = await db
        .selectFrom('project_items')
        .selectAll()
        .where(amongIds('project_items.project_id', projectIds, dialect))
        .orderBy('project_id')
        .orderBy('position')
        .execute();
      for (const row of rows) {
        const list = lines.get(row.project_id);
        if (list) list.push(toJobItem(row));
        else lines.set(row.project_id, [toJobItem(row)]);
      }
      return lines;
    },
    /** Makes these the project's lines, in this order (ids kept as given). Callers run it in their transaction. */
    async replace(projectId: string, items: readonly JobItem[]): Promise<void> {
      await db.deleteFrom('project_items').where('project_id', '=', projectId).execute();
      if (!items.length) return;
      await db
        .insertInto('project_items')
        .values(
          items.map((l, position) => ({
            id: l.id,
            project_id: projectId,
            position,
            description: l.description,
            quantity: l.quantity,
            unit: l.unit,
            size: l.size,
            stock: l.stock,
            colours: l.colours,
            finishing: l.finishing,
            notes: l.notes,
            unit_price: l.unitPrice ?? null,
            hsn_sac: l.hsnSac ?? null,
            gst_rate: l.gstRate ?? null,
          })),
        )
        .execute();
    },
  };
}
