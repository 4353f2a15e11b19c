import { parentPort } from 'node:worker_threads';
import { finish, newDocument } from './document.js';
import { type LayoutName, layouts } from './layouts/index.js';
import { yieldToEventLoop } from './priority.js';

// Drawing yields the CPU to the event loop (priority.ts).
yieldToEventLoop();

/**
 * A rendering thread (index.ts keeps a few): draws one document at a time and posts its bytes back
 * (transferred, not copied). Messages in: `{id, layout, data}`; out: `{id, ok: true, pdf}` or
 * `{id, ok: false, error}`; `{ready: true}` once loaded.
 */
parentPort!.on('message', (msg: { id: number; layout: LayoutName; data: unknown }) => {
  void (async () => {
    try {
      const layout = layouts[msg.layout] as ((doc: ReturnType<typeof newDocument>, data: unknown) => void) | undefined;
      if (!layout) throw new Error(`no layout named ${msg.layout}`);
      const doc = newDocument({ title: msg.layout });
      layout(doc, msg.data);
      const pdf = await finish(doc);
      const bytes = new Uint8Array(pdf.buffer, pdf.byteOffset, pdf.byteLength);
      // A small Buffer sits in Node's shared pool: copy it into a buffer of its own before transferring.
      const own = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : bytes.slice();
      parentPort!.postMessage({ id: msg.id, ok: true, pdf: own }, [own.buffer as ArrayBuffer]);
    } catch (err) {
      parentPort!.postMessage({ id: msg.id, ok: false, error: err instanceof Error ? err.message : String(err) });
    }
  })();
});

// Unpacks the fonts (once per thread: fonts.ts) and loads fontkit's shaping tables before saying ready, so a
// document's time bound counts its drawing only; a small table warms the drawing code as well.
const warm = newDocument({ title: 'warm-up' });
layouts.sample(warm, { title: 'Warm-up ₹ हिन्दी', lines: ['Visiting cards, 350 gsm ₹ 1,25,000.50', 'शादी का निमंत्रण कार्ड'] });
void finish(warm).then(() => parentPort!.postMessage({ ready: true }));
