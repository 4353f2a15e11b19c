import { Type } from '@fastify/type-provider-typebox';
import { PROOF_DECISIONS, PROOF_STATUSES } from '../domain/proofs.js';
import { NullableString, enumOf } from './schemas.js';

/** JSON shapes of proofs (interface.md, additions of 2026-11-27, "Proofs"), for serialization and /api/openapi.json. */

const ProofResponse = Type.Object({
  decision: enumOf(PROOF_DECISIONS),
  note: NullableString(),
  byId: NullableString({ description: 'who answered; null through a link' }),
  byName: Type.String(),
  via: enumOf(['account', 'link'] as const),
  at: Type.String({ format: 'date-time' }),
});

export const Proof = Type.Object({
  id: Type.String(),
  projectId: Type.String(),
  version: Type.Integer({ description: '1, 2, … per project' }),
  filename: Type.String(),
  size: Type.Integer(),
  contentType: Type.String(),
  sha256: Type.String({ description: 'lower-case hex SHA-256 of the stored bytes' }),
  url: Type.String(),
  note: NullableString(),
  status: enumOf(PROOF_STATUSES),
  postedById: Type.String(),
  postedByName: NullableString(),
  createdAt: Type.String({ format: 'date-time' }),
  response: Type.Union([ProofResponse, Type.Null()]),
});

/** What a link answers of its proof. */
export const LinkedProof = Type.Object({
  version: Type.Integer(),
  filename: Type.String(),
  contentType: Type.String(),
  size: Type.Integer(),
  note: NullableString(),
  status: enumOf(PROOF_STATUSES),
  createdAt: Type.String({ format: 'date-time' }),
});

export const ProofLinkView = Type.Object({
  project: Type.Object({ name: Type.String(), reference: NullableString(), customerName: NullableString() }),
  proof: LinkedProof,
  pageCount: Type.Union([Type.Integer(), Type.Null()], { description: '1 for a picture, a PDF its pages, null for a type without a preview' }),
});

export const ProofLinkSent = Type.Object({ id: Type.String(), email: Type.String(), expiresAt: Type.String({ format: 'date-time' }) });
