import { type AppError, errors } from '../errors.js';
import type { TicketData } from '../pdf/layouts/ticket.js';
import { STAGE_LABELS, jobName, stageOf } from './labels.js';
import type { Actor, ProjectWithNames } from './model.js';
import { formatMoney, formatShopDate, formatShopDateTime } from './shop-format.js';
import { maySeeProject } from './visibility.js';

/**
 * The job ticket (interface.md, "The job ticket"): who may fetch it, and what it says, as text.
 * Pure: the action reads the project, the shop's name and the latest approved proof; the layout
 * (pdf/layouts/ticket.ts) only places what this writes.
 */

/** ADMIN and the owner; anyone else who may see the project 403 (a CLIENT of its customer), anyone who may not 404, as a missing project. */
export function decideTicket(actor: Actor, project: Pick<ProjectWithNames, 'pocId' | 'customerId'> | null): AppError | null {
  if (!project || !maySeeProject(actor, project)) return errors.projectNotFound();
  if (actor.role !== 'ADMIN' && project.pocId !== actor.id) return errors.forbidden();
  return null;
}

export interface TicketInput {
  project: ProjectWithNames;
  shopName: string;
  publicUrl: string;
  /** The version of the latest approved proof, null when none is approved. */
  approvedProof: number | null;
  /** The project's currency (its PI's, else the CURRENCY setting), for the line prices. */
  currency: string;
  timeZone: string;
  now: string;
}

export const ticketFilename = (projectId: string) => `ticket-${projectId}.pdf`;

export function ticketData({ project: p, shopName, publicUrl, approvedProof, currency, timeZone, now }: TicketInput): TicketData {
  const priced = p.items.some((l) => l.unitPrice != null || l.gstRate != null || l.hsnSac != null);
  const hold = p.hold ? `${p.hold.reason} (since ${formatShopDateTime(p.hold.since, timeZone)}${p.hold.byName ? `, by ${p.hold.byName}` : ''})` : null;
  return {
    shopName,
    number: `#${p.number}`,
    name: p.name,
    id: p.id,
    description: p.description,
    rush: p.rush,
    hold,
    facts: [
      ['Customer', p.customerName ?? 'None recorded'],
      ['Due date', p.dueDate ? formatShopDate(p.dueDate) : 'None'],
      ['Reference', p.reference ?? 'None'],
      ['Status', STAGE_LABELS[stageOf(p)]],
      ['Owner', p.pocName ?? 'Unknown'],
      ['Approved proof', approvedProof === null ? 'None approved' : `v${approvedProof}`],
      ['Ordered', formatShopDateTime(p.createdAt, timeZone)],
      ...(p.repeatOf ? [['Repeat of', jobName(p.repeatOf)] as [string, string]] : []),
    ],
    deliveryAddress: p.deliveryAddress,
    priced,
    lines: p.items.map((l) => ({
      description: l.description,
      quantity: `${l.quantity.toLocaleString('en-IN')} ${l.unit}`,
      size: l.size ?? '',
      stock: l.stock ?? '',
      colours: l.colours ?? '',
      finishing: l.finishing ?? '',
      notes: l.notes ?? '',
      price: [l.unitPrice != null && `${formatMoney(l.unitPrice, currency)} each`, l.gstRate != null && `GST ${l.gstRate}%`, l.hsnSac && `HSN/SAC ${l.hsnSac}`].filter(Boolean).join('\n'),
    })),
    url: `${publicUrl}/projects/${p.id}`,
    footer: `Printed ${formatShopDateTime(now, timeZone)} · ${shopName}`,
  };
}
