import assert from 'node:assert/strict';

/**
 * Asserts that `work` rejects with an Error (and a message) within `ms`, and returns the error: the
 * drivers' contracts' "fails within a bound, never hangs". A call still pending at `ms` fails the
 * test at once instead of holding the run until the test runner's own timeout.
 */
export async function rejectsWithin(ms: number, work: Promise<unknown>, what: string): Promise<Error> {
  const started = Date.now();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), ms);
  });
  const outcome = await Promise.race([
    work.then(
      () => ({ settled: 'resolved' as const }),
      (error: unknown) => ({ settled: 'rejected' as const, error }),
    ),
    late,
  ]).finally(() => clearTimeout(timer));
  if (outcome === 'late') assert.fail(`${what}: still pending after ${ms} ms`);
  assert.equal(outcome.settled, 'rejected', `${what}: resolved, expected a failure`);
  const { error } = outcome as { error: unknown };
  assert.ok(error instanceof Error && error.message, `${what}: rejected with ${String(error)}, expected an Error saying why`);
  assert.ok(Date.now() - started <= ms);
  return error;
}

/** Asserts that `work` settles (resolves) within `ms`, and returns its value. */
export async function resolvesWithin<T>(ms: number, work: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: still pending after ${ms} ms`)), ms);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}
