import { createRequire } from 'node:module';
import path from 'node:path';

/**
 * The shop's PDFs are written in IBM Plex Sans Devanagari (OFL-1.1, npm @ibm/plex-sans-devanagari):
 * one family that covers Latin (with ₹) and Devanagari, so a line mixing an English description and a
 * Hindi one needs no switching of fonts per run; fontkit (inside pdfkit) shapes Devanagari and
 * pdfkit embeds a subset with a ToUnicode map, so text extraction finds the words.
 */
const require = createRequire(import.meta.url);
const root = path.join(path.dirname(require.resolve('@ibm/plex-sans-devanagari/package.json')), 'fonts/complete/woff');

export const FONTS = {
  regular: path.join(root, 'IBMPlexSansDevanagari-Regular.woff'),
  bold: path.join(root, 'IBMPlexSansDevanagari-SemiBold.woff'),
} as const;
