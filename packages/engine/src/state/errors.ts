/**
 * Failures the user can act on. The CLI prints `message` alone; `code` lets callers tell them apart
 * without matching on text.
 */
export type StateErrorCode =
  | 'state-invalid'
  | 'state-locked'
  | 'state-lock-stale'
  | 'state-target-mismatch'
  | 'state-target-moved'
  | 'state-lineage-mismatch'
  | 'state-serial-stale'
  | 'state-io'
  | 'address-invalid'
  | 'address-unknown'
  | 'address-taken'
  | 'kind-mismatch'
  | 'operation-pending'
  | 'not-protected'
  | 'lock-timeout-invalid';

export class StateError extends Error {
  readonly code: StateErrorCode;

  constructor(code: StateErrorCode, message: string, options: { cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = 'StateError';
    this.code = code;
  }
}

/** Brand check rather than `instanceof`: the CLI and the engine may load separate copies. */
export function isStateError(value: unknown): value is StateError {
  return value instanceof Error && value.name === 'StateError' && typeof (value as StateError).code === 'string';
}
