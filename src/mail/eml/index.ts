import fs from 'node:fs/promises';
import path from 'node:path';
import type { Transporter } from 'nodemailer';
import { newId } from '../../ids.js';
import type { MailTransport, OutgoingMail, SentMail } from '../types.js';
import { nowDate } from '../../clock.js';

/**
 * The embedded default (no SMTP_URL): each email is composed exactly as SMTP would carry it and
 * written to DATA_DIR/mail/<time>-<id>.eml, which any mail program opens. Nothing leaves the machine.
 */
export class EmlTransport implements MailTransport {
  readonly name = 'eml';
  readonly dir: string;
  #composer: Promise<Transporter> | undefined;

  constructor(
    dataDir: string,
    private readonly from: string,
  ) {
    this.dir = path.join(dataDir, 'mail');
  }

  /** nodemailer is loaded with the first email: a process that sends none keeps it out of memory. */
  #compose(): Promise<Transporter> {
    return (this.#composer ??= import('nodemailer').then(({ default: nodemailer }) =>
      nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' }, { from: this.from }),
    ));
  }

  async send(mail: OutgoingMail): Promise<SentMail> {
    const info = await (await this.#compose()).sendMail({ to: mail.to, subject: mail.subject, text: mail.text, html: mail.html });
    await fs.mkdir(this.dir, { recursive: true });
    const file = path.join(this.dir, `${nowDate().toISOString().replace(/[:.]/g, '-')}-${newId()}.eml`);
    await fs.writeFile(file, info.message as Buffer, { flag: 'wx' });
    return { messageId: info.messageId, detail: file };
  }

  async close(): Promise<void> {}
}
