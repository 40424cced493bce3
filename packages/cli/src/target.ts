/**
 * Which monitoring service a command talks to: `VIGIL_API_URL` / `VIGIL_API_KEY` /
 * `VIGIL_ACCOUNT_ID`, else the config's `api.baseUrl`, else the embedded local service: an
 * in-process `vigil server` on a loopback port whose database lives in the project at
 * `.vigil/local/`. Under `CI=true` that fallback is refused unless `--local` is given, because a CI
 * job that silently plans against an empty sandbox would report "no changes" for production.
 *
 * `VIGIL_RATE_LIMIT` tells the client the service's budget when it is not the hosted default of
 * 600/60 (`N/S`), or that there is none (`off`, e.g. a `vigil server` started without
 * `--rate-limit`); the embedded service is never paced.
 */
import path from 'node:path';
import { parseRateLimit, RateLimitSpecError } from '@vigil/schema';
import { CliError } from './errors.js';
import { EMBEDDED_TARGET } from './plan-target.js';
import { loadServer } from './server-module.js';

export interface Target {
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly accountId: string;
  /** The identity recorded in state; stable across runs (the embedded port is not). */
  readonly stateTarget: { readonly baseUrl: string; readonly accountId: string };
  /** Set for the embedded service: a line to print first. */
  readonly embedded?: { readonly announcement: string; readonly dataDir: string };
  /** The client's request budget: `false` for none; absent for the client's default (600/60). */
  readonly pacing?: { readonly requests: number; readonly windowSeconds: number } | false;
  close(): Promise<void>;
}

export interface TargetOptions {
  readonly root: string;
  readonly configApi?: { readonly baseUrl?: string | undefined; readonly accountId?: string | undefined } | undefined;
  /** `--local`: use the embedded service even with CI=true. */
  readonly local?: boolean;
  readonly env?: NodeJS.ProcessEnv;
}

const EMBEDDED_KEY = 'vigil-local';
const EMBEDDED_ACCOUNT = 'local';

function isCi(env: NodeJS.ProcessEnv): boolean {
  return env.CI !== undefined && env.CI !== '' && env.CI !== 'false' && env.CI !== '0';
}

export async function resolveTarget(options: TargetOptions): Promise<Target> {
  const env = options.env ?? process.env;
  const baseUrl = env.VIGIL_API_URL || options.configApi?.baseUrl;
  if (baseUrl && !options.local) {
    const apiKey = env.VIGIL_API_KEY;
    if (!apiKey) {
      throw new CliError(`the target ${baseUrl} needs an API key: set VIGIL_API_KEY (and VIGIL_ACCOUNT_ID to pick an account)`);
    }
    const accountId = env.VIGIL_ACCOUNT_ID || options.configApi?.accountId || '';
    const normalized = baseUrl.replace(/\/+$/, '');
    const pacing = rateLimitFromEnv(env.VIGIL_RATE_LIMIT);
    return {
      baseUrl: normalized,
      apiKey,
      accountId,
      stateTarget: { baseUrl: normalized, accountId },
      ...(pacing === undefined ? {} : { pacing }),
      close: async () => {},
    };
  }
  if (isCi(env) && !options.local) {
    throw new CliError(
      'no monitoring service is configured (VIGIL_API_URL / VIGIL_API_KEY or api.baseUrl in vigil.config.ts), and CI=true: ' +
        'refusing to fall back to the embedded local service. Pass --local to use it on purpose.',
    );
  }
  // First, so that without better-sqlite3 nothing is created before the command stops.
  const { startServer } = await loadServer();
  const dataDir = path.join(options.root, '.vigil', 'local');
  const { chmod, mkdir } = await import('node:fs/promises');
  // The database holds secret values: vigil's own directory is private to the owner, also when an
  // older vigil created it 0755. The server makes the files in it 0600.
  await mkdir(path.dirname(dataDir), { recursive: true });
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  await chmod(dataDir, 0o700);
  const server = await startServer({ port: 0, dataDir, accounts: [{ apiKey: EMBEDDED_KEY, accountId: EMBEDDED_ACCOUNT }] });
  const shown = path.relative(process.cwd(), dataDir) || '.';
  return {
    baseUrl: server.url,
    apiKey: EMBEDDED_KEY,
    accountId: EMBEDDED_ACCOUNT,
    stateTarget: { baseUrl: EMBEDDED_TARGET, accountId: EMBEDDED_ACCOUNT },
    pacing: false,
    embedded: { announcement: `Using the embedded local service at ${server.url} (data in ${shown}; set VIGIL_API_URL to target a real one)`, dataDir },
    close: () => server.close(),
  };
}

/** `VIGIL_RATE_LIMIT`: unset or empty for the client's default, `off` for no pacing, else `N/S`. */
export function rateLimitFromEnv(value: string | undefined): { requests: number; windowSeconds: number } | false | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  if (value.trim().toLowerCase() === 'off') return false;
  try {
    return parseRateLimit(value);
  } catch (error) {
    if (error instanceof RateLimitSpecError) throw new CliError(`VIGIL_RATE_LIMIT: ${error.message}, or "off" for a service without a rate limit`);
    throw error;
  }
}
