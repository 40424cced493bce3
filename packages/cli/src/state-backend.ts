/**
 * The state backend a project's config names, built the same way for plan, apply, status and every
 * `vigil state` command: `local` (a file under the project root), `http` (a server speaking
 * Terraform's http backend protocol) or `service` (the http protocol at the target service's
 * `/v1/state/<logicalId>`, with its API key), `postgres` (a table per project in a PostgreSQL
 * database) or `s3` (an object in a bucket). Credentials come from the environment only and are
 * registered as secrets, so no message the CLI prints can carry them.
 */
import path from 'node:path';
import type { LockHolder, StateBackend } from '@vigil/engine';
import type { StateConfig, VigilConfig } from '@vigil/constructs';
import { CliError, registerSecrets } from './errors.js';
import { VERSION } from './version.js';

export interface StateBackendContext {
  /** The project root: a local state path is relative to it. */
  readonly root: string;
  readonly config: Pick<VigilConfig, 'logicalId' | 'api' | 'state'> | undefined;
  /** The command that breaks the lock, quoted in lock errors. */
  readonly unlockCommand: string;
  readonly env?: NodeJS.ProcessEnv;
}

/**
 * What a command prints (on stderr) when the state lock is held and it starts waiting: what it waits
 * for, who holds it, for how long it will wait and, on a server whose locks expire, when the holder's
 * does unless renewed, so a CI log shows why a job stands still. A lock that expired (at once, or
 * while this command waits) is stale: the notice says so, with the command that removes it.
 */
export async function lockWaitNotice(location: string, timeoutMs: number, unlockCommand: string): Promise<(holder: LockHolder) => void> {
  const { formatDuration } = await import('@vigil/engine');
  let waiting = false;
  return (holder) => {
    const stale = `without being renewed, so it is stale: its holder was killed or lost its connection. If no other vigil is using this state, remove it with: ${unlockCommand}`;
    if (waiting) {
      if (holder.expired) process.stderr.write(`The lock on ${location}, held by ${holder.description}, expired at ${holder.expiresAt} ${stale}\n`);
      return;
    }
    waiting = true;
    const expiry =
      holder.expiresAt === undefined ? '…' : holder.expired ? `; that lock expired at ${holder.expiresAt} ${stale}` : `; it expires at ${holder.expiresAt} unless its holder renews it…`;
    process.stderr.write(`Waiting up to ${formatDuration(timeoutMs)} for the lock on ${location}, held by ${holder.description}${expiry}\n`);
  };
}

/** The URL of a project's state on the service at `baseUrl`. */
export function serviceStateAddress(baseUrl: string, logicalId: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/v1/state/${encodeURIComponent(logicalId)}`;
}

/** The backend `state` describes (the config's `state` when not given). */
export async function openStateBackend(context: StateBackendContext, state: StateConfig | undefined = context.config?.state): Promise<StateBackend> {
  const engine = await import('@vigil/engine');
  const env = context.env ?? process.env;
  const backend = state ?? { backend: 'local' as const };
  switch (backend.backend) {
    case 'local':
      return engine.createLocalBackend({ path: path.resolve(context.root, backend.path ?? engine.DEFAULT_STATE_PATH), unlockCommand: context.unlockCommand });
    case 'http': {
      const username = env['VIGIL_STATE_HTTP_USERNAME'] || backend.username;
      const password = env['VIGIL_STATE_HTTP_PASSWORD'] || undefined;
      const token = env['VIGIL_STATE_HTTP_TOKEN'] || undefined;
      registerSecrets([password, token]);
      return engine.createHttpBackend({
        address: backend.address,
        ...(backend.lockAddress === undefined ? {} : { lockAddress: backend.lockAddress }),
        ...(backend.unlockAddress === undefined ? {} : { unlockAddress: backend.unlockAddress }),
        ...(backend.lockMethod === undefined ? {} : { lockMethod: backend.lockMethod }),
        ...(backend.unlockMethod === undefined ? {} : { unlockMethod: backend.unlockMethod }),
        ...(backend.updateMethod === undefined ? {} : { updateMethod: backend.updateMethod }),
        credentials: token ? { token } : username !== undefined || password !== undefined ? { username, password } : {},
        ...(backend.retryMax === undefined ? {} : { retryMax: backend.retryMax }),
        ...(backend.retryWaitMin === undefined ? {} : { retryWaitMinMs: backend.retryWaitMin * 1000 }),
        ...(backend.retryWaitMax === undefined ? {} : { retryWaitMaxMs: backend.retryWaitMax * 1000 }),
        unlockCommand: context.unlockCommand,
        version: VERSION,
      });
    }
    case 'service': {
      const baseUrl = env['VIGIL_API_URL'] || context.config?.api?.baseUrl;
      const apiKey = env['VIGIL_API_KEY'];
      if (!baseUrl || !apiKey) {
        throw new CliError(
          'state.backend "service" keeps state on the monitoring service vigil manages: set VIGIL_API_URL (or api.baseUrl in vigil.config.ts) and VIGIL_API_KEY',
        );
      }
      if (!context.config) throw new Error('this is a bug in vigil: the service state backend needs the project config');
      registerSecrets([apiKey]);
      const accountId = env['VIGIL_ACCOUNT_ID'] || context.config.api?.accountId;
      const address = serviceStateAddress(baseUrl, context.config.logicalId);
      return engine.createHttpBackend({
        address,
        credentials: { token: apiKey },
        ...(accountId ? { headers: { 'x-service-account': accountId } } : {}),
        unlockCommand: context.unlockCommand,
        version: VERSION,
      });
    }
    case 'postgres': {
      const connectionString = env['VIGIL_STATE_PG_URL'] || backend.connectionString;
      if (!connectionString) {
        throw new CliError('state.backend "postgres" needs a database: set VIGIL_STATE_PG_URL (postgres://user:password@host:5432/database), or state.connectionString without the password and PGPASSWORD');
      }
      if (!context.config) throw new Error('this is a bug in vigil: the postgres state backend needs the project config');
      registerSecrets([passwordOf(connectionString), env['PGPASSWORD']]);
      return engine.createPostgresBackend({ connectionString, workspace: context.config.logicalId, unlockCommand: context.unlockCommand });
    }
    case 's3': {
      const accessKeyId = env['AWS_ACCESS_KEY_ID'];
      const secretAccessKey = env['AWS_SECRET_ACCESS_KEY'];
      const sessionToken = env['AWS_SESSION_TOKEN'] || undefined;
      if (!accessKeyId || !secretAccessKey) {
        throw new CliError('state.backend "s3" reads its credentials from the environment: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN for temporary credentials)');
      }
      const region = backend.region ?? (env['AWS_REGION'] || env['AWS_DEFAULT_REGION']);
      if (!region) throw new CliError('state.backend "s3" needs a region: set state.region in vigil.config.ts, or AWS_REGION');
      registerSecrets([secretAccessKey, sessionToken]);
      const endpoint = backend.endpoint ?? (env['AWS_ENDPOINT_URL_S3'] || undefined);
      return engine.createS3Backend({
        bucket: backend.bucket,
        key: backend.key,
        region,
        ...(endpoint === undefined ? {} : { endpoint }),
        credentials: { accessKeyId, secretAccessKey, sessionToken },
        unlockCommand: context.unlockCommand,
        version: VERSION,
      });
    }
  }
  throw new CliError(`state.backend ${JSON.stringify((backend as { backend: unknown }).backend)} is not a state backend: use "local", "http", "service", "postgres" or "s3"`);
}

function passwordOf(connectionString: string): string | undefined {
  try {
    const password = new URL(connectionString).password;
    return password === '' ? undefined : decodeURIComponent(password);
  } catch {
    return undefined;
  }
}
