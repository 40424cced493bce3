/**
 * After `vigil apply`: the ping URL of each heartbeat monitor, which the monitored job needs. The
 * token in it is the service's; it is read back from the service here and printed, never written
 * to state or a plan (engine/kinds/heartbeat-monitor.ts keeps it out of both).
 */
import type { StateDocument } from '@vigil/engine';
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
