// Control records as the stores keep them: the record's canonical JSON in one text column, beside its seq and
// hash for ordering and lookups. Reading checks only the shape (zod); whether a record holds is chain-state.ts's
// question. A row that is not a record at all stops the chain there, as a record that fails would.
import { z } from 'zod';
import { canonicalJson } from '../approvals/canonical';
import { ROLES } from '../people/roles';
import { builtOnFirstUse } from '../built-on-first-use';
import type { ChainRecord } from './chain-record';
import { ChainRecordError } from './chain-state';

// Built at the first record read, not when the module loads (main/built-on-first-use.ts).
const recordSchema = builtOnFirstUse(() => {
  const Role = z.enum(ROLES);
  const Person = z.object({ id: z.string(), name: z.string(), publicKey: z.string() }).strict();
  const Rules = z
    .object({
      bands: z.record(z.string(), z.array(z.object({ atLeast: z.string(), approvals: z.number() }).strict())),
      newOrChangedPayee: z.number(),
      secondAdmin: z.boolean().optional(),
      secondFactor: z.boolean().optional(),
      countPossibleDuplicates: z.boolean().optional(),
    })
    .strict();

  const Body = z.discriminatedUnion('kind', [
    z.object({ kind: z.literal('genesis'), scope: z.string(), people: z.array(Person.extend({ roles: z.array(Role) }).strict()), policy: z.object({ version: z.number(), rules: Rules }).strict().nullable() }).strict(),
    z.object({ kind: z.literal('enrolled'), person: Person }).strict(),
    z.object({ kind: z.literal('roles'), personId: z.string(), roles: z.array(Role) }).strict(),
    z.object({ kind: z.literal('revoked'), personId: z.string(), reason: z.string() }).strict(),
    z.object({ kind: z.literal('policy'), version: z.number(), rules: Rules }).strict(),
    z.object({ kind: z.literal('desk'), keyId: z.string(), publicKey: z.string(), deskName: z.string() }).strict(),
  ]);

  return z
    .object({
      seq: z.number(),
      prev: z.string(),
      at: z.number(),
      body: Body,
      signatures: z.array(z.object({ signerId: z.string(), signature: z.string() }).strict()),
      hash: z.string(),
    })
    .strict();
});

export function encodeChainRecord(record: ChainRecord): string {
  return canonicalJson(record);
}

/** A stored record; ChainRecordError (MALFORMED) when the row is not one, or is not the record its columns say. */
export function decodeChainRecord(row: { seq: number; hash?: string; json: string }): ChainRecord {
  let parsed: ChainRecord;
  try {
    parsed = recordSchema().parse(JSON.parse(row.json)) as ChainRecord;
  } catch (error) {
    const why = error instanceof z.ZodError ? (error.issues[0]?.message ?? 'wrong shape') : 'not JSON';
    throw new ChainRecordError({ code: 'MALFORMED', seq: row.seq, message: `control record ${row.seq} is not a control record (${why})` });
  }
  if (parsed.seq !== row.seq || (row.hash !== undefined && parsed.hash !== row.hash)) {
    throw new ChainRecordError({ code: 'MALFORMED', seq: row.seq, message: `control record ${row.seq} is stored under another place or hash than it says` });
  }
  return parsed;
}
