// A pain.001 file that cannot be imported at all: nothing of it is kept, nothing is stored. Problems of one
// transaction (too many decimals, no operator rule for it…) are not thrown: they are issues on its row.
import { CodedError } from '../domain/coded-error';

export const PAIN001_FILE_ERROR_CODES = [
  'FILE_TOO_LARGE',
  'TOO_MANY_ROWS',
  'EMPTY_FILE',
  'XML_MALFORMED',
  'XML_ENCODING',
  /** A DOCTYPE, and with it any entity declaration: refused before anything is expanded (no XXE, no billion laughs). */
  'XML_DOCTYPE',
  'XML_NAMESPACE',
  'XML_MISSING_ELEMENT',
  'XML_DUPLICATE_ELEMENT',
  'XML_INVALID_VALUE',
  'XML_COUNT_MISMATCH',
  'XML_CONTROL_SUM_MISMATCH',
  /** The run's MsgId was imported before (main/iso20022/run-refs.ts): the same run is imported once. */
  'RUN_ALREADY_IMPORTED',
] as const;
export type Pain001FileErrorCode = (typeof PAIN001_FILE_ERROR_CODES)[number];

export class Pain001FileError extends CodedError<Pain001FileErrorCode> {
  constructor(
    code: Pain001FileErrorCode,
    message: string,
    /** The element path the problem is at (Document/CstmrCdtTrfInitn/PmtInf/…), when it is about one. */
    readonly path: string | null = null,
    /** Where in the file: "PmtInfId PI-2, EndToEndId E2E-7", when it is about a payment group or transaction. */
    readonly transaction: string | null = null,
  ) {
    super(code, message);
  }
}

export function isPain001FileErrorCode(code: unknown): code is Pain001FileErrorCode {
  return typeof code === 'string' && (PAIN001_FILE_ERROR_CODES as readonly string[]).includes(code);
}
