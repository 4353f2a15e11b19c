import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Movable, moveTo, movesOf } from '../web/src/scenes/board/moves.js';

/** The board's moves (web/src/scenes/board/moves.ts, issue 36): fed only by the server's allowedActions and hold. */
test('movesOf: a move per offered action, to the column it leads to; nothing the server did not offer', () => {
  const card = (status: string, allowedActions: string[], hold: unknown = null): Movable => ({ status, allowedActions, hold });
  const cases: [string, Movable, string[]][] = [
    ['an admin on a request', card('REQUESTED', ['approve', 'reject', 'submit-pi', 'cancel']), ['approve→APPROVED', 'cancel→CANCELLED']],
    ['a POC on a request: nothing but cancel', card('REQUESTED', ['submit-pi', 'cancel']), ['cancel→CANCELLED']],
    ['approved, PI verified', card('APPROVED', ['start-printing', 'cancel']), ['start-printing→PRINTING', 'cancel→CANCELLED']],
    ['approved, PI not verified: no printing offered', card('APPROVED', ['verify-pi', 'reject-pi', 'cancel']), ['cancel→CANCELLED']],
    ['printing', card('PRINTING', ['dispatch', 'cancel']), ['dispatch→DISPATCHED', 'cancel→CANCELLED']],
    ['dispatched', card('DISPATCHED', ['deliver']), ['deliver→DELIVERED']],
    ['delivered: nowhere', card('DELIVERED', []), []],
    ['held: only cancel, whatever else is offered', card('APPROVED', ['start-printing', 'cancel'], { reason: 'paper' }), ['cancel→CANCELLED']],
    ['held without cancel offered: nothing', card('DISPATCHED', ['deliver'], { reason: 'paper' }), []],
    ['an unknown action is no move', card('PRINTING', ['teleport']), []],
  ];
  for (const [name, c, expected] of cases) assert.deepEqual(movesOf(c).map((m) => `${m.action}→${m.to}`), expected, name);
});

test('moveTo: the offered move into a column, or null', () => {
  const c: Movable = { status: 'APPROVED', allowedActions: ['start-printing', 'cancel'], hold: null };
  assert.deepEqual(moveTo(c, 'PRINTING'), { action: 'start-printing', to: 'PRINTING' });
  assert.equal(moveTo(c, 'DISPATCHED'), null);
  assert.equal(moveTo(c, 'APPROVED'), null);
  assert.equal(moveTo({ ...c, hold: { reason: 'x' } }, 'PRINTING'), null);
});
