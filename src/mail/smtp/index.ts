import nodemailer from 'nodemailer';
import type { MailTransport, OutgoingMail, SentMail } from '../types.js';

/** Bounds on every SMTP step, so a server that stalls fails the send instead of holding a claimed email. */
const TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000, dnsTimeout: 10_000 };

/** SMTP_URL through nodemailer: smtp:// (STARTTLS when offered) or smtps:// (TLS from the start), credentials in the URL. */
export class SmtpTransport implements MailTransport {
  readonly name = 'smtp';
  readonly #mailer;

  constructor(url: string, from: string) {
    this.#mailer = nodemailer.createTransport({ url, ...TIMEOUTS }, { from });
  }

  async send(mail: OutgoingMail): Promise<SentMail> {
    const info = await this.#mailer.sendMail({ to: mail.to, subject: mail.subject, text: mail.text, html: mail.html });
    return { messageId: info.messageId, detail: info.response };
  }

  async close(): Promise<void> {
    this.#mailer.close();
  }
}
