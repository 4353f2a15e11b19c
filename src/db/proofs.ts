import { sql } from 'kysely';
import type { Proof, ProofDecision, ProofResponse, ProofStatus, ProofSummary, ProofVia, ProofWithNames } from '../domain/proofs.js';
import type { Selectable } from 'kysely';
import type { Database, DB } from './index.js';
import type { Tables } from './schema.js';
import { type Scope, visibleTo } from './visibility.js';
import { amongIds } from './id-lists.js';

type ProofRow = Selectable<Tables['proofs']>;

const toProof = (r: ProofRow): Proof => ({
  id: r.id,
  projectId: r.project_id,
  version: Number(r.version),
  filename: r.filename,
  size: Number(r.size),
  contentType: r.content_type,
  detectedType: r.detected_type,
  sha256: r.sha256,
  storageKey: r.storage_key,
  url: r.url,
  note: r.note,
  status: r.status as ProofStatus,
  postedById: r.posted_by_id,
  createdAt: r.created_at,
  response:
    r.response_decision === null
      ? null
      : {
          decision: r.response_decision as ProofDecision,
          note: r.response_note,
          byId: r.response_by_id,
          byName: r.response_by_name ?? '',
          via: (r.response_via ?? 'account') as ProofVia,
          at: r.response_at ?? r.created_at,
          email: r.response_email,
        },
});

/** A stored approval link. */
/** A throttle key's row (login_failures) as read beside a link. */
export interface ThrottleRow {
  failures: number;
  windowStartedAt: string;
  pending: number;
  pendingAt: number;
}

export interface ProofLink {
  id: string;
  proofId: string;
  email: string;
  name: string | null;
  createdById: string;
  createdAt: string;
  expiresAt: string;
}

/** Proofs and their approval links (migration 024). Who may see them is decided by the caller, on the project. */
export function proofsRepo(db: DB, dialect: Database['dialect']) {
  const withNames = () =>
    db.selectFrom('proofs').leftJoin('users as poster', 'poster.id', 'proofs.posted_by_id').selectAll('proofs').select('poster.name as posted_by_name');
  const named = (r: ProofRow & { posted_by_name: string | null }): ProofWithNames => ({ ...toProof(r), postedByName: r.posted_by_name });
  return {
    /** Every version of a project's proof, newest first. */
    async list(projectId: string): Promise<ProofWithNames[]> {
      const rows = await withNames().where('proofs.project_id', '=', projectId).orderBy('proofs.version', 'desc').execute();
      return rows.map(named);
    },
    async findById(id: string): Promise<ProofWithNames | undefined> {
      const row = await withNames().where('proofs.id', '=', id).executeTakeFirst();
      return row && named(row);
    },
    /** The project's latest version (PostgreSQL: locked, so an answer and a new version or printing's check take turns). */
    async latest(projectId: string, options: { forUpdate?: boolean } = {}): Promise<Proof | undefined> {
      const row = await db
        .selectFrom('proofs')
        .selectAll()
        .where('project_id', '=', projectId)
        .orderBy('version', 'desc')
        .limit(1)
        .$if(dialect === 'postgres' && options.forUpdate === true, (q) => q.forUpdate())
        .executeTakeFirst();
      return row && toProof(row);
    },
    /** The version of the project's latest approved proof (the job ticket prints it), null when none is approved. */
    async latestApprovedVersion(projectId: string): Promise<number | null> {
      const row = await db
        .selectFrom('proofs')
        .select('version')
        .where('project_id', '=', projectId)
        .where('status', '=', 'approved')
        .orderBy('version', 'desc')
        .limit(1)
        .executeTakeFirst();
      return row ? Number(row.version) : null;
    },
    /** The latest version's summary of each project (a project's `proof`). */
    async latestFor(projectIds: readonly string[]): Promise<Map<string, ProofSummary>> {
      const found = new Map<string, ProofSummary>();
      if (!projectIds.length) return found;
      // SQLite's list in chunks (its limit on parameters); PostgreSQL's one array at once.
      const chunk = dialect === 'postgres' ? Math.max(1, projectIds.length) : 500;
      for (let i = 0; i < projectIds.length; i += chunk) {
        const rows = await db
          .selectFrom('proofs')
          .select(['id', 'project_id', 'version', 'status'])
          .where(amongIds('proofs.project_id', projectIds.slice(i, i + chunk), dialect))
          .where(({ eb, selectFrom }) =>
            eb('version', '=', selectFrom('proofs as later').select(sql<number>`max(later.version)`.as('v')).whereRef('later.project_id', '=', 'proofs.project_id')),
          )
          .execute();
        for (const r of rows) found.set(r.project_id, { id: r.id, version: Number(r.version), status: r.status as ProofStatus });
      }
      return found;
    },
    async insert(p: Proof): Promise<void> {
      await db
        .insertInto('proofs')
        .values({
          id: p.id,
          project_id: p.projectId,
          version: p.version,
          filename: p.filename,
          size: p.size,
          content_type: p.contentType,
          detected_type: p.detectedType,
          sha256: p.sha256,
          storage_key: p.storageKey,
          url: p.url,
          note: p.note,
          status: p.status,
          posted_by_id: p.postedById,
          created_at: p.createdAt,
        })
        .execute();
    },
    async setStatus(id: string, status: ProofStatus): Promise<void> {
      await db.updateTable('proofs').set({ status }).where('id', '=', id).execute();
    },
    /** Records the answer on a pending version; false when it was no longer pending (answered meanwhile). */
    async answer(id: string, r: ProofResponse): Promise<boolean> {
      const result = await db
        .updateTable('proofs')
        .set({
          status: r.decision,
          response_decision: r.decision,
          response_note: r.note,
          response_by_id: r.byId,
          response_by_name: r.byName,
          response_via: r.via,
          response_email: r.email,
          response_at: r.at,
        })
        .where('id', '=', id)
        .where('status', '=', 'pending')
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
    /** The dashboard's counts: open projects (neither DELIVERED nor CANCELLED) the scope sees whose latest proof is pending, or changes-requested. */
    async counts(scope: Scope): Promise<{ awaitingCustomer: number; changesRequested: number }> {
      const rows = await db
        .selectFrom('proofs')
        .innerJoin('projects', 'projects.id', 'proofs.project_id')
        .select(['proofs.status', (eb) => eb.fn.countAll<number>().as('n')])
        .where('projects.status', 'not in', ['DELIVERED', 'CANCELLED'])
        .where('proofs.status', 'in', ['pending', 'changes-requested'])
        .where(({ eb, selectFrom }) =>
          eb('proofs.version', '=', selectFrom('proofs as later').select(sql<number>`max(later.version)`.as('v')).whereRef('later.project_id', '=', 'proofs.project_id')),
        )
        .where(visibleTo(scope))
        .groupBy('proofs.status')
        .execute();
      const n = (status: string) => Number(rows.find((r) => r.status === status)?.n ?? 0);
      return { awaitingCustomer: n('pending'), changesRequested: n('changes-requested') };
    },
    async findByStorageKey(key: string): Promise<Proof | undefined> {
      const row = await db.selectFrom('proofs').selectAll().where('storage_key', '=', key).executeTakeFirst();
      return row && toProof(row);
    },
    /** Storage keys among `keys` that belong to a proof (the reconciler keeps them). */
    async recordedKeys(keys: readonly string[]): Promise<Set<string>> {
      if (!keys.length) return new Set();
      const rows = await db.selectFrom('proofs').select('storage_key').where('storage_key', 'in', keys).execute();
      return new Set(rows.map((r) => r.storage_key));
    },

    links: {
      async insert(link: ProofLink & { tokenHash: string }): Promise<void> {
        await db
          .insertInto('proof_links')
          .values({
            id: link.id,
            proof_id: link.proofId,
            token_hash: link.tokenHash,
            email: link.email,
            name: link.name,
            created_by_id: link.createdById,
            created_at: link.createdAt,
            expires_at: link.expiresAt,
          })
          .execute();
      },
      async remove(id: string): Promise<void> {
        await db.deleteFrom('proof_links').where('id', '=', id).execute();
      },
      /**
       * A link by its token's hash, with its proof, the three facts of the project its page shows
       * and the throttle's row of `throttleKey` (login_failures, as loginFailures.state reads it):
       * one read, one round trip to the database.
       */
      async open(tokenHash: string, throttleKey: string): Promise<{ link: ProofLink; proof: Proof; project: { id: string; name: string; reference: string | null; customerName: string | null }; throttle: ThrottleRow | null } | undefined> {
        const r = await db
          .selectFrom('proof_links')
          .innerJoin('proofs', 'proofs.id', 'proof_links.proof_id')
          .innerJoin('projects', 'projects.id', 'proofs.project_id')
          .leftJoin('customers', 'customers.id', 'projects.customer_id')
          .selectAll('proofs')
          .select([
            'proof_links.id as link_id',
            'proof_links.email as link_email',
            'proof_links.name as link_name',
            'proof_links.created_by_id as link_created_by_id',
            'proof_links.created_at as link_created_at',
            'proof_links.expires_at as link_expires_at',
            'projects.name as project_name',
            'projects.reference as project_reference',
            'customers.name as customer_name',
          ])
          .select((eb) => (['failures', 'window_started_at', 'pending', 'pending_at'] as const).map((c) => eb.selectFrom('login_failures').select(c).where('key', '=', throttleKey).as(`throttle_${c}`)))
          .where('proof_links.token_hash', '=', tokenHash)
          .executeTakeFirst();
        if (!r) return undefined;
        return {
          link: { id: r.link_id, proofId: r.id, email: r.link_email, name: r.link_name, createdById: r.link_created_by_id, createdAt: r.link_created_at, expiresAt: r.link_expires_at },
          proof: toProof(r),
          project: { id: r.project_id, name: r.project_name, reference: r.project_reference, customerName: r.customer_name },
          throttle:
            r.throttle_window_started_at == null
              ? null
              : { failures: Number(r.throttle_failures), windowStartedAt: String(r.throttle_window_started_at), pending: Number(r.throttle_pending), pendingAt: Number(r.throttle_pending_at) },
        };
      },
    },
  };
}
