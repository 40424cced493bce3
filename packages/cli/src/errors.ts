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
