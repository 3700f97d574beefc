// People of a desk and their roles, as plain data. A role is held through grants with a start and an
// optional end, never by a flag that is overwritten, so "did this person hold the approver role when
// they signed?" has an answer years later. Pure: no I/O, no keys.
import { CodedError } from '../domain/coded-error';

export const ROLES = ['preparer', 'approver', 'sender', 'viewer', 'admin'] as const;
export type Role = (typeof ROLES)[number];

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

/** One person as the journal keeps them. `publicKey`: Ed25519 SPKI DER, base64. Times: epoch ms. */
export interface PersonRecord {
  id: string;
  name: string;
  publicKey: string;
  createdAt: number;
  /** Person id (or desk actor) who added them; null for the first person. */
  createdBy: string | null;
  revokedAt: number | null;
  revokedBy: string | null;
  revokeReason: string | null;
}

/** One role held for one span of time: from grantedAt (inclusive) until removedAt (exclusive), or still. */
export interface RoleGrant {
  personId: string;
  role: Role;
  grantedAt: number;
  grantedBy: string | null;
  removedAt: number | null;
  removedBy: string | null;
}

/** A person with their whole role history: what verification needs. */
export interface Person extends PersonRecord {
  grants: readonly RoleGrant[];
}

/** Whether the person held `role` at time `at` (a grant that started at or before it and had not ended). */
export function heldRoleAt(person: Person, role: Role, at: number): boolean {
  return person.grants.some((g) => g.role === role && g.grantedAt <= at && (g.removedAt === null || at < g.removedAt));
}

/** The roles held now (grants not ended), in the order of ROLES. */
export function currentRoles(person: Pick<Person, 'grants'>): Role[] {
  const held = new Set(person.grants.filter((g) => g.removedAt === null).map((g) => g.role));
  return ROLES.filter((r) => held.has(r));
}

/** Revoked at or before `at`: a revoked person's signatures count for nothing from then on. */
export function isRevokedAt(person: PersonRecord, at: number): boolean {
  return person.revokedAt !== null && person.revokedAt <= at;
}

export class PeopleError extends CodedError<'INVALID_NAME' | 'INVALID_ROLES' | 'PERSON_NOT_FOUND' | 'PERSON_REVOKED' | 'NOT_ALLOWED' | 'LAST_ADMIN' | 'WEAK_PASSPHRASE' | 'WRONG_PASSPHRASE' | 'KEY_MISSING' | 'KEY_DAMAGED' | 'KEY_ELSEWHERE' | 'KEY_MISMATCH' | 'LOCKED' | 'THROTTLED'> {}

/** Checks a name and a set of roles for a new or changed person; returns them cleaned (trimmed, deduplicated, ordered). */
export function checkPersonInput(name: string, roles: readonly string[]): { name: string; roles: Role[] } {
  const clean = name.trim().replace(/\s+/g, ' ');
  if (clean.length === 0 || clean.length > 120) throw new PeopleError('INVALID_NAME', 'A person needs a name of 1 to 120 characters');
  const unknown = roles.filter((r) => !isRole(r));
  if (unknown.length > 0) throw new PeopleError('INVALID_ROLES', `Unknown role(s): ${unknown.join(', ')}; roles are ${ROLES.join(', ')}`);
  if (roles.length === 0) throw new PeopleError('INVALID_ROLES', `A person needs at least one role (${ROLES.join(', ')})`);
  const set = new Set(roles);
  return { name: clean, roles: ROLES.filter((r) => set.has(r)) };
}
