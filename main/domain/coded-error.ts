// The one base of the desk's own errors: a stable upper-case code that callers, the IPC layer
// (main/desk/errors.ts) and the CLI match on, and a sentence a person can act on. The IPC layer shows a
// CodedError's message as it is; any other error reads as INTERNAL, its detail kept in the log.

export class CodedError<Code extends string = string> extends Error {
  constructor(
    readonly code: Code,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = new.target.name;
  }
}

export const isCodedError = (error: unknown): error is CodedError => error instanceof CodedError;
