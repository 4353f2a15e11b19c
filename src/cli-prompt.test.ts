import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { test } from 'node:test';
import { PromptError, askNewPassword, readHidden } from './cli-prompt.js';

/** A terminal as the prompt sees it: keys sent in, what is written kept, its raw mode followed. */
function fakeTerminal(isTTY = true) {
  const keys = new EventEmitter();
  const written: string[] = [];
  const modes: boolean[] = [];
  const input = Object.assign(keys, {
    isTTY,
    setRawMode: (raw: boolean) => modes.push(raw),
    resume: () => undefined,
    pause: () => undefined,
  });
  return { input, output: { write: (t: string) => written.push(t) }, written, modes, type: (text: string) => keys.emit('data', Buffer.from(text)) };
}

test('readHidden: what is typed is never written back; Backspace takes back a character; raw mode on, then off (issue 33, item 9)', async () => {
  const t = fakeTerminal();
  const answer = readHidden('Password: ', t.input, t.output);
  t.type('s3cret-pX');
  t.type('\u007f');
  t.type('ass\r');
  assert.equal(await answer, 's3cret-pass');
  assert.deepEqual(t.written, ['Password: ', '\n'], 'only the question and the line end');
  assert.deepEqual(t.modes, [true, false]);
});

test('askNewPassword: typed twice, the same; two that differ, Ctrl-C and no terminal are refusals', async () => {
  const t = fakeTerminal();
  const asked = askNewPassword(t.input, t.output);
  t.type('long-enough\r');
  await new Promise((r) => setImmediate(r));
  t.type('long-enough\n');
  assert.equal(await asked, 'long-enough');
  assert.ok(!t.written.join('').includes('long-enough'));

  const differ = fakeTerminal();
  const mismatch = askNewPassword(differ.input, differ.output);
  differ.type('one-password\r');
  await new Promise((r) => setImmediate(r));
  differ.type('another-one\r');
  await assert.rejects(mismatch, (err: unknown) => err instanceof PromptError && err.message === 'the two passwords differ');

  const cancelled = fakeTerminal();
  const gaveUp = readHidden('Password: ', cancelled.input, cancelled.output);
  cancelled.type('abc\u0003');
  await assert.rejects(gaveUp, /cancelled/);
  assert.deepEqual(cancelled.modes, [true, false], 'the terminal is given back as it was');

  await assert.rejects(readHidden('Password: ', fakeTerminal(false).input, fakeTerminal(false).output), /standard input is not a terminal/);
});
