import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';

/**
 * One page of a PDF drawn as pixels (pdf.js on @napi-rs/canvas, as the previews draw them): RGBA
 * bytes, `scale` pixels per point. For tests that read what is drawn rather than written (a QR code).
 */
export async function pagePixels(pdf: Buffer | Uint8Array, pageNumber: number, scale = 3): Promise<{ data: Uint8ClampedArray; width: number; height: number }> {
  const doc = await getDocument({ data: new Uint8Array(pdf), isEvalSupported: false, useSystemFonts: false, verbosity: 0 }).promise;
  try {
    const page = await doc.getPage(pageNumber);
    const viewport = page.getViewport({ scale });
    const width = Math.ceil(viewport.width);
    const height = Math.ceil(viewport.height);
    const factory = doc.canvasFactory as { create(w: number, h: number): { canvas: unknown; context: CanvasRenderingContext2D } };
    const { canvas, context } = factory.create(width, height);
    context.fillStyle = '#ffffff';
    context.fillRect(0, 0, width, height);
    await page.render({ canvas: canvas as HTMLCanvasElement, canvasContext: context, viewport, background: '#ffffff' }).promise;
    const image = context.getImageData(0, 0, width, height);
    return { data: image.data, width, height };
  } finally {
    await doc.destroy();
  }
}
