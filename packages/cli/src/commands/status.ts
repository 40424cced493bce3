/**
 * `vigil status`: how the project's managed checks are doing on the service (GET /v1/check-statuses),
 * one line per check in state: passing, degraded, failing, or not run yet.
 */
import type { Command } from 'commander';
import { CliError } from '../errors.js';
import { loadFromCommand } from './validate.js';

interface StatusLine {
  address: string;
  name: string;
  remoteId: string;
  state: 'passing' | 'degraded' | 'failing' | 'no runs yet';
  lastRunLocation: string | null;
  lastRunAt: string | null;
  sslDaysRemaining: number | null;
}

export function registerStatus(program: Command): void {
  program
    .command('status')
    .description("show whether each of the project's managed checks is passing, degraded or failing on the service")
    .option('--json', 'print a JSON array of {address, name, remoteId, state, lastRunLocation, lastRunAt, sslDaysRemaining}')
    .addHelpText(
      'after',
      [
        '',
        'Reads the checks vigil manages from state and their statuses from the service (one call).',
        'Needs a service that runs checks: VIGIL_API_URL and VIGIL_API_KEY (a `vigil server`, or the',
        'hosted service); the embedded service of plan/apply never runs checks.',
        'Exits 1 when any check is failing.',
      ].join('\n'),
    )
    .action(async (options: { json?: boolean }, command: Command) => {
      const loaded = await loadFromCommand(command);
      const { resolveTarget } = await import('../target.js');
      if (!process.env['VIGIL_API_URL'] && !loaded.config?.api?.baseUrl) {
        throw new CliError('vigil status needs a service that runs checks: set VIGIL_API_URL and VIGIL_API_KEY (the embedded service of plan/apply never runs them)');
      }
      const target = await resolveTarget({ root: loaded.root, configApi: loaded.config?.api });
      const { createLocalBackend, DEFAULT_STATE_PATH, isStateError, printable } = await import('@vigil/engine');
      const path = await import('node:path');
      const backend = createLocalBackend({ path: path.resolve(loaded.root, loaded.config?.state?.path ?? DEFAULT_STATE_PATH), unlockCommand: 'vigil state unlock --force' });
      let state;
      try {
        state = await backend.read();
      } catch (error) {
        if (isStateError(error)) throw new CliError((error as Error).message, { cause: error });
        throw error;
      }
      const checks = Object.entries(state?.resources ?? {})
        .filter(([, resource]) => resource.kind.endsWith('-check'))
        .sort(([a], [b]) => a.localeCompare(b));
      if (checks.length === 0) {
        process.stdout.write('No managed checks: run vigil apply first.\n');
        return;
      }
      const { createClient, ApiError } = await import('@vigil/client');
      const client = createClient({ baseUrl: target.baseUrl, apiKey: target.apiKey, accountId: target.accountId || undefined, ...(target.pacing === undefined ? {} : { pacing: target.pacing }) });
      let statuses;
      try {
        statuses = await client.checkStatuses.list();
      } catch (error) {
        if (error instanceof ApiError) throw new CliError(`cannot read check statuses from ${target.baseUrl}: ${error.message}`, { cause: error });
        throw error;
      } finally {
        await target.close();
      }
      const byId = new Map(statuses.map((status) => [status.checkId, status]));
      const lines: StatusLine[] = checks.map(([address, resource]) => {
        const status = byId.get(String(resource.remoteId));
        const name = status?.name ?? String((resource.applied as { name?: unknown } | undefined)?.name ?? '');
        return {
          address,
          name,
          remoteId: String(resource.remoteId),
          state: !status ? 'no runs yet' : status.hasFailures || status.hasErrors ? 'failing' : status.isDegraded ? 'degraded' : 'passing',
          lastRunLocation: status?.lastRunLocation ?? null,
          lastRunAt: status?.updated_at ?? null,
          sslDaysRemaining: status?.sslDaysRemaining ?? null,
        };
      });
      if (options.json) process.stdout.write(`${JSON.stringify(lines, null, 2)}\n`);
      else process.stdout.write(table(lines, printable));
      if (lines.some((line) => line.state === 'failing')) process.exitCode = 1;
    });
}

function table(lines: readonly StatusLine[], printable: (text: string) => string): string {
  const rows = [
    ['ADDRESS', 'NAME', 'STATUS', 'LAST RUN', 'LOCATION'],
    ...lines.map((line) => [line.address, printable(line.name), line.state, line.lastRunAt ?? '', line.lastRunLocation ?? '']),
  ];
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  return rows.map((row) => row.map((cell, column) => cell.padEnd(widths[column]!)).join('  ').trimEnd()).join('\n') + '\n';
}
