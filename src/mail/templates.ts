import { type Digest, type DigestProject, daysLate } from '../domain/due-digest.js';
import { PI_LABELS, STAGE_LABELS, jobName, stageOf } from '../domain/labels.js';
import { formatShopDate, formatShopDateTime } from '../domain/shop-format.js';
import type { Project } from '../domain/model.js';
import { emailRuleOf } from './rules.js';
import type { OutgoingMail } from './types.js';

/** One change as an email lists it. */
export interface MailEvent {
  action: string;
  actorName: string;
  at: string;
  details: Record<string, unknown>;
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A list line that opens with a link: its label linked in HTML, its address after the line in the text. */
interface LinkedLine {
  label: string;
  href: string;
  rest: string;
}

const textLine = (l: string | LinkedLine) => (typeof l === 'string' ? `- ${l}` : `- ${l.label}${l.rest}\n  ${l.href}`);
const htmlLine = (l: string | LinkedLine) => (typeof l === 'string' ? `<li>${escapeHtml(l)}</li>` : `<li><a href="${escapeHtml(l.href)}">${escapeHtml(l.label)}</a>${escapeHtml(l.rest)}</li>`);

/** Plain text and its short HTML version from the same paragraphs (a paragraph of lines becomes a list); every text escaped in the HTML. */
function render(to: OutgoingMail['to'], subject: string, paragraphs: (string | (string | LinkedLine)[])[], link: { href: string; label: string }, footer: string): OutgoingMail {
  const textParts = paragraphs.map((p) => (Array.isArray(p) ? p.map(textLine).join('\n') : p));
  const text = [`Hello ${to.name},`, ...textParts, `${link.label}: ${link.href}`, footer].join('\n\n') + '\n';
  const htmlParts = paragraphs.map((p) => (Array.isArray(p) ? `<ul>${p.map(htmlLine).join('')}</ul>` : `<p>${escapeHtml(p)}</p>`));
  const html = [
    `<p>Hello ${escapeHtml(to.name)},</p>`,
    ...htmlParts,
    `<p><a href="${escapeHtml(link.href)}">${escapeHtml(link.label)}</a></p>`,
    `<p style="color:#666;font-size:small">${escapeHtml(footer)}</p>`,
  ].join('\n');
  return { to, subject, text, html };
}

/** One change as a line: what happened and who did it, then its note when it has one (any change may carry one). */
function changeLine(e: MailEvent): string {
  const line = emailRuleOf(e.action)?.describe(e) ?? e.action;
  return typeof e.details.note === 'string' && e.details.note.trim() ? `${line} Note: ${e.details.note.trim()}` : line;
}

/**
 * Where the project stands, as the web app names it: its stage, and its PI once there is one to
 * speak of ("Approved, PI verified"; "Awaiting approval"; "Cancelled").
 */
export function projectState(project: Pick<Project, 'status' | 'piStatus' | 'approval'>): string {
  const stage = STAGE_LABELS[stageOf(project)];
  if (project.piStatus === 'PENDING' || project.status === 'CANCELLED') return stage;
  return `${stage}, PI ${PI_LABELS[project.piStatus].toLowerCase()}`;
}

// A project as people name it ("#1042 Brochures"): shared with the web app (src/domain/labels.ts).
export { jobName } from '../domain/labels.js';

/**
 * The email about one project: one change, or several that came within MAIL_BATCH_SECONDS, in the
 * order they happened, each with its note; then where the project stands. `project` is read when
 * the email is sent, so that line holds even when later changes (the recipient's own, or ones that
 * send them no email) came after the listed ones.
 */
export function projectEmail(
  to: OutgoingMail['to'],
  project: Pick<Project, 'id' | 'name' | 'status' | 'piStatus' | 'approval'> & Partial<Pick<Project, 'number'>>,
  events: MailEvent[],
  publicUrl: string,
): OutgoingMail {
  const ordered = events.map((e, i) => ({ e, i })).sort((a, b) => Date.parse(a.e.at) - Date.parse(b.e.at) || a.i - b.i).map(({ e }) => e);
  const named = jobName(project);
  const subject = ordered.length === 1 ? `${emailRuleOf(ordered[0]!.action)?.label ?? 'Update'}: ${named}` : `${ordered.length} updates: ${named}`;
  return render(
    to,
    subject,
    [`Project ${project.number ? `#${project.number} ` : ''}"${project.name}":`, ordered.map(changeLine), `Where it stands now: ${projectState(project)}.`],
    { href: `${publicUrl}/projects/${project.id}`, label: 'Open the project' },
    `You can choose which emails you get on your account page: ${publicUrl}/account`,
  );
}

/**
 * The morning due-date digest (actions/due-digest.ts): the projects overdue, longest first, then those
 * due on `day`, each with its name, the customer's reference, its due date, where it stands and its
 * link. `more`: the list was cut at its bound, and the projects page has the rest.
 */
export function dueDigestEmail(to: OutgoingMail['to'], day: string, digest: Digest, scope: 'all' | 'own', publicUrl: string, more = false): OutgoingMail {
  const line = (p: DigestProject): LinkedLine => {
    const reference = p.reference ? ` (ref. ${p.reference})` : '';
    const late = daysLate(p.dueDate!, day);
    const due = late > 0 ? `due ${formatShopDate(p.dueDate!)}, ${late} day${late === 1 ? '' : 's'} overdue` : 'due today';
    return { label: jobName(p), href: `${publicUrl}/projects/${p.id}`, rest: `${reference}: ${due}; ${projectState(p)}.` };
  };
  const counts = [digest.overdue.length && `${digest.overdue.length} overdue`, digest.today.length && `${digest.today.length} due today`].filter(Boolean).join(', ');
  const paragraphs: (string | LinkedLine[])[] = [`${scope === 'own' ? 'Your projects' : 'Projects'} overdue or due today (${formatShopDate(day)}), as they stand now:`];
  if (digest.overdue.length) paragraphs.push(`Overdue (${digest.overdue.length}):`, digest.overdue.map(line));
  if (digest.today.length) paragraphs.push(`Due today (${digest.today.length}):`, digest.today.map(line));
  if (more) paragraphs.push('There are more than this email lists: the projects page has them all.');
  return render(
    to,
    `Due dates for ${formatShopDate(day)}: ${counts}`,
    paragraphs,
    { href: `${publicUrl}/projects`, label: 'Open the projects' },
    `This email comes each morning when something is overdue or due that day. You can switch it off on your account page: ${publicUrl}/account`,
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

/** An endpoint switched off after failing too long (webhooks/dispatcher.ts): to each active admin. */
export function webhookDeactivatedEmail(to: OutgoingMail['to'], webhook: { url: string; failingSince: string; lastError: string | null }, publicUrl: string, timeZone: string): OutgoingMail {
  return render(
    to,
    'A webhook was switched off',
    [
      `The webhook to ${webhook.url} has failed every delivery since ${formatShopDateTime(webhook.failingSince, timeZone)}, so it was switched off; the events it had still to receive are marked failed.`,
      ...(webhook.lastError ? [`Last error: ${webhook.lastError}`] : []),
      'Once the receiver works again, switch the webhook on and retry the failed deliveries on the Webhooks page.',
    ],
    { href: `${publicUrl}/webhooks`, label: 'Open the Webhooks page' },
    'Sent to every admin of the print-order service.',
  );
}

/** An approval link for a proof (interface.md, "Proofs"), to a customer's address that may have no account: sent at once, never batched. */
export function proofLinkEmail(
  to: OutgoingMail['to'],
  proof: { projectName: string; version: number; filename: string; sentBy: string },
  link: string,
  validDays: number,
  publicUrl: string,
): OutgoingMail {
  return render(
    to,
    `Proof v${proof.version} of ${proof.projectName}: your approval, please`,
    [
      `${proof.sentBy} sent you proof v${proof.version} (${proof.filename}) of "${proof.projectName}" to look at.`,
      `Open the link to see it, then approve it or ask for changes. It works for ${validDays} days, until the proof is answered or replaced.`,
    ],
    { href: link, label: 'See the proof' },
    `Sent by ${publicUrl}. Anyone holding this link can answer for you: do not forward it.`,
  );
}
