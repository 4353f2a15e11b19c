/** Whose rows a query may return: everything, or only what belongs to one POC's projects. */
export type Scope = { all: true } | { all: false; pocId: string };
