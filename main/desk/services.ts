// The port between the IPC handlers and the services: one function per contract method, taking
// arguments that have already passed their schema. Adapters in ./areas build it from the real
// services; a method that is absent answers NOT_AVAILABLE instead of pretending to work.
import type { Area, AreaArgs, AreaResult, FieldIssue, Verb } from '../../contract/api';
import { CodedError } from '../domain/coded-error';

export type { AreaArgs, AreaResult };

export type AreaService<A extends Area> = {
  [V in Verb<A>]: [AreaArgs<A, V>] extends [void] ? () => Promise<AreaResult<A, V>> : (args: AreaArgs<A, V>) => Promise<AreaResult<A, V>>;
};

export type DeskServices = { [A in Area]: Partial<AreaService<A>> };

/** A coded failure a service raises on purpose; its message is shown to the user as is. */
export class DeskError extends CodedError<string> {
  constructor(
    code: string,
    message: string,
    readonly retryable = false,
    readonly issues: FieldIssue[] = [],
  ) {
    super(code, message);
  }
}
