import type { Role } from '../../src/domain/model.js';

/**
 * The cases of the visibility rule (src/domain/visibility.ts), shared by its table test and by the
 * test that runs its SQL twin on a real database (test/visibility.test.ts). Written from
 * interface.md's words ("an ADMIN; the owner (pocId); a CLIENT whose customerId equals the
 * project's"), not from the code.
 */

/** The customers, by name. */
export const CUSTOMERS = ['acme', 'beta'] as const;
export type CustomerName = (typeof CUSTOMERS)[number];

/** The people who look: a name each, standing for a user id, with their role and the customer they belong to. */
export const VIEWERS = {
  admin: { role: 'ADMIN', customer: null },
  poc: { role: 'POC', customer: null },
  otherPoc: { role: 'POC', customer: null },
  /** A CLIENT without a customer: their own projects only. */
  client: { role: 'CLIENT', customer: null },
  /** A CLIENT of acme: acme's projects and their own. */
  acmeClient: { role: 'CLIENT', customer: 'acme' },
  /** A CLIENT of another customer. */
  betaClient: { role: 'CLIENT', customer: 'beta' },
  /** A POC who belongs to acme but owns none of its projects: only a CLIENT's customer widens what they see. */
  acmePoc: { role: 'POC', customer: 'acme' },
} as const satisfies Record<string, { role: Role; customer: CustomerName | null }>;
export type ViewerName = keyof typeof VIEWERS;

/** The projects, by the viewer who owns them (their POC) and their customer; `gone` is a project that no longer exists. */
export const PROJECTS = {
  ofPoc: { owner: 'poc', customer: 'acme' },
  ofOtherPoc: { owner: 'otherPoc', customer: null },
  ofClient: { owner: 'client', customer: null },
  ofAdmin: { owner: 'admin', customer: 'beta' },
  /** Owned by acme's CLIENT but for beta: the owner sees it, and beta's CLIENT. */
  ofAcmeClientForBeta: { owner: 'acmeClient', customer: 'beta' },
  gone: null,
} as const satisfies Record<string, { owner: ViewerName; customer: CustomerName | null } | null>;
export type ProjectName = keyof typeof PROJECTS;

/** Who sees which project. */
export const SEES: Record<ViewerName, ProjectName[]> = {
  admin: ['ofPoc', 'ofOtherPoc', 'ofClient', 'ofAdmin', 'ofAcmeClientForBeta', 'gone'],
  poc: ['ofPoc'],
  otherPoc: ['ofOtherPoc'],
  client: ['ofClient'],
  acmeClient: ['ofPoc', 'ofAcmeClientForBeta'],
  betaClient: ['ofAdmin', 'ofAcmeClientForBeta'],
  acmePoc: [],
};

/** Who sees internal notes (interface.md, Comments: the shop's people, never a CLIENT), on the projects they see. */
export const SEE_INTERNAL: ViewerName[] = ['admin', 'poc', 'otherPoc', 'acmePoc'];

/** Who sees activity entries about anything but a project. */
export const SEE_OTHER_ENTRIES: ViewerName[] = ['admin'];

export const viewerNames = Object.keys(VIEWERS) as ViewerName[];
export const projectNames = Object.keys(PROJECTS) as ProjectName[];

/** Every viewer with every project, and whether the viewer sees it. */
export const VISIBILITY_CASES: { viewer: ViewerName; project: ProjectName; sees: boolean }[] = viewerNames.flatMap((viewer) =>
  projectNames.map((project) => ({ viewer, project, sees: SEES[viewer].includes(project) })),
);
