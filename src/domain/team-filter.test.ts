import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type TeamFilter, filterTeam } from './team-filter.js';

const m = (id: string, createdAt: string, name: string, email: string, role: string, active: boolean) => ({ id, createdAt, name, email, role, active });
// List order: createdAt descending, then id descending.
const team = [
  m('e', '2026-01-05T00:00:00.000Z', 'Asha Rao', 'asha@example.com', 'ADMIN', true),
  m('d', '2026-01-04T00:00:00.000Z', 'Dev Mehta', 'dev@print.in', 'POC', true),
  m('c2', '2026-01-03T00:00:00.000Z', 'Chitra', 'chitra@example.com', 'POC', false),
  m('c1', '2026-01-03T00:00:00.000Z', 'Ravi ASHOK', 'ravi@example.com', 'CLIENT', true),
  m('a', '2026-01-01T00:00:00.000Z', 'Meera', 'meera@example.com', 'POC', true),
];
const ids = (f: TeamFilter) => filterTeam(team, f).map((x) => x.id);

const cases: [string, TeamFilter, string[]][] = [
  ['no filter: everyone in order, one more than the page', { limit: 2 }, ['e', 'd', 'c2']],
  ['limit above the team', { limit: 50 }, ['e', 'd', 'c2', 'c1', 'a']],
  ['q matches names ignoring case', { q: 'ASH', limit: 50 }, ['e', 'c1']],
  ['q matches emails', { q: 'print.in', limit: 50 }, ['d']],
  ['q is trimmed', { q: '  meera ', limit: 50 }, ['a']],
  ['role', { role: 'POC', limit: 50 }, ['d', 'c2', 'a']],
  ['active false', { active: false, limit: 50 }, ['c2']],
  ['role and active together', { role: 'POC', active: true, limit: 50 }, ['d', 'a']],
  ['after a member: the ones older, ties by id', { after: { createdAt: '2026-01-03T00:00:00.000Z', id: 'c2' }, limit: 50 }, ['c1', 'a']],
  ['after a member no longer listed still pages from its place', { after: { createdAt: '2026-01-03T12:00:00.000Z', id: 'zz' }, limit: 50 }, ['c2', 'c1', 'a']],
  ['after the last: nothing', { after: { createdAt: '2026-01-01T00:00:00.000Z', id: 'a' }, limit: 50 }, []],
  ['nothing matches', { q: 'nobody', limit: 50 }, []],
];
for (const [name, f, expected] of cases) test(`filterTeam: ${name}`, () => assert.deepEqual(ids(f), expected));
