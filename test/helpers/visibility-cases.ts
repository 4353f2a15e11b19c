import type { Role } from '../../src/domain/model.js';

/**
 * The cases of the visibility rule (src/domain/visibility.ts), shared by its table test and by the
 * test that runs its SQL twin on a real database (test/visibility.test.ts). Written from
 * interface.md's words ("ADMIN: all; anyone else: projects whose pocId is theirs"), not from the code.
 */

/** The people who look: a name each, standing for a user id. */
export const VIEWERS = { admin: 'ADMIN', poc: 'POC', otherPoc: 'POC', client: 'CLIENT' } as const satisfies Record<string, Role>;
export type ViewerName = keyof typeof VIEWERS;

/** The projects, by the viewer who owns them (their POC); `gone` is a project that no longer exists. */
export const PROJECTS = { ofPoc: 'poc', ofOtherPoc: 'otherPoc', ofClient: 'client', ofAdmin: 'admin', gone: null } as const satisfies Record<string, ViewerName | null>;
export type ProjectName = keyof typeof PROJECTS;

/** Who sees which project. */
export const SEES: Record<ViewerName, ProjectName[]> = {
  admin: ['ofPoc', 'ofOtherPoc', 'ofClient', 'ofAdmin', 'gone'],
  poc: ['ofPoc'],
  otherPoc: ['ofOtherPoc'],
  client: ['ofClient'],
};

/** Who sees internal notes (interface.md, Comments: the shop's people, never a CLIENT), on the projects they see. */
export const SEE_INTERNAL: ViewerName[] = ['admin', 'poc', 'otherPoc'];

/** Who sees activity entries about anything but a project. */
export const SEE_OTHER_ENTRIES: ViewerName[] = ['admin'];

export const viewerNames = Object.keys(VIEWERS) as ViewerName[];
export const projectNames = Object.keys(PROJECTS) as ProjectName[];

/** Every viewer with every project, and whether the viewer sees it. */
export const VISIBILITY_CASES: { viewer: ViewerName; project: ProjectName; sees: boolean }[] = viewerNames.flatMap((viewer) =>
  projectNames.map((project) => ({ viewer, project, sees: SEES[viewer].includes(project) })),
);
