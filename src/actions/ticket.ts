import type { Deps } from '../deps.js';
import { decideTicket, ticketData, ticketFilename } from '../domain/ticket.js';
import type { Actor } from '../domain/model.js';
import { shopName } from './money-documents.js';

/**
 * GET /api/projects/:id/ticket.pdf (interface.md, "The job ticket"): ADMIN or the owner (a CLIENT
 * who may see the project 403, anyone who may not 404, as for a missing project); the text is
 * domain/ticket.ts's, drawn by src/pdf's threads (layout "ticket").
 */
export async function jobTicketPdf(deps: Pick<Deps, 'store' | 'config' | 'pdf' | 'clock'>, actor: Actor, projectId: string): Promise<{ pdf: Buffer; filename: string }> {
  const project = await deps.store.projects.findWithNames(projectId);
  const refused = decideTicket(actor, project ?? null);
  if (refused) throw refused;
  const [settings, approvedProof] = await Promise.all([deps.store.shopSettings.get(), deps.store.proofs.latestApprovedVersion(projectId)]);
  const data = ticketData({
    project: project!,
    shopName: shopName(settings, deps.config.publicUrl),
    publicUrl: deps.config.publicUrl,
    approvedProof,
    currency: project!.pi?.currency ?? deps.config.currency,
    timeZone: deps.config.timeZone,
    now: deps.clock.now().toISOString(),
  });
  const pdf = await deps.pdf.render('ticket', data, actor.id);
  return { pdf, filename: ticketFilename(projectId) };
}
