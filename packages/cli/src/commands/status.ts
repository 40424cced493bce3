/**
 * `vigil status`: how the project's managed checks and monitors are doing on the service, one line
 * per check in state: passing, degraded, failing, or not run yet; muted, deactivated or in a
 * maintenance window when so; why the last failing run failed; a heartbeat's ping URL.
 */
import type { Command } from 'commander';
import { CliError } from '../errors.js';
import { loadFromCommand } from './validate.js';

export interface StatusLine {
  address: string;
  kind: string;
  name: string;
  remoteId: string;
  /** `not executed`: the last run had no runner (no agent of its location connected). */
  state: 'passing' | 'degraded' | 'failing' | 'not executed' | 'no runs yet';
  /** Alerts are silenced: the check is muted, or an active maintenance window covers it. */
  muted: boolean;
  inMaintenance: boolean;
  activated: boolean;
  /** Why the last failing run failed; null unless the check is failing. */
  reason: string | null;
  lastRunLocation: string | null;
  lastRunAt: string | null;
  sslDaysRemaining: number | null;
  /** A heartbeat monitor's ping URL; null for other kinds. */
  pingUrl: string | null;
}

interface RemoteCheck {
  id?: unknown;
  name?: unknown;
  muted?: unknown;
  activated?: unknown;
  tags?: unknown;
  groupId?: unknown;
  heartbeat?: { pingToken?: unknown; pingUrl?: unknown } | null;
}

export function registerStatus(program: Command): void {
  program
    .command('status')
    .description("show whether each of the project's managed checks and monitors is passing, degraded or failing on the service")
    .option('--json', 'print a JSON array of {address, kind, name, remoteId, state, muted, inMaintenance, activated, reason, lastRunLocation, lastRunAt, sslDaysRemaining, pingUrl}')
    .option('--agents', "list the service's runner agents instead (vigil agent): location, live or gone, last seen, runs in flight, version")
    .addHelpText(
      'after',
      [
        '',
        'Lists every check and monitor vigil manages (API, browser, multi-step, Playwright, heartbeat, TCP,',
        'URL and DNS), reading them from state and their statuses from the service. Needs a service that',
        'runs checks: VIGIL_API_URL and VIGIL_API_KEY (a `vigil server`, or the hosted service); the',
        'embedded service of plan/apply never runs checks.',
        'Exits 1 when any check is failing (muted ones and ones in maintenance too: they fail, they only',
        'do not alert) or its last run was not executed (no agent of its location), 0 otherwise.',
        'With --agents: the runner agents the service heard from; exits 1 when any of them is gone',
        '(silent for two lease periods). Needs only VIGIL_API_URL and VIGIL_API_KEY, no project.',
      ].join('\n'),
    )
    .action(async (options: { json?: boolean; agents?: boolean }, command: Command) => {
      if (options.agents && process.env['VIGIL_API_URL']) return printAgents(options.json === true);
      const loaded = await loadFromCommand(command);
      if (options.agents) return printAgents(options.json === true, loaded.config?.api?.baseUrl);
      const { resolveTarget } = await import('../target.js');
      if (!process.env['VIGIL_API_URL'] && !loaded.config?.api?.baseUrl) {
        throw new CliError('vigil status needs a service that runs checks: set VIGIL_API_URL and VIGIL_API_KEY (the embedded service of plan/apply never runs them)');
      }
      const target = await resolveTarget({ root: loaded.root, configApi: loaded.config?.api });
      const { ADAPTERS, isStateError, printable } = await import('@vigil/engine');
      const { openStateBackend } = await import('../state-backend.js');
      const backend = await openStateBackend({ root: loaded.root, config: loaded.config, unlockCommand: 'vigil state unlock --force' });
      let state;
      try {
        state = await backend.read();
      } catch (error) {
        if (isStateError(error)) throw new CliError((error as Error).message, { cause: error });
        throw error;
      }
      // Which kinds are checks is the engine's knowledge (one adapter per kind), not a naming rule.
      const checks = Object.entries(state?.resources ?? {})
        .filter(([, resource]) => ADAPTERS[resource.kind as keyof typeof ADAPTERS]?.isCheck === true)
        .sort(([a], [b]) => a.localeCompare(b));
      if (checks.length === 0) {
        await target.close();
        process.stdout.write('No managed checks: run vigil apply first.\n');
        return;
      }
      const { createClient, ApiError } = await import('@vigil/client');
      const { isInMaintenance } = await import('@vigil/server/maintenance');
      const { failureReason } = await import('../testing/outcome.js');
      const { pingUrlOf } = await import('../heartbeat-urls.js');
      const client = createClient({ baseUrl: target.baseUrl, apiKey: target.apiKey, accountId: target.accountId || undefined, ...(target.pacing === undefined ? {} : { pacing: target.pacing }) });
      let lines: StatusLine[];
      try {
        const [statuses, remoteChecks, groups, windows] = await Promise.all([
          client.checkStatuses.list(),
          collect(client.checks.listAll() as AsyncIterable<RemoteCheck>),
          collect(client.checkGroups.listAll() as AsyncIterable<{ id?: unknown; tags?: unknown }>),
          collect(client.maintenanceWindows.listAll()),
        ]);
        const statusById = new Map(statuses.map((status) => [status.checkId, status]));
        const checkById = new Map(remoteChecks.map((check) => [String(check.id), check]));
        const groupTags = new Map(groups.map((group) => [String(group.id), strings(group.tags)]));
        const now = Date.now();
        lines = await Promise.all(
          checks.map(async ([address, resource]): Promise<StatusLine> => {
            const remoteId = String(resource.remoteId);
            const status = statusById.get(remoteId);
            const remote = checkById.get(remoteId);
            const tags = [...strings(remote?.tags), ...(remote?.groupId == null ? [] : (groupTags.get(String(remote.groupId)) ?? []))];
            // A run no runner executed says nothing of the check: it is its own state, with the reason.
            const notExecuted = status !== undefined && status.hasErrors && !status.hasFailures ? await notExecutedReason(client, remoteId) : null;
            const failing = notExecuted === null && status !== undefined && (status.hasFailures || status.hasErrors);
            return {
              address,
              kind: resource.kind,
              name: status?.name ?? String(remote?.name ?? (resource.applied as { name?: unknown } | undefined)?.name ?? ''),
              remoteId,
              state: !status ? 'no runs yet' : notExecuted !== null ? 'not executed' : failing ? 'failing' : status.isDegraded ? 'degraded' : 'passing',
              muted: remote?.muted === true,
              inMaintenance: isInMaintenance(windows, tags, now),
              activated: remote?.activated !== false,
              reason: notExecuted ?? (failing ? await lastFailure(client, remoteId, failureReason) : null),
              lastRunLocation: status?.lastRunLocation ?? null,
              lastRunAt: status?.updated_at ?? null,
              sslDaysRemaining: status?.sslDaysRemaining ?? null,
              pingUrl: resource.kind === 'heartbeat-monitor' && remote ? (pingUrlOf(target.baseUrl, remote) ?? null) : null,
            };
          }),
        );
      } catch (error) {
        const { unreachableService } = await import('../errors.js');
        if (error instanceof ApiError) throw unreachableService(error) ?? new CliError(`cannot read check statuses from ${target.baseUrl}: ${error.message}`, { cause: error });
        throw error;
      } finally {
        await target.close();
      }
      if (options.json) process.stdout.write(`${JSON.stringify(lines, null, 2)}\n`);
      else process.stdout.write(table(lines, printable));
      if (lines.some((line) => line.state === 'failing' || line.state === 'not executed')) process.exitCode = 1;
    });
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

type Client = ReturnType<typeof import('@vigil/client').createClient>;

/** The newest failing FINAL result's reason, worded as `vigil test` words it. */
async function lastFailure(client: Client, checkId: string, reasonOf: (result: never) => string): Promise<string> {
  const page = await client.checkResults.pageNewestFirst(checkId, { limit: 1, hasFailures: true });
  const [newest] = page.entries;
  return newest ? reasonOf(newest as never) : 'the last run failed';
}

/** Why the newest FINAL result was not executed, or null when it was (then the check failed inside the service). */
async function notExecutedReason(client: Client, checkId: string): Promise<string | null> {
  const page = await client.checkResults.pageNewestFirst(checkId, { limit: 1 });
  const reason = page.entries[0]?.notExecuted?.reason;
  return reason === undefined ? null : `not executed: ${reason}`;
}

interface AgentRow {
  agentId: string;
  location: string;
  agentVersion: string;
  lastSeenAt: string;
  runsInFlight: number;
  state: 'live' | 'gone';
}

/** `vigil status --agents`: GET /v1/agent/agents as a table (or JSON); exit 1 when one is gone. */
async function printAgents(json: boolean, configUrl?: string): Promise<void> {
  const baseUrl = (process.env['VIGIL_API_URL'] || configUrl || '').replace(/\/+$/, '');
  const apiKey = process.env['VIGIL_API_KEY'];
  if (!baseUrl || !apiKey) throw new CliError('vigil status --agents needs the service that agents connect to: set VIGIL_API_URL and VIGIL_API_KEY');
  const accountId = process.env['VIGIL_ACCOUNT_ID'];
  let response: Response;
  try {
    response = await fetch(`${baseUrl}/v1/agent/agents`, { headers: { authorization: `Bearer ${apiKey}`, ...(accountId ? { 'x-service-account': accountId } : {}) } });
  } catch (error) {
    throw new CliError(`cannot reach ${baseUrl}: ${(error as Error).message}`, { cause: error });
  }
  if (response.status === 404) throw new CliError(`${baseUrl} runs no agents (start vigil server with --agent-key or --agent-keys-file)`);
  if (!response.ok) throw new CliError(`cannot list agents on ${baseUrl}: HTTP ${response.status}`);
  const agents = (await response.json()) as AgentRow[];
  const { printable } = await import('@vigil/engine');
  if (json) process.stdout.write(`${JSON.stringify(agents, null, 2)}\n`);
  else if (agents.length === 0) process.stdout.write('No agent has connected.\n');
  else {
    const rows = [
      ['AGENT', 'LOCATION', 'STATE', 'LAST SEEN', 'IN FLIGHT', 'VERSION'],
      ...agents.map((agent) => [printable(agent.agentId), printable(agent.location), agent.state, agent.lastSeenAt, String(agent.runsInFlight), printable(agent.agentVersion)]),
    ];
    const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
    process.stdout.write(`${rows.map((row) => row.map((cell, column) => cell.padEnd(widths[column]!)).join('  ').trimEnd()).join('\n')}\n`);
  }
  if (agents.some((agent) => agent.state === 'gone')) process.exitCode = 1;
}

/** What the NOTE column says: why alerts are silent, and why the check does not run. */
function note(line: StatusLine): string {
  return [line.activated ? '' : 'deactivated', line.muted ? 'muted' : '', line.inMaintenance ? 'in maintenance' : ''].filter(Boolean).join(', ');
}

function table(lines: readonly StatusLine[], printable: (text: string) => string): string {
  const rows = [
    ['ADDRESS', 'NAME', 'STATUS', 'LAST RUN', 'LOCATION', 'NOTE'],
    ...lines.map((line) => [line.address, printable(line.name), line.state, line.lastRunAt ?? '', line.lastRunLocation ?? '', note(line)]),
  ];
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  const out = rows.map((row) => row.map((cell, column) => cell.padEnd(widths[column]!)).join('  ').trimEnd());
  const details = lines.flatMap((line) => [
    ...(line.reason ? [`  ${line.address}: ${printable(line.reason)}`] : []),
    ...(line.pingUrl ? [`  ${line.address} ping URL: ${line.pingUrl}`] : []),
  ]);
  return [...out, ...(details.length > 0 ? ['', ...details] : [])].join('\n') + '\n';
}
