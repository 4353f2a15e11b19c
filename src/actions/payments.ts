import { type Deps, nowIso, todayOf } from '../deps.js';
import type { Actor, Payment, Project } from '../domain/model.js';
import { type PaymentInput, paidRefusal, parsePayment, paymentCurrency } from '../domain/pi.js';
import { maySeeProject } from '../domain/visibility.js';
import { AppError, errors } from '../errors.js';
import { newId } from '../ids.js';
import { queueProjectEmails } from '../mail/outbox.js';
import { announce } from './projects.js';
import { presentPayment } from '../presenters/index.js';
import { recordProjectActivity } from './record-activity.js';

/** Who may record a payment: an ADMIN; anyone else who may see the project 403, who may not 404. */
export function paymentRefusal(actor: Actor, project: Project | undefined): AppError | null {
  if (!project || !maySeeProject(actor, project)) return errors.projectNotFound();
  return actor.role === 'ADMIN' ? null : errors.forbidden();
}

/** Before the body is checked: the same refusal as the action's, so whoever may not record a payment hears that first. */
export async function authorizePayment(deps: Pick<Deps, 'store'>, actor: Actor, projectId: string): Promise<void> {
  const refused = paymentRefusal(actor, await deps.store.projects.findById(projectId));
  if (refused) throw refused;
}

/**
 * POST /api/projects/:id/payments (ADMIN): a payment received, in the PI's currency (CURRENCY
 * before any PI: an advance). Writes PAYMENT_RECORDED with the figures, queues the emails and
 * sends the two notifications, like any project change.
 */
export async function recordPayment(deps: Pick<Deps, 'store' | 'realtime' | 'config' | 'log' | 'clock'>, actor: Actor, projectId: string, input: PaymentInput): Promise<Payment> {
  const draft = parsePayment(input, todayOf(deps));
  if (draft instanceof AppError) throw draft;
  const now = nowIso();
  const { payment, project } = await deps.store.transaction(async (store) => {
    // The project's row is locked: two payments at once cannot both pass the sum's bound.
    const current = await store.projects.findById(projectId, { forUpdate: true });
    const refused = paymentRefusal(actor, current);
    if (refused) throw refused;
    const shown = (await store.projects.findWithNames(projectId))!;
    const currency = paymentCurrency(draft.currency, { piCurrency: shown.pi?.currency ?? null, paymentsCurrency: await store.payments.currencyOf(projectId) }, deps.config.currency);
    if (currency instanceof AppError) throw currency;
    const tooMuch = paidRefusal(shown.paid, draft.amount);
    if (tooMuch) throw tooMuch;
    const payment: Payment = { id: newId(), projectId, ...draft, currency, recordedById: actor.id, createdAt: now };
    await store.payments.insert(payment);
    const details = { paymentId: payment.id, amount: payment.amount, currency, receivedOn: payment.receivedOn };
    await recordProjectActivity(store, actor, projectId, 'PAYMENT_RECORDED', details, now, { concerned: { data: { payment: presentPayment(payment) } } });
    await queueProjectEmails(store, deps.config.mail.batchSeconds, { actor, project: current!, action: 'PAYMENT_RECORDED', details, at: now });
    return { payment, project: current! };
  });
  await announce(deps, project);
  return payment;
}
