import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AppError } from '../errors.js';
import { commentBody, decideComment, linkParts, mayWriteInternal } from './comments.js';
import type { Role } from './model.js';
import { maySeeEntry, seesInternal } from './visibility.js';

const who = (id: string, role: Role) => ({ id, role });
const admin = who('admin', 'ADMIN');
const owner = who('owner', 'POC');
const otherPoc = who('other', 'POC');
const clientOwner = who('client', 'CLIENT');
const ofOwner = { pocId: 'owner' };
const ofClient = { pocId: 'client' };

describe('commentBody', () => {
  const table: [unknown, string | AppError][] = [
    ['Hello', 'Hello'],
    ['  two\nlines \n', 'two\nlines'],
    ['x'.repeat(5000), 'x'.repeat(5000)],
    // Characters, not UTF-16 units: 5,000 emoji are 10,000 units.
    ['😀'.repeat(5000), '😀'.repeat(5000)],
    ['x'.repeat(5001), new AppError(400, 'Comment must be at most 5000 characters')],
    ['', new AppError(400, 'Comment is required')],
    [' \n\t ', new AppError(400, 'Comment is required')],
    [undefined, new AppError(400, 'Comment is required')],
    [42, new AppError(400, 'Comment is required')],
  ];
  for (const [input, expected] of table) {
    test(JSON.stringify(input)?.slice(0, 30) ?? 'undefined', () => {
      const got = commentBody(input);
      if (expected instanceof AppError) {
        assert.ok(got instanceof AppError);
        assert.deepEqual([got.status, got.message], [expected.status, expected.message]);
      } else assert.equal(got, expected);
    });
  }
});

describe('who may comment, and write an internal note', () => {
  const table: [string, { id: string; role: Role }, { pocId: string } | null, boolean, number | null][] = [
    ['admin, any project', admin, ofOwner, false, null],
    ['admin, internal', admin, ofClient, true, null],
    ['owner POC', owner, ofOwner, false, null],
    ['owner POC, internal', owner, ofOwner, true, null],
    ['another POC: may not see it', otherPoc, ofOwner, false, 404],
    ['another POC, internal: still 404, never 403', otherPoc, ofOwner, true, 404],
    ['CLIENT owner', clientOwner, ofClient, false, null],
    ['CLIENT owner, internal', clientOwner, ofClient, true, 403],
    ['CLIENT, another project', clientOwner, ofOwner, false, 404],
    ['a project that is gone', admin, null, false, 404],
  ];
  for (const [name, viewer, project, internal, status] of table) {
    test(name, () => assert.equal(decideComment(viewer, project, internal)?.status ?? null, status));
  }
  test('mayWriteInternal: ADMIN, and the owner when a POC', () => {
    assert.deepEqual([admin, owner, otherPoc, clientOwner].map((v) => mayWriteInternal(v, v === clientOwner ? ofClient : ofOwner)), [true, true, false, false]);
  });
});

describe('internal entries: never a CLIENT', () => {
  const table: [{ id: string; role: Role }, { pocId: string }, boolean][] = [
    [admin, ofClient, true],
    [owner, ofOwner, true],
    [otherPoc, ofOwner, false],
    [clientOwner, ofClient, false],
  ];
  for (const [viewer, project, sees] of table) {
    test(`${viewer.id}: ${sees ? 'sees' : 'does not see'} an internal entry`, () => {
      assert.equal(maySeeEntry(viewer, { entityType: 'project', internal: true }, project), sees);
      // The same entry, not internal, is seen by whoever sees the project.
      assert.equal(maySeeEntry(viewer, { entityType: 'project', internal: false }, project), viewer !== otherPoc);
    });
  }
  test('seesInternal: the shop’s roles', () => assert.deepEqual([admin, owner, clientOwner].map(seesInternal), [true, true, false]));
});

describe('linkParts: links found by splitting, never HTML', () => {
  const table: [string, ReturnType<typeof linkParts>][] = [
    ['no links', [{ text: 'no links' }]],
    ['see https://example.com/a?b=1.', [{ text: 'see ' }, { link: 'https://example.com/a?b=1' }, { text: '.' }]],
    ['http://x.example and https://y.example/p', [{ link: 'http://x.example' }, { text: ' and ' }, { link: 'https://y.example/p' }]],
    ['(https://x.example/a)', [{ text: '(' }, { link: 'https://x.example/a' }, { text: ')' }]],
    ['https://en.wikipedia.org/wiki/A_(b)', [{ link: 'https://en.wikipedia.org/wiki/A_(b)' }]],
    ['<b>https://x.example/"onmouseover=1</b>', [{ text: '<b>' }, { link: 'https://x.example/' }, { text: '"onmouseover=1</b>' }]],
    ['javascript:alert(1) ftp://x.example', [{ text: 'javascript:alert(1) ftp://x.example' }]],
    ['https:// nothing', [{ text: 'https:// nothing' }]],
  ];
  for (const [text, parts] of table) {
    test(text, () => {
      assert.deepEqual(linkParts(text), parts);
      assert.equal(parts.map((p) => ('link' in p ? p.link : p.text)).join(''), text);
    });
  }
});
