/**
 * Which monitoring service a command talks to (DESIGN §8): `VIGIL_API_URL` / `VIGIL_API_KEY` /
 * `VIGIL_ACCOUNT_ID`, else the config's `api.baseUrl`, else the embedded local service: an
 * in-process `vigil server` on a loopback port whose database lives in the project at
 * `.vigil/local/`. Under `CI=true` that fallback is refused unless `--local` is given, because a CI
 * job that silently plans against an empty sandbox would report "no changes" for production.
 */
import path from 'node:path';
import { CliError } from './errors.js';

export interface Target {
  readonly baseUrl: string;
  readonly apiKey: string;
  readonly accountId: string;
  /** The identity recorded in state; stable across runs (the embedded port is not). */
  readonly stateTarget: { readonly baseUrl: string; readonly accountId: string };
  /** Set for the embedded service: a line to print first, and the pacing it does not need. */
  readonly embedded?: { readonly announcement: string; readonly dataDir: string };
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
    return { baseUrl: normalized, apiKey, accountId, stateTarget: { baseUrl: normalized, accountId }, close: async () => {} };
  }
  if (isCi(env) && !options.local) {
    throw new CliError(
      'no monitoring service is configured (VIGIL_API_URL / VIGIL_API_KEY or api.baseUrl in vigil.config.ts), and CI=true: ' +
        'refusing to fall back to the embedded local service. Pass --local to use it on purpose.',
    );
  }
  const dataDir = path.join(options.root, '.vigil', 'local');
  const { mkdir } = await import('node:fs/promises');
  await mkdir(dataDir, { recursive: true });
  const { startServer } = await import('@vigil/server');
  const server = await startServer({ port: 0, dataDir, accounts: [{ apiKey: EMBEDDED_KEY, accountId: EMBEDDED_ACCOUNT }] });
  const shown = path.relative(process.cwd(), dataDir) || '.';
  return {
    baseUrl: server.url,
    apiKey: EMBEDDED_KEY,
    accountId: EMBEDDED_ACCOUNT,
    stateTarget: { baseUrl: 'embedded-local-service', accountId: EMBEDDED_ACCOUNT },
    embedded: { announcement: `Using the embedded local service at ${server.url} (data in ${shown}; set VIGIL_API_URL to target a real one)`, dataDir },
    close: () => server.close(),
  };
}
