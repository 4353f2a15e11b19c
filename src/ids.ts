import { v7 } from 'uuid';

/** A new identifier: UUIDv7, random (74 bits) and ordered by creation time, never sequential. */
export const newId = (): string => v7();
