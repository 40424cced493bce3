/**
 * What plan, apply and destroy share: load the project (stopping on errors), connect to the target,
 * open state, refresh, plan, and compare a saved plan. Commands keep only their flags and output.
 */
import type { Command } from 'commander';
import type { LoadedProject, PlanResult, ServiceCalls, StateBackend, StateDocument } from '@vigil/engine';
import { CliError } from './errors.js';
import { loadFromCommand, printDiagnostics } from './commands/validate.js';
import { resolveTarget, type Target } from './target.js';
import { VERSION } from './version.js';

export interface GlobalFlags {
  config?: string;
  color?: boolean;
}

export interface Session {
  readonly loaded: LoadedProject;
  readonly target: Target;
  readonly calls: ServiceCalls;
  readonly backend: StateBackend;
  readonly projectName: string;
  close(): Promise<void>;
}

/** Whether to paint output: `--no-color`, `NO_COLOR`, or a non-TTY stdout turn it off. */
export function useColor(command: Command): boolean {
  const { color } = command.optsWithGlobals<GlobalFlags>();
  return color !== false && !process.env.NO_COLOR && process.stdout.isTTY === true;
}

export async function openSession(command: Command, options: { local?: boolean; log: (line: string) => void }): Promise<Session> {
  const loaded = await loadFromCommand(command);
  if (printDiagnostics(loaded.diagnostics, (text) => process.stderr.write(text))) {
    throw new CliError('the project has errors (listed above); nothing was planned', { exitCode: 1 });
  }
  const { createLocalBackend, DEFAULT_STATE_PATH } = await import('@vigil/engine');
  const path = await import('node:path');
  const target = await resolveTarget({ root: loaded.root, configApi: loaded.config?.api, local: options.local ?? false });
  if (target.embedded) options.log(target.embedded.announcement);
  const statePath = path.resolve(loaded.root, loaded.config?.state?.path ?? DEFAULT_STATE_PATH);
  const { serviceCalls } = await import('./service-calls.js');
  const { unlockCommandFor } = await import('./commands/state.js');
  return {
    loaded,
    target,
    calls: serviceCalls({
      baseUrl: target.baseUrl,
      apiKey: target.apiKey,
      accountId: target.accountId || undefined,
      userAgent: `vigil/${VERSION}`,
      ...(target.pacing === undefined ? {} : { pacing: target.pacing }),
    }),
    backend: createLocalBackend({ path: statePath, unlockCommand: unlockCommandFor(command) }),
    projectName: loaded.config?.projectName ?? path.basename(loaded.root),
    close: () => target.close(),
  };
}

/** The current state, or a fresh one for a project never applied to this target; refuses a foreign one. */
export async function currentState(session: Session, stored: StateDocument | undefined): Promise<StateDocument> {
  const { emptyState, assertSameTarget } = await import('@vigil/engine');
  if (!stored) return emptyState({ project: session.projectName, target: session.target.stateTarget });
  try {
    assertSameTarget(stored, session.target.stateTarget, { location: session.backend.describe() });
  } catch (error) {
    throw new CliError((error as Error).message, { cause: error });
  }
  return stored;
}

export async function computePlan(
  session: Session,
  state: StateDocument,
  options: { targets?: readonly string[]; destroy?: boolean },
): Promise<PlanResult> {
  const { createPlan, refresh } = await import('@vigil/engine');
  const kinds = new Set([...session.loaded.specs.map((spec) => spec.kind), ...Object.values(state.resources).map((resource) => resource.kind)]);
  const remote = await refresh(session.calls, kinds);
  return createPlan({
    project: session.projectName,
    target: session.target.stateTarget,
    specs: session.loaded.specs,
    state,
    remote,
    ...(options.targets && options.targets.length > 0 ? { targets: options.targets } : {}),
    ...(options.destroy ? { destroy: true } : {}),
  });
}

/** Fails with every plan-level error (protected resources, unknown --target) listed. */
export function assertPlanIsValid(planned: PlanResult): void {
  const errors = planned.plan.diagnostics.filter((diagnostic) => diagnostic.severity === 'error');
  if (errors.length === 0) return;
  printDiagnostics(errors, (text) => process.stderr.write(text));
  throw new CliError(errors.length === 1 ? 'the plan cannot be applied (see above)' : `the plan cannot be applied: ${errors.length} errors (see above)`);
}

/** Repeatable `--target ADDR`. */
export function collectTargets(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}
