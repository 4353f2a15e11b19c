import { type AllowedTypes, refusedType } from '../domain/content-types.js';
import { errors } from '../errors.js';

/**
 * UPLOAD_ALLOWED_TYPES, checked after the specification's checks 1–7 and before step 8, so a refusal
 * by type never changes a specified answer and stores nothing: 415 naming the refused type.
 */
export function admitType(allowed: AllowedTypes, declared: string, detected: string | null): void {
  const refused = refusedType(allowed, declared, detected);
  if (refused !== null) throw errors.typeNotAllowed(refused);
}
