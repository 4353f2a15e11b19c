import { EMAIL_RULES } from './rules.js';
import type { OutgoingMail } from './types.js';

/** One change as an email lists it. */
export interface MailEvent {
  action: string;
  actorName: string;
  at: string;
  details: Record<string, unknown>;
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Plain text and its short HTML version from the same paragraphs (a paragraph of lines becomes a list). */
function render(to: OutgoingMail['to'], subject: string, paragraphs: (string | string[])[], link: { href: string; label: string }, footer: string): OutgoingMail {
  const textParts = paragraphs.map((p) => (Array.isArray(p) ? p.map((l) => `- ${l}`).join('\n') : p));
  const text = [`Hello ${to.name},`, ...textParts, `${link.label}: ${link.href}`, footer].join('\n\n') + '\n';
  const htmlParts = paragraphs.map((p) => (Array.isArray(p) ? `<ul>${p.map((l) => `<li>${escapeHtml(l)}</li>`).join('')}</ul>` : `<p>${escapeHtml(p)}</p>`));
  const html = [
    `<p>Hello ${escapeHtml(to.name)},</p>`,
    ...htmlParts,
    `<p><a href="${escapeHtml(link.href)}">${escapeHtml(link.label)}</a></p>`,
    `<p style="color:#666;font-size:small">${escapeHtml(footer)}</p>`,
  ].join('\n');
  return { to, subject, text, html };
}

/** The email about one project: one change, or several that came within MAIL_BATCH_SECONDS, oldest first. */
export function projectEmail(to: OutgoingMail['to'], project: { id: string; name: string }, events: MailEvent[], publicUrl: string): OutgoingMail {
  const lines = events.map((e) => EMAIL_RULES[e.action]?.describe(e) ?? e.action);
  const subject = events.length === 1 ? `${EMAIL_RULES[events[0]!.action]?.label ?? 'Update'}: ${project.name}` : `${events.length} updates: ${project.name}`;
  return render(
    to,
    subject,
    [`Project "${project.name}":`, lines],
    { href: `${publicUrl}/projects/${project.id}`, label: 'Open the project' },
    `You can choose which emails you get on your account page: ${publicUrl}/account`,
  );
}

/** The forgot-password email: a single-use link. */
export function passwordResetEmail(to: OutgoingMail['to'], link: string, validMinutes: number, publicUrl: string): OutgoingMail {
  return render(
    to,
    'Reset your password',
    [`Someone (hopefully you) asked to reset the password of ${publicUrl}. The link below works once, for ${validMinutes} minutes.`],
    { href: link, label: 'Choose a new password' },
    'If you did not ask for this, ignore this email: your password stays as it is.',
  );
}

/** `npm run cli -- send-test-email <address>` */
export function testEmail(address: string, publicUrl: string, transport: string): OutgoingMail {
  return render(
    { name: address, address },
    'Test email from the print-order service',
    [`This email checks the mail settings of ${publicUrl} (transport: ${transport}). Nothing needs doing.`],
    { href: publicUrl, label: 'Open the service' },
    'Sent by npm run cli -- send-test-email.',
  );
}
