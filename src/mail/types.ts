/** One email, ready to go: a single recipient, a plain-text body and a short HTML version. */
export interface OutgoingMail {
  to: { name: string; address: string };
  subject: string;
  text: string;
  html: string;
}

/** What a transport says about a delivered email (for logs and the CLI). */
export interface SentMail {
  messageId: string;
  /** Where the email went: the SMTP server's answer, or the .eml file written. */
  detail: string;
}

/**
 * Carries an email out of the service. `send` resolves once the email is accepted (the SMTP
 * server answered 250, or the file is written) and rejects otherwise, within a bounded time.
 */
export interface MailTransport {
  readonly name: 'smtp' | 'eml';
  send(mail: OutgoingMail): Promise<SentMail>;
  close(): Promise<void>;
}
