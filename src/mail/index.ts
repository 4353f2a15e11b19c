import type { Config } from '../config.js';
import type { MailTransport } from './types.js';

export type { MailTransport, OutgoingMail, SentMail } from './types.js';

/** The configured transport: SMTP through nodemailer when SMTP_URL is set, else .eml files under DATA_DIR/mail. */
export async function createMailTransport(config: Pick<Config, 'mail' | 'dataDir'>): Promise<MailTransport> {
  if (config.mail.smtpUrl) {
    const { SmtpTransport } = await import('./smtp/index.js');
    return new SmtpTransport(config.mail.smtpUrl, config.mail.from);
  }
  const { EmlTransport } = await import('./eml/index.js');
  return new EmlTransport(config.dataDir, config.mail.from);
}
