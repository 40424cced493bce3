/**
 * An error meant for the user: printed as its message alone (no stack), with the given exit code.
 * Anything else that reaches the top level is a bug in vigil and is printed as such.
 */
import { secretMatcher, type SecretMatcher } from '@vigil/runner/redaction';

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


/**
 * Every secret this process knows: the API key and the project's secret values (secret variables,
 * basic-auth passwords, alert-channel keys, webhook secrets). A service may echo a request (body
 * and headers) in an error message, so any text that came from it passes through `redact` before
 * it is printed or logged. Process-wide on purpose: one command, one set of secrets, and every
 * place that prints a service error must see them without threading them through.
 */
const knownSecrets = new Set<string>();
const REDACTED = '(redacted)';
/** Below this length a secret is replaced only as a whole word, so `pw` does not mangle "pwd". */
const SHORT_SECRET = 6;
/** Built again only when a secret is registered: `redact` runs on every printed service error. */
let matcher: SecretMatcher | undefined;

export function registerSecrets(values: Iterable<unknown>): void {
  for (const value of values) {
    if (typeof value !== 'string' || value === '' || knownSecrets.has(value)) continue;
    knownSecrets.add(value);
    matcher = undefined;
  }
}

/**
 * Control characters and bidirectional overrides, except the line break of multi-line messages:
 * what `printable` in `@vigil/engine` escapes, kept here so printing an error loads no engine.
 */
const UNPRINTABLE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * `text` fit to print: without any known secret or `Bearer <token>` credential, and with control
 * characters escaped (`\u001b`), so an echoed request cannot leak a secret or drive the terminal.
 */
export function redact(text: string): string {
  // Every spelling an echo may give a secret (JSON-escaped, percent-encoded, ...): the runner's rules.
  matcher ??= secretMatcher(knownSecrets, { wholeWordBelow: SHORT_SECRET });
  let result = matcher ? matcher.replace(text, REDACTED) : text;
  result = result.replace(/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi, `$1 ${REDACTED}`);
  return result.replace(UNPRINTABLE, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Remote text shown within one line of output (a name, an id): {@link redact}ed, line breaks escaped too. */
export function oneLine(text: string): string {
  return redact(text).replace(/\n/g, '\\n');
}

/**
 * A call that got no answer (refused, reset, timed out): most often the service is not running, or
 * VIGIL_API_URL names the wrong address, so the message says which address and where it came from.
 */
export function unreachableService(error: Error, env: NodeJS.ProcessEnv = process.env): CliError | undefined {
  if (error.name !== 'NetworkError' && error.name !== 'TimeoutError') return undefined;
  const url = env['VIGIL_API_URL'];
  const where = url ? `${url} (VIGIL_API_URL)` : 'api.baseUrl of vigil.config.ts (VIGIL_API_URL is not set)';
  return new CliError(
    `cannot reach the monitoring service at ${where}: ${error.message}\n` +
      'hint: is the service running and is that its address? Start one with `vigil server` (http://127.0.0.1:4010), or set VIGIL_API_URL to where it listens.',
    { cause: error },
  );
}

/**
 * The user error behind a failure that is not a `CliError`, or `undefined` for a real bug. State
 * problems (a damaged state file or log, a lock in the way) and answers of the service (a refused
 * key, a missing account, an unreachable URL) are the user's to fix: their message, no stack.
 */
export async function userErrorOf(error: unknown): Promise<CliError | undefined> {
  if (!(error instanceof Error)) return undefined;
  // Brand checks rather than `instanceof`: the engine and client may be loaded as separate copies.
  if (error.name === 'StateError' && typeof (error as { code?: unknown }).code === 'string') return new CliError(error.message, { cause: error });
  const { ApiError } = await import('@vigil/client');
  if (!(error instanceof ApiError)) return undefined;
  const unanswered = unreachableService(error);
  if (unanswered) return unanswered;
  const status = (error as { status?: unknown }).status;
  if (status === 401) return new CliError(`the service refused the API key: ${error.message}. Check VIGIL_API_KEY.`, { cause: error });
  if (status === 403) return new CliError(`the service refused access: ${error.message}. Check VIGIL_ACCOUNT_ID and the key's permissions.`, { cause: error });
  return new CliError(error.message, { cause: error });
}
