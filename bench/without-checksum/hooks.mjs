// Module hooks for the bench only: dist/src/uploads/sha256.js becomes a hash that does no work (and
// reports 64 zeros), so the same built service can be measured with and without its checksum.
const STUB = `
export class StreamingSha256 {
  update() {}
  pause() {}
  async digest() { return '0'.repeat(64); }
  destroy() {}
}
export const terminateHashingThread = async () => {};
`;

export async function load(url, context, nextLoad) {
  if (url.endsWith('/dist/src/uploads/sha256.js')) return { format: 'module', source: STUB, shortCircuit: true };
  return nextLoad(url, context);
}
