/**
 * The body of `vigil apply` and `vigil destroy`: lock state, finish what an interrupted
 * apply left pending, plan, confirm, walk the plan, report root causes. The lock is held from before
 * the plan is made until the last state write, so no second apply can interleave.
 */
import type { Command } from 'commander';
import type { ApplyEvent, ApplyReport, Operation, PlanResult, StateLock } from '@vigil/engine';
import { CliError, redact, usageError } from './errors.js';
import { parseLockTimeoutFlag, parseParallelism } from './flags.js';
import { confirm } from './prompt.js';
import { computePlan, currentState, openSession, recordDeclaredState, useColor, type Session } from './workflow.js';
import { printPingUrls } from './heartbeat-urls.js';

export interface ApplyFlags {
  autoApprove?: boolean;
  parallelism: string;
  lockTimeout: string;
  target?: string[];
  local?: boolean;
}

export interface RunOptions {
  readonly mode: 'apply' | 'destroy';
  readonly flags: ApplyFlags;
  readonly savedPlanPath?: string | undefined;
}

/** Takes the state lock, waiting up to `timeoutMs` (from {@link parseLockTimeoutFlag}). */
export async function takeLock(session: Session, timeoutMs: number, mode: string): Promise<StateLock> {
  const { isStateError } = await import('@vigil/engine');
  try {
    const { lockWaitNotice } = await import('./state-backend.js');
    const onWait = await lockWaitNotice(session.backend.describe(), timeoutMs, session.unlockCommand);
    return await session.backend.lock({ timeoutMs, command: `vigil ${mode}`, onWait });
  } catch (error) {
    if (isStateError(error)) throw new CliError(error.message, { cause: error });
    throw error;
  }
}

export async function runApply(command: Command, options: RunOptions): Promise<void> {
  const { flags } = options;
  // Flags are checked before the project is loaded or an embedded service started.
  const parallelism = parseParallelism(flags.parallelism);
  const lockTimeoutMs = await parseLockTimeoutFlag(flags.lockTimeout);
  if (options.savedPlanPath && (flags.target?.length ?? 0) > 0) {
    throw usageError(`--target cannot be combined with a saved plan: ${options.savedPlanPath} is applied with the targets it was made with`);
  }
  const out = (line: string) => process.stdout.write(`${line}\n`);
  // A saved plan is read first: a missing or damaged file stops before anything is loaded, and a
  // saved destroy plan (`vigil plan --destroy --out`) is applied as a destroy.
  const saved = options.savedPlanPath ? await (await import('./commands/show.js')).readSavedPlan(options.savedPlanPath) : undefined;
  const mode = saved?.destroy ? 'destroy' : options.mode;
  const session = await openSession(command, { local: flags.local ?? false, log: out });
  let lock: StateLock | undefined;
  try {
    const engine = await import('@vigil/engine');
    lock = await takeLock(session, lockTimeoutMs, mode);
    const state = await currentState(session, await session.backend.read(), lock);
    const writer = new engine.StateWriter(lock, state);

    if (state.journal.length > 0) {
      const desired = new Map(session.loaded.specs.map((spec) => [spec.address, engine.desiredResourceOf(spec)]));
      for (const { entry, outcome } of await engine.recoverJournal({ api: session.calls, writer, desired })) {
        out(`Recovered the interrupted ${entry.operation} of ${entry.address}: ${redact(outcome)}`);
      }
    }

    // A saved plan is re-derived exactly as it was made: its own --target list, not this run's.
    const targets = saved ? (saved.targets ?? []) : (flags.target ?? []);
    const planned = await computePlan(session, writer.document, { targets, destroy: mode === 'destroy' });
    const { plan } = planned;
    const { printDiagnostics } = await import('./commands/validate.js');
    const errors = plan.diagnostics.filter((diagnostic) => diagnostic.severity === 'error');

    if (options.savedPlanPath && saved) {
      const difference = engine.savedPlanDifference(saved, planned.plan);
      const file = options.savedPlanPath;
      if (difference) throw new CliError(`saved plan is stale: ${difference}. Run vigil plan${saved.destroy ? ' --destroy' : ''} --out ${file} again and review it.`);
    } else {
      const { targetHeader } = await import('./plan-target.js');
      process.stdout.write(targetHeader(plan) + engine.renderText(plan, { color: useColor(command) }));
    }
    if (errors.length > 0) {
      printDiagnostics(errors, (text) => process.stderr.write(text));
      throw new CliError(`nothing was ${mode === 'destroy' ? 'destroyed' : 'applied'}: the plan has errors (see above)`);
    }
    await recordDeclaredState(session, writer, mode);
    if (!engine.hasChanges(plan)) {
      if (options.savedPlanPath) out('No changes. Your monitoring matches the code.');
      if (mode === 'apply') await printPingUrls(session, writer.document, out);
      return;
    }
    if (!options.savedPlanPath && !flags.autoApprove) {
      const question = mode === 'destroy' ? 'Do you really want to destroy all resources?' : 'Do you want to apply these changes?';
      const answer = await confirm(question);
      if (answer !== 'yes') {
        out(mode === 'destroy' ? 'Destroy cancelled.' : 'Apply cancelled.');
        // Not a success: a script that pipes an answer in must not read "no" as "applied" (as Terraform).
        process.exitCode = answer === 'interrupted' ? 130 : 1;
        return;
      }
    }

    // Ctrl-C stops starting new calls; the ones in flight finish and are recorded, so state stays
    // exact and the lock is released. SIGTERM (how CI runners cancel a job, before they SIGKILL)
    // does the same, so a cancelled job leaves no lock behind. A second signal is left to Node's
    // default (immediate exit).
    const stop = new AbortController();
    let stoppedBy: NodeJS.Signals | undefined;
    const onSignal = (signal: NodeJS.Signals) => {
      process.stderr.write(`\nInterrupted${signal === 'SIGINT' ? '' : ` (${signal})`}: finishing the calls in flight, starting no new ones…\n`);
      stoppedBy = signal;
      stop.abort();
      for (const name of STOP_SIGNALS) process.removeListener(name, onSignal);
    };
    for (const name of STOP_SIGNALS) process.on(name, onSignal);
    let report: ApplyReport;
    try {
      report = await engine.applyPlan({ planned, api: session.calls, writer, parallelism, signal: stop.signal, onEvent: progressReporter(planned) });
    } finally {
      for (const name of STOP_SIGNALS) process.removeListener(name, onSignal);
    }
    // The steps are safe in the state log already; this makes state.json whole again on its own.
    await writer.checkpoint();
    printReport(report, mode);
    if (mode === 'apply') await printPingUrls(session, writer.document, out);
    if (stoppedBy) process.exitCode = stoppedBy === 'SIGTERM' ? 143 : 130;
    else if (report.failed.length > 0) process.exitCode = 1;
  } finally {
    await lock?.release();
    await session.close();
  }
}

const STOP_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM'];

const VERB: Record<'create' | 'update' | 'delete', [string, string]> = {
  create: ['creating', 'created'],
  update: ['updating', 'updated'],
  delete: ['deleting', 'deleted'],
};

function progressReporter(planned: PlanResult): (event: ApplyEvent) => void {
  const total = planned.plan.changes.reduce((sum, change) => sum + (change.action === 'replace' ? 2 : change.action === 'noop' ? 0 : 1), 0);
  const started = Date.now();
  let done = 0;
  const tty = process.stdout.isTTY === true;
  return (event) => {
    const { operation } = event;
    if (event.type === 'started') {
      if (tty) {
        const elapsed = ((Date.now() - started) / 1000).toFixed(1);
        process.stdout.write(`\r\u001b[2K[${done}/${total}] ${VERB[operation.operation][0]} ${operation.address} (${elapsed}s)`);
      }
      return;
    }
    done += 1;
    if (tty) process.stdout.write('\r\u001b[2K');
    if (event.type === 'finished') {
      process.stdout.write(`${operation.address}: ${VERB[operation.operation][1]} (id ${event.remoteId})\n`);
    } else {
      process.stdout.write(`${operation.address}: ${operation.operation} failed\n`);
    }
  };
}

function describeError(error: unknown): string {
  // The service's words, which may echo the request: secrets and control characters removed.
  return redact(error instanceof Error ? error.message : String(error));
}

/**
 * What an interrupted apply left undone, one line per kind and operation (`api-check: 200 to
 * create (api-check.a, api-check.b and 198 more)`), not one error per resource.
 */
export function interruptedLines(operations: readonly Operation[]): string[] {
  const groups = new Map<string, { kind: string; verb: string; addresses: string[] }>();
  for (const operation of operations) {
    const verb = operation.operation === 'delete' ? 'destroy' : operation.operation;
    const key = `${operation.change.kind} ${verb}`;
    const group = groups.get(key) ?? { kind: operation.change.kind, verb, addresses: [] };
    group.addresses.push(operation.address);
    groups.set(key, group);
  }
  return [...groups.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([, { kind, verb, addresses }]) => {
      const more = addresses.length > 2 ? ` and ${addresses.length - 2} more` : '';
      return `  ${kind}: ${addresses.length} to ${verb} (${addresses.slice(0, 2).join(', ')}${more})`;
    });
}

function printReport(report: ApplyReport, mode: 'apply' | 'destroy'): void {
  const out = (line: string) => process.stdout.write(`${line}\n`);
  const counts = `Resources: ${report.added} added, ${report.changed} changed, ${report.destroyed} destroyed.`;
  if (report.interrupted.length > 0) {
    const changes = report.interrupted.length === 1 ? '1 change was' : `${report.interrupted.length} changes were`;
    process.stderr.write(`\n${mode === 'destroy' ? 'Destroy' : 'Apply'} interrupted: ${changes} not started:\n`);
    process.stderr.write(`${interruptedLines(report.interrupted).join('\n')}\n`);
  }
  if (report.failed.length === 0 && report.interrupted.length > 0) {
    out(`Partial result. ${counts} State records exactly what was done; run vigil ${mode} again to finish the work.`);
    return;
  }
  if (report.failed.length === 0) {
    out('');
    out(mode === 'destroy' ? `Destroy complete! Resources: ${report.destroyed} destroyed.` : `Apply complete! ${counts}`);
    return;
  }
  const errors = report.failed.length === 1 ? '1 error' : `${report.failed.length} errors`;
  process.stderr.write(`\n${mode === 'destroy' ? 'Destroy' : 'Apply'} failed with ${errors}:\n`);
  for (const { operation, error } of report.failed) process.stderr.write(`  ${operation.address} (${operation.operation}): ${describeError(error)}\n`);
  if (report.skipped.length > 0) {
    process.stderr.write(`Skipped because something they depend on failed: ${report.skipped.map((operation) => operation.address).join(', ')}\n`);
  }
  out(`Partial result. ${counts} State records exactly what was done; fix the errors and run vigil ${mode} again.`);
}
