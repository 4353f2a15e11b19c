import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type DigestProject, digestOf } from '../domain/due-digest.js';
import { dueDigestEmail, webhookDeactivatedEmail } from './templates.js';

const URL = 'https://orders.example';
const to = { name: 'Pia <Poc>', address: 'pia@example.com' };
const project = (id: string, name: string, dueDate: string, reference: string | null = null): DigestProject => ({
  id,
  name,
  reference,
  dueDate,
  status: 'PRINTING',
  piStatus: 'VERIFIED',
  approval: { status: 'APPROVED', note: null, decidedById: null, decidedAt: null },
});

test('dueDigestEmail: overdue then due today, each line with its name, reference, due date, state and link', () => {
  const digest = digestOf([project('p2', 'Posters', '2026-03-10'), project('p1', 'Leaflets', '2026-03-09', 'PO-1'), project('p3', 'Old', '2026-02-28')], '2026-03-10');
  const mail = dueDigestEmail(to, '2026-03-10', digest, 'own', URL);
  assert.equal(mail.subject, 'Due dates for 10 Mar 2026: 2 overdue, 1 due today');
  assert.equal(
    mail.text,
    [
      'Hello Pia <Poc>,',
      'Your projects overdue or due today (10 Mar 2026), as they stand now:',
      'Overdue (2):',
      `- Old: due 28 Feb 2026, 10 days overdue; Printing, PI verified.\n  ${URL}/projects/p3\n- Leaflets (ref. PO-1): due 9 Mar 2026, 1 day overdue; Printing, PI verified.\n  ${URL}/projects/p1`,
      'Due today (1):',
      `- Posters: due today; Printing, PI verified.\n  ${URL}/projects/p2`,
      `Open the projects: ${URL}/projects`,
      `This email comes each morning when something is overdue or due that day. You can switch it off on your account page: ${URL}/account`,
    ].join('\n\n') + '\n',
  );
  assert.ok(mail.html.includes(`<li><a href="${URL}/projects/p1">Leaflets</a> (ref. PO-1): due 9 Mar 2026, 1 day overdue; Printing, PI verified.</li>`));
  assert.ok(mail.html.includes('<p>Hello Pia &#60;Poc&#62;,</p>'));
});

test('dueDigestEmail: only what there is; an admin’s wording; a cut list says so; typed text never becomes HTML', () => {
  const digest = digestOf([project('p1', '<script>alert(1)</script>', '2026-03-10', '"><img src=x>')], '2026-03-10');
  const mail = dueDigestEmail(to, '2026-03-10', digest, 'all', URL, true);
  assert.equal(mail.subject, 'Due dates for 10 Mar 2026: 1 due today');
  assert.ok(mail.text.startsWith('Hello Pia <Poc>,\n\nProjects overdue or due today (10 Mar 2026), as they stand now:\n\nDue today (1):'));
  assert.ok(!mail.text.includes('Overdue'));
  assert.ok(mail.text.includes('There are more than this email lists: the projects page has them all.'));
  assert.ok(!/<script|<img/.test(mail.html), 'no tag a person typed');
  assert.ok(mail.html.includes('&#60;script&#62;alert(1)&#60;/script&#62;</a> (ref. &#34;&#62;&#60;img src=x&#62;)'));
});

test('webhookDeactivatedEmail: when it began failing, in the shop’s time zone and terms (issue 33, item 8)', () => {
  const mail = webhookDeactivatedEmail({ name: 'Asha', address: 'asha@example.com' }, { url: 'https://erp.example.com/hook', failingSince: '2026-11-26T20:00:00.000Z', lastError: 'answered 500' }, URL, 'Asia/Kolkata');
  assert.match(mail.text, /has failed every delivery since 27 Nov 2026, 01:30, so it was switched off/);
});
