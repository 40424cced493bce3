/**
 * An error meant for the user: printed as its message alone (no stack), with the given exit code.
 * Anything else that reaches the top level is a bug in vigil and is printed as such.
 */
export class CliError extends Error {
  readonly exitCode: number;

  constructor(message: string, options: { exitCode?: number; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = 'CliError';
    this.exitCode = options.exitCode ?? 1;
  }
}

export function isCliError(value: unknown): value is CliError {
  return value instanceof Error && value.name === 'CliError' && typeof (value as CliError).exitCode === 'number';
}

/**
 * The exit code of a usage error: an unknown option, a missing argument, a malformed flag value.
 * Under `plan --detailed-exitcode`, 2 means "there are changes", so there they exit 1 (see main.ts).
 */
export const USAGE_EXIT_CODE = 2;

export function usageError(message: string, cause?: unknown): CliError {
  return new CliError(message, { exitCode: USAGE_EXIT_CODE, ...(cause === undefined ? {} : { cause }) });
}

