/**
 * The contract every mail transport passes (SMTP through nodemailer against a real SMTP server,
 * and the .eml default): the email arrives as composed, from MAIL_FROM, to one recipient, with
 * text and HTML; a failure rejects within a bound instead of hanging.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { simpleParser } from 'mailparser';
import { freePort } from '../../test/helpers/service.js';
import { type TestSmtpServer, startSmtpServer } from '../../test/helpers/smtp.js';
import { EmlTransport } from './eml/index.js';
import { SmtpTransport } from './smtp/index.js';
import type { MailTransport, OutgoingMail } from './types.js';

const FROM = 'Print shop <orders@shop.example>';
const mail = (n: number): OutgoingMail => ({
  to: { name: 'Asha Rao', address: `asha${n}@example.com` },
  subject: `Approved: Catalogue ${n} — “spring”`,
  text: `Hello Asha,\n\nApproved by Ben.\n\nOpen the project: http://x.example/projects/${n}\n`,
  html: `<p>Hello Asha,</p><p><a href="http://x.example/projects/${n}">Open the project</a></p>`,
});

interface Subject {
  transport: MailTransport;
  /** What arrived so far: to, from, subject, text, html. */
  arrived(): Promise<{ to: string; from: string; subject: string; text: string; html: string }[]>;
  close(): Promise<void>;
}

const subjects: Record<string, () => Promise<Subject>> = {
  smtp: async () => {
    const smtp: TestSmtpServer = await startSmtpServer();
    const transport = new SmtpTransport(smtp.url, FROM);
    return {
      transport,
      arrived: async () => smtp.received.map((m) => ({ to: m.to, from: m.from, subject: m.subject, text: m.text, html: m.html })),
      close: async () => {
        await transport.close();
        await smtp.stop();
      },
    };
  },
  eml: async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'print-orders-eml-'));
    const transport = new EmlTransport(dir, FROM);
    return {
      transport,
      arrived: async () => {
        const files = fs.existsSync(path.join(dir, 'mail')) ? fs.readdirSync(path.join(dir, 'mail')).sort() : [];
        assert.ok(files.every((f) => f.endsWith('.eml')));
        return Promise.all(
          files.map(async (f) => {
            const p = await simpleParser(fs.readFileSync(path.join(dir, 'mail', f)));
            const text = (a: typeof p.to) => (Array.isArray(a) ? a.map((x) => x.text).join(', ') : (a?.text ?? ''));
            return { to: text(p.to), from: text(p.from), subject: p.subject ?? '', text: p.text ?? '', html: typeof p.html === 'string' ? p.html : '' };
          }),
        );
      },
      close: async () => fs.rmSync(dir, { recursive: true, force: true }),
    };
  },
};

for (const [name, make] of Object.entries(subjects)) {
  describe(`mail transport contract: ${name}`, () => {
    let subject: Subject;
    after(() => subject?.close());

    test('delivers each email as composed, from MAIL_FROM, to its one recipient', async () => {
      subject = await make();
      assert.equal(subject.transport.name, name);
      const sent = await subject.transport.send(mail(1));
      await subject.transport.send(mail(2));
      assert.ok(sent.messageId);
      const arrived = await subject.arrived();
      assert.equal(arrived.length, 2);
      const first = arrived.find((m) => m.to.includes('asha1@example.com'))!;
      assert.equal(first.to, '"Asha Rao" <asha1@example.com>');
      assert.equal(first.from, '"Print shop" <orders@shop.example>');
      assert.equal(first.subject, mail(1).subject);
      assert.equal(first.text.trim(), mail(1).text.trim());
      assert.match(first.html, /<a href="http:\/\/x\.example\/projects\/1">Open the project<\/a>/);
    });
  });
}

describe('mail transport contract: failures are bounded', () => {
  test('SMTP: a server that refuses connections fails the send at once', async () => {
    const port = await freePort();
    const transport = new SmtpTransport(`smtp://u:p@127.0.0.1:${port}`, FROM);
    await assert.rejects(transport.send(mail(3)), /ECONNREFUSED|connect/i);
    await transport.close();
  });

  test('SMTP: wrong credentials fail the send', async () => {
    const smtp = await startSmtpServer();
    const transport = new SmtpTransport(smtp.url.replace('secret-pass', 'wrong'), FROM);
    try {
      await assert.rejects(transport.send(mail(4)), /auth|Invalid/i);
      assert.equal(smtp.received.length, 0);
    } finally {
      await transport.close();
      await smtp.stop();
    }
  });

  test('eml: an unwritable directory fails the send', async () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'print-orders-eml-')), 'not-a-dir');
    fs.writeFileSync(file, '');
    await assert.rejects(new EmlTransport(file, FROM).send(mail(5)), /EEXIST|ENOTDIR/);
  });
});
