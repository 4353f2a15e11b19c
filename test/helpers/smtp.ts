import assert from 'node:assert/strict';
import { type AddressObject, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { eventually, eventuallyPasses } from './eventually.js';
import { freePort } from './service.js';

/** One email as the SMTP server received it: the envelope, and the message parsed. */
export interface ReceivedMail {
  envelopeFrom: string;
  /** RCPT TO addresses, lower-case */
  rcptTo: string[];
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string;
}

export interface TestSmtpServer {
  port: number;
  /** SMTP_URL for the service (with the credentials the server requires). */
  url: string;
  received: ReceivedMail[];
  /** Resolves once `count` emails have arrived in all (fails after timeoutMs). */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedMail[]>;
  /** The emails to one address. */
  to(address: string): ReceivedMail[];
  /** Waits for the email to `address` that follows the first `seen` of them, and returns it (fails after timeoutMs). */
  nextTo(address: string, seen?: number, timeoutMs?: number): Promise<ReceivedMail>;
  /** Stops listening (connections are refused) until start() listens again on the same port. */
  stop(): Promise<void>;
  start(): Promise<void>;
}

const USER = 'mailer';
const PASS = 'secret-pass';

/**
 * A real SMTP server on 127.0.0.1 (the smtp-server package: the protocol as a mail relay speaks
 * it, AUTH PLAIN/LOGIN required), keeping every email it accepts.
 */
export async function startSmtpServer(): Promise<TestSmtpServer> {
  const port = await freePort();
  const received: ReceivedMail[] = [];
  let server: SMTPServer | undefined;

  const listen = () =>
    new Promise<void>((resolve, reject) => {
      server = new SMTPServer({
        authOptional: false,
        allowInsecureAuth: true, // plain TCP on 127.0.0.1
        disabledCommands: ['STARTTLS'],
        logger: false,
        onAuth(auth, _session, cb) {
          if (auth.username === USER && auth.password === PASS) cb(null, { user: USER });
          else cb(new Error('Invalid username or password'));
        },
        onData(stream, session, cb) {
          simpleParser(stream).then(
            (parsed) => {
              const address = (a: AddressObject | AddressObject[] | undefined) => (Array.isArray(a) ? a.map((x) => x.text).join(', ') : (a?.text ?? ''));
              received.push({
                envelopeFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
                rcptTo: session.envelope.rcptTo.map((r) => r.address.toLowerCase()),
                from: address(parsed.from),
                to: address(parsed.to),
                subject: parsed.subject ?? '',
                text: parsed.text ?? '',
                html: typeof parsed.html === 'string' ? parsed.html : '',
              });
              cb();
            },
            (err: Error) => cb(err),
          );
        },
      });
      server.on('error', () => {}); // a client dropping mid-session is not the test's failure
      server.listen(port, '127.0.0.1', () => resolve());
      server.server.once('error', reject);
    });

  await listen();
  const smtp: TestSmtpServer = {
    port,
    url: `smtp://${USER}:${PASS}@127.0.0.1:${port}`,
    received,
    async waitFor(count, timeoutMs = 10_000) {
      const came = () => received.map((m) => `${m.rcptTo.join(',')} "${m.subject}"`).join('; ');
      await eventuallyPasses(() => assert.ok(received.length >= count, `${received.length} of ${count} emails within ${timeoutMs} ms: ${came()}`), timeoutMs);
      return received.slice();
    },
    to: (address) => received.filter((m) => m.rcptTo.includes(address.toLowerCase())),
    async nextTo(address, seen = 0, timeoutMs = 10_000) {
      await eventually(`email ${seen + 1} to ${address}`, () => smtp.to(address).length > seen, timeoutMs);
      return smtp.to(address)[seen]!;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        const s = server;
        server = undefined;
        if (!s) return resolve();
        s.close(() => resolve());
      }),
    start: listen,
  };
  return smtp;
}
