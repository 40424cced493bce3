/**
 * What a PostgreSQL failure means for the service, and how it is told: where the database is
 * (`host:port/database`, never the password), and whether the failure is the database being away
 * (retried at start, reported by health, the pool reconnects by itself) or something a retry cannot
 * mend (a refused login, a missing database, a server without TLS when the URL asks for it).
 *
 * The connection URL carries the password, so nothing here ever prints the URL as given: errors and
 * log lines name the target, and `redactUrl` / `withoutSecrets` mask the password wherever a message
 * could have picked it up.
 */

/** `host:port/database` of a connection URL, as errors and log lines name the database. */
export function describeTarget(connectionString: string): string {
  const url = parsed(connectionString);
  if (!url) return 'the configured PostgreSQL server';
  const host = url.hostname || url.searchParams.get('host') || 'localhost';
  const port = url.port || url.searchParams.get('port') || '5432';
  const database = decodeURIComponent(url.pathname.replace(/^\//, '')) || url.searchParams.get('dbname') || decodeURIComponent(url.username) || 'postgres';
  return `${host}:${port}/${database}`;
}

/** The URL with its password (in the authority or as `password=`) replaced by `***`. */
export function redactUrl(connectionString: string): string {
  return connectionString.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/?#@]*:)[^@/?#]*@/i, '$1***@').replace(/([?&]password=)[^&#]*/gi, '$1***');
}

/** `text` with every spelling of the URL's password in it (as written, and decoded) replaced by `***`. */
export function withoutSecrets(text: string, connectionString: string): string {
  let masked = text.split(connectionString).join(redactUrl(connectionString));
  for (const secret of passwordsOf(connectionString)) masked = masked.split(secret).join('***');
  return masked;
}

function passwordsOf(connectionString: string): string[] {
  const url = parsed(connectionString);
  const written = [url?.password, url?.searchParams.get('password') ?? undefined].filter((secret): secret is string => !!secret);
  const decoded = written.map((secret) => {
    try {
      return decodeURIComponent(secret);
    } catch {
      return secret;
    }
  });
  // Longest first, so a password containing a shorter spelling of itself is masked whole.
  return [...new Set([...written, ...decoded])].sort((a, b) => b.length - a.length);
}

function parsed(connectionString: string): URL | undefined {
  try {
    return new URL(connectionString);
  } catch {
    return undefined;
  }
}

/** The database could not be reached, or the connection to it broke: it may come back. */
export class PostgresUnavailableError extends Error {
  override readonly name = 'PostgresUnavailableError';
  /** The SQLSTATE or Node error code of the cause, so callers that branch on `code` still can. */
  readonly code: string | undefined;
  constructor(target: string, reason: string, options: { cause: unknown; code: string | undefined }) {
    super(`PostgreSQL at ${target} is unavailable: ${reason}`, { cause: options.cause });
    this.code = options.code;
  }
}

/** A statement ran longer than the connection's `statement_timeout` and the server cancelled it. */
export class PostgresStatementTimeoutError extends Error {
  override readonly name = 'PostgresStatementTimeoutError';
  readonly code = STATEMENT_TIMEOUT;
  constructor(target: string, timeoutMs: number, options: { cause: unknown }) {
    super(`PostgreSQL at ${target} cancelled a statement that ran longer than ${timeoutMs} ms (statement_timeout)`, options);
  }
}

/** SQLSTATE of a statement cancelled by `statement_timeout` (query_canceled, with that message). */
const STATEMENT_TIMEOUT = '57014';

/** Node's codes for a network path to the server that failed. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN', 'ECONNABORTED']);

/**
 * SQLSTATEs of a server that is going away or not there yet: admin_shutdown (a fast shutdown or
 * `pg_terminate_backend`), crash_shutdown, cannot_connect_now (starting up, shutting down or in
 * recovery), and class 08, connection exceptions.
 */
const AWAY_STATES = new Set(['57P01', '57P02', '57P03']);

/** pg's own messages for a connection that ended or never opened, which carry no code. */
const AWAY_MESSAGES = [
  'Connection terminated unexpectedly',
  'Connection terminated due to connection timeout',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
];

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** A readable reason: Node's AggregateError (every address of a name refused) has an empty message. */
export function reasonOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if (error.message) return error.message;
  const first = (error as { errors?: unknown[] }).errors?.[0];
  if (first instanceof Error && first.message) return first.message;
  return codeOf(error) ?? error.name;
}

/** Whether `error` says the database is away (down, restarting, unreachable), not that a statement or login is wrong. */
export function isUnavailable(error: unknown): boolean {
  if (error instanceof PostgresUnavailableError) return true;
  const code = codeOf(error);
  if (code !== undefined && (NETWORK_CODES.has(code) || AWAY_STATES.has(code) || /^08[0-9A-Z]{3}$/.test(code))) return true;
  const message = error instanceof Error ? error.message : '';
  return AWAY_MESSAGES.some((known) => message.startsWith(known));
}

/**
 * The error the service sees for a failure of the pool: the database being away becomes a
 * `PostgresUnavailableError`, a statement timeout a `PostgresStatementTimeoutError`, both naming the
 * target; any other error (a constraint, a bad statement) is the driver's own, untouched, since code
 * branches on its SQLSTATE.
 */
export function translateError(error: unknown, context: { connectionString: string; target: string; statementTimeoutMs: number }): unknown {
  if (error instanceof PostgresUnavailableError || error instanceof PostgresStatementTimeoutError) return error;
  if (codeOf(error) === STATEMENT_TIMEOUT && error instanceof Error && error.message.includes('statement timeout')) {
    return new PostgresStatementTimeoutError(context.target, context.statementTimeoutMs, { cause: error });
  }
  if (!isUnavailable(error)) return error;
  return new PostgresUnavailableError(context.target, withoutSecrets(reasonOf(error), context.connectionString), { cause: error, code: codeOf(error) });
}
