/**
 * After `vigil apply`: the ping URL of each heartbeat monitor, which the monitored job needs. The
 * token in it is the service's; it is read back from the service here and printed, never written
 * to state or a plan (engine/kinds/heartbeat-monitor.ts keeps it out of both).
 */
import type { RemoteId, StateDocument } from '@vigil/engine';
import { redact } from './errors.js';
import type { Session } from './workflow.js';

const KIND = 'heartbeat-monitor';

export async function printPingUrls(session: Session, state: Pick<StateDocument, 'resources'>, out: (line: string) => void): Promise<void> {
  const heartbeats = Object.entries(state.resources)
    .filter(([, resource]) => resource.kind === KIND)
    .sort(([a], [b]) => (a < b ? -1 : 1));
  if (heartbeats.length === 0) return;
  const base = session.target.baseUrl.replace(/\/+$/, '');
  const lines: string[] = [];
  for (const [address, resource] of heartbeats) {
    try {
      const check = (await session.calls.call('checks.get', { params: { id: resource.remoteId } })) as HeartbeatCheck;
      lines.push(`  ${address}: ${pingUrlOf(base, check) ?? 'the service returned no ping token'}`);
    } catch (error) {
      lines.push(`  ${address}: could not read its ping URL: ${redact(error instanceof Error ? error.message : String(error))}`);
    }
  }
  out('');
  out('Ping URLs (call one from the job when it succeeds; append /fail when it fails):');
  for (const line of lines) out(line);
  if (session.target.embedded) out('  (the embedded service stops with this command: point VIGIL_API_URL at a vigil server to keep receiving pings)');
}

/**
 * `vigil state show`: a heartbeat's ping URL from the service state belongs to (VIGIL_API_URL or
 * the config's api.baseUrl, with VIGIL_API_KEY), or undefined with a note saying why not. State is
 * read offline, so a missing or unreachable service never fails the command.
 */
export async function readPingUrl(
  state: Pick<StateDocument, 'target'>,
  remoteId: RemoteId,
  configApi: { baseUrl?: string | undefined; accountId?: string | undefined } | undefined,
  note: (line: string) => void,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string | undefined> {
  const baseUrl = (env['VIGIL_API_URL'] || configApi?.baseUrl)?.replace(/\/+$/, '');
  const apiKey = env['VIGIL_API_KEY'];
  if (!baseUrl || !apiKey) {
    note('Note: the ping URL is not kept in state; set VIGIL_API_URL and VIGIL_API_KEY to read it from the service (vigil status prints it too).');
    return undefined;
  }
  const { sameTarget } = await import('@vigil/engine');
  const { serviceCalls } = await import('./service-calls.js');
  const { currentAccount } = await import('./service-identity.js');
  const { rateLimitFromEnv } = await import('./target.js');
  const accountId = env['VIGIL_ACCOUNT_ID'] || configApi?.accountId || undefined;
  const pacing = rateLimitFromEnv(env['VIGIL_RATE_LIMIT']);
  const calls = serviceCalls({ baseUrl, apiKey, accountId, ...(pacing === undefined ? {} : { pacing }) });
  try {
    const me = await currentAccount(calls);
    const target = { baseUrl, accountId: accountId ?? me?.id ?? '', ...(me?.serviceId === undefined ? {} : { serviceId: me.serviceId }) };
    if (!sameTarget(state.target, target)) {
      note(`Note: no ping URL: ${baseUrl} (account ${target.accountId}) is not the service this state belongs to (${state.target.baseUrl}, account ${state.target.accountId}).`);
      return undefined;
    }
    const check = (await calls.call('checks.get', { params: { id: remoteId } })) as HeartbeatCheck;
    const url = pingUrlOf(baseUrl, check);
    if (!url) note('Note: the service returned no ping token for this heartbeat monitor.');
    return url;
  } catch (error) {
    note(`Note: could not read the ping URL from ${baseUrl}: ${redact(error instanceof Error ? error.message : String(error))}`);
    return undefined;
  }
}

export interface HeartbeatCheck {
  heartbeat?: { pingToken?: unknown; pingUrl?: unknown } | null;
}

/** Where a heartbeat monitor takes pings (`apply`, `status` and `state show` print it), if the service said. */
export function pingUrlOf(baseUrl: string, check: HeartbeatCheck): string | undefined {
  const token = check.heartbeat?.pingToken;
  // The token is remote data: only a plain token goes into a URL printed to a terminal.
  const built = typeof token === 'string' && /^[A-Za-z0-9_-]+$/.test(token) ? `${baseUrl.replace(/\/+$/, '')}/ping/${token}` : undefined;
  return servicePingUrl(check.heartbeat?.pingUrl) ?? built;
}

/**
 * The service's own `heartbeat.pingUrl` when it sent a plain http(s) URL: it knows where it takes
 * pings (the hosted service on a host of its own, a vigil server behind `--public-url`). Remote
 * data, so only printable ASCII without spaces reaches the terminal.
 */
function servicePingUrl(value: unknown): string | undefined {
  if (typeof value !== 'string' || !/^https?:\/\/[\x21-\x7e]+$/.test(value)) return undefined;
  return URL.canParse(value) ? value : undefined;
}
