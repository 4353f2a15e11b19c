import type { Doc } from '../document.js';
import { money, type MoneyDocData } from './money.js';
import { sample, type SampleData } from './sample.js';
import { ticket, type TicketData } from './ticket.js';

/**
 * Every PDF the service makes, by name: a layout is a plain function that draws `data` (plain JSON,
 * posted to the rendering thread) on a fresh document. Add a layout here and render(name, data) can
 * make it; the data's type follows from the name.
 */
export const layouts = {
  sample,
  money,
  ticket,
} satisfies Record<string, (doc: Doc, data: never) => void>;

export type LayoutName = keyof typeof layouts;
export type LayoutData<L extends LayoutName> = Parameters<(typeof layouts)[L]>[1];
export type { MoneyDocData, SampleData, TicketData };
