/**
 * The contract every mail transport passes (MailTransport, mail/types.ts), each made by the
 * factory as the service makes it: SMTP through nodemailer against a real SMTP server
 * (smtp-server), reached through a TCP proxy so an outage is made without touching the server, and
 * the .eml default. The email arrives as composed, from MAIL_FROM, to one recipient, with text and
 * HTML; a destination that is away fails the send within a bound instead of hanging, and the
 * transport works again once it is back.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { simpleParser } from 'mailparser';
import { rejectsWithin } from '../../test/helpers/bounded.js';
import { type TestSmtpServer, startSmtpServer } from '../../test/helpers/smtp.js';
import { type TcpProxy, startTcpProxy } from '../../test/helpers/tcp-proxy.js';
import { loadConfig } from '../config.js';
import { createMailTransport } from './index.js';
import type { MailTransport, OutgoingMail } from './types.js';

/** How long a send may take to fail when its destination refuses or drops connections (SMTP) or cannot be written (.eml). */
const DOWN_BOUND_MS = 3000;
/** ... and when the SMTP server accepts the connection and never answers: nodemailer's greeting timeout (10 s), with room for a busy machine. */
const SILENT_BOUND_MS = 13_000;

const FROM = 'Print shop <orders@shop.example>';
const mail = (n: number | string): OutgoingMail => ({
  to: { name: 'Asha Rao', address: `asha${n}@example.com` },
  subject: `Approved: Catalogue ${n} — “spring”`,
  text: `Hello Asha,\n\nApproved by Ben.\n\nOpen the project: http://x.example/projects/${n}\n`,
  html: `<p>Hello Asha,</p><p><a href="http://x.example/projects/${n}">Open the project</a></p>`,
});

interface Subject {
  transport: MailTransport;
  /** What arrived so far: to, from, subject, text, html. */
  arrived(): Promise<{ to: string; from: string; subject: string; text: string; html: string }[]>;
  /** Cuts the destination off ('down': connections dropped, or the directory unwritable; 'silent': accepted, never answered); resolves with the way back, or undefined when it cannot go that way. */
  outage?(kind: 'down' | 'silent'): (() => Promise<void>) | undefined;
  close(): Promise<void>;
}

/** A transport made as the service makes it, from these settings (SMTP_URL, MAIL_FROM, DATA_DIR). */
const transportFrom = (env: Record<string, string>) => createMailTransport(loadConfig({ MAIL_FROM: FROM, ...env }));

const subjects: Record<string, () => Promise<Subject>> = {
  smtp: async () => {
    const smtp: TestSmtpServer = await startSmtpServer();
    const proxy: TcpProxy = await startTcpProxy({ host: '127.0.0.1', port: smtp.port });
    const transport = await transportFrom({ SMTP_URL: smtp.url.replace(`:${smtp.port}`, `:${proxy.port}`) });
    return {
      transport,
      arrived: async () => smtp.received.map((m) => ({ to: m.to, from: m.from, subject: m.subject, text: m.text, html: m.html })),
      outage: (kind) => proxy.outage(kind),
      close: async () => {
        await transport.close();
        await proxy.close();
        await smtp.stop();
      },
    };
  },
  eml: async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'print-orders-eml-'));
    const transport = await transportFrom({ DATA_DIR: dataDir });
    const dir = path.join(dataDir, 'mail');
    return {
      transport,
      arrived: async () => {
        const files = fs.existsSync(dir) ? fs.readdirSync(dir).sort() : [];
        assert.ok(files.every((f) => f.endsWith('.eml')));
        return Promise.all(
          files.map(async (f) => {
            const p = await simpleParser(fs.readFileSync(path.join(dir, f)));
            const text = (a: typeof p.to) => (Array.isArray(a) ? a.map((x) => x.text).join(', ') : (a?.text ?? ''));
            return { to: text(p.to), from: text(p.from), subject: p.subject ?? '', text: p.text ?? '', html: typeof p.html === 'string' ? p.html : '' };
          }),
        );
      },
      // A disk does not go silent; it can refuse to be written: a file where the mail directory goes.
      outage: (kind) => {
        if (kind === 'silent') return undefined;
        const kept = `${dir}-kept`;
        if (fs.existsSync(dir)) fs.renameSync(dir, kept);
        fs.writeFileSync(dir, '');
        return async () => {
          fs.rmSync(dir);
          if (fs.existsSync(kept)) fs.renameSync(kept, dir);
        };
      },
      close: async () => {
        await transport.close();
        fs.rmSync(dataDir, { recursive: true, force: true });
      },
    };
  },
};

for (const [name, make] of Object.entries(subjects)) {
  describe(`mail transport contract: ${name}`, () => {
    let subject: Subject;
    before(async () => {
      subject = await make();
    });
    after(() => subject?.close());

    test('the factory makes the configured transport', () => {
      assert.equal(subject.transport.name, name);
    });

    test('delivers each email as composed, from MAIL_FROM, to its one recipient', async () => {
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

    for (const kind of ['down', 'silent'] as const) {
      const bound = kind === 'down' ? DOWN_BOUND_MS : SILENT_BOUND_MS;
      test(`a destination that ${kind === 'down' ? 'refuses the email' : 'accepts the connection and never answers'}: the send fails within ${bound / 1000} s; once it is back, emails go again`, async (t) => {
        const restore = subject.outage?.(kind);
        if (!restore) return t.skip(`${name} cannot be made to go ${kind}`);
        try {
          await rejectsWithin(bound, subject.transport.send(mail(`${kind}-lost`)), 'send()');
        } finally {
          await restore();
        }
        await subject.transport.send(mail(`${kind}-back`));
        assert.ok((await subject.arrived()).some((m) => m.to.includes(`asha${kind}-back@example.com`)));
      });
    }
  });
}

describe('smtp transport, beyond the contract', () => {
  test('wrong credentials fail the send, and nothing is delivered', async () => {
    const smtp = await startSmtpServer();
    const transport = await transportFrom({ SMTP_URL: smtp.url.replace('secret-pass', 'wrong') });
    try {
      await assert.rejects(transport.send(mail(4)), /auth|Invalid/i);
      assert.equal(smtp.received.length, 0);
    } finally {
      await transport.close();
      await smtp.stop();
    }
  });
});
