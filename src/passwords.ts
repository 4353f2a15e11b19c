import bcrypt from 'bcrypt';

/** The specification's cost factor. */
export const BCRYPT_COST = 10;

/** bcrypt on libuv's thread pool, never on the event loop. Produces standard `$2b$10$…` strings. */
export const hashPassword = (password: string): Promise<string> => bcrypt.hash(password, BCRYPT_COST);

/** Accepts `$2a$` and `$2b$` hashes, so users of an earlier deployment keep their passwords. */
export async function verifyPassword(password: string, passwordHash: string): Promise<boolean> {
  try {
    return await bcrypt.compare(password, passwordHash);
  } catch {
    return false; // a malformed stored hash matches nothing
  }
}

let dummyHash: Promise<string> | undefined;
/** A hash to compare against when the email is unknown, so that answer takes as long as a wrong password. */
export const timingDecoyHash = (): Promise<string> => (dummyHash ??= hashPassword('decoy password, never matches a login'));
