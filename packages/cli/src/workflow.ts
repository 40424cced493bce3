/**
 * What plan, apply and destroy share: load the project (stopping on errors), connect to the target,
 * open state, refresh, plan, and compare a saved plan. Commands keep only their flags and output.
 */
import type { Command } from 'commander';
import type { LoadedProject, PlanResult, ServiceCalls, StateBackend, StateDocument, StateLock, StateTarget, StateWriter } from '@vigil/engine';
import { CliError, registerSecrets } from './errors.js';
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
  /** The command that removes a stale lock on this project's state, `--config` included. */
  readonly unlockCommand: string;
  readonly projectName: string;
  /**
   * The target state is bound to: the URL, the account the service says the key acts on and, when
   * the service reports it, the service's identity.
   */
  readonly stateTarget: StateTarget;
  /** Prints a notice where the command prints its notices. */
  readonly log: (line: string) => void;
  /** Set by `currentState` when a state recorded without an account or service id adopted this one's: write it. */
  accountAdopted: boolean;
  /** `--allow-empty`: plan even when the project declares no resources but state manages some. */
  readonly allowEmpty: boolean;
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
  const { getAtPath } = await import('@vigil/engine');
  const path = await import('node:path');
  const target = await resolveTarget({ root: loaded.root, configApi: loaded.config?.api, local: options.local ?? false });
  // Known before the first call, so whatever the service answers can be scrubbed of them.
  registerSecrets([target.apiKey, ...loaded.specs.flatMap((spec) => spec.secrets.map((secret) => getAtPath(spec.payload, secret)))]);
  if (target.embedded) options.log(target.embedded.announcement);
  const { serviceCalls } = await import('./service-calls.js');
  const { unlockCommandFor } = await import('./commands/state.js');
  const calls = serviceCalls({
    baseUrl: target.baseUrl,
    apiKey: target.apiKey,
    accountId: target.accountId || undefined,
    userAgent: `vigil/${VERSION}`,
    ...(target.pacing === undefined ? {} : { pacing: target.pacing }),
  });
  try {
    const { openStateBackend } = await import('./state-backend.js');
    const unlockCommand = unlockCommandFor(command);
    const backend = await openStateBackend({ root: loaded.root, config: loaded.config, unlockCommand });
    return {
      loaded,
      target,
      calls,
      backend,
      unlockCommand,
      projectName: loaded.config?.projectName ?? path.basename(loaded.root),
      stateTarget: await identifiedTarget(target, calls),
      log: options.log,
      accountAdopted: false,
      allowEmpty: command.opts<{ allowEmpty?: boolean }>().allowEmpty === true,
      close: () => target.close(),
    };
  } catch (error) {
    await target.close();
    throw error;
  }
}

/**
 * The target with the account the key acts on and the service's identity: one
 * `GET /v1/accounts/me`. Without the account, state would record none, and the same URL with
 * another account's key would plan every resource as deleted outside vigil and create it again
 * there; without the service id, a `vigil server` restarted on another port would look like
 * another service. A service without that call (404) is identified by its URL, and its account
 * is VIGIL_ACCOUNT_ID or the first of `GET /v1/accounts` (the one it uses without
 * `x-service-account`, as `vigil whoami` reports). The embedded service is the project's own
 * (`.vigil/local/`), whatever port it listens on this time.
 */
async function identifiedTarget(target: Target, calls: ServiceCalls): Promise<StateTarget> {
  if (target.embedded) return target.stateTarget;
  const { currentAccount } = await import('./service-identity.js');
  const me = await currentAccount(calls);
  if (me) {
    return { baseUrl: target.stateTarget.baseUrl, accountId: target.stateTarget.accountId || me.id, ...(me.serviceId === undefined ? {} : { serviceId: me.serviceId }) };
  }
  if (target.stateTarget.accountId !== '') return target.stateTarget;
  const accounts = (await calls.call('accounts.list')) as ReadonlyArray<{ readonly id: string }>;
  const account = accounts[0];
  if (!account) throw new CliError(`the API key has no account at ${target.baseUrl}: check VIGIL_API_KEY`);
  return { baseUrl: target.stateTarget.baseUrl, accountId: account.id };
}

/**
 * The current state, or a fresh one for a project never applied to this target; refuses a foreign
 * one. A state recorded without an account adopts this target's, with a notice, and
 * `session.accountAdopted` is set: commands holding the `lock` (apply, destroy, import) write it
 * before they finish, even with nothing else to do, so this happens once.
 */
export async function currentState(session: Session, stored: StateDocument | undefined, lock?: StateLock): Promise<StateDocument> {
  const { emptyState, bindToTarget } = await import('@vigil/engine');
  if (!stored) return emptyState({ project: session.projectName, target: session.stateTarget });
  try {
    const bound = bindToTarget(stored, session.stateTarget, { location: session.backend.describe() });
    if (bound.adoptedAccount !== undefined) {
      session.log(
        `Note: ${session.backend.describe()} recorded no account; it is now bound to account ${bound.adoptedAccount} at ${session.stateTarget.baseUrl}, ` +
          `the account the API key acts on, and refuses any other${lock ? '' : ' (recorded by the next apply)'}.`,
      );
      session.accountAdopted = true;
    }
    if (bound.adoptedService !== undefined) {
      session.log(
        `Note: ${session.backend.describe()} recorded no service id; it is now bound to service ${bound.adoptedService}, the service at ${session.stateTarget.baseUrl}, ` +
          `so it stays usable when that service moves (vigil state retarget URL)${lock ? '' : ' (recorded by the next apply)'}.`,
      );
      session.accountAdopted = true;
    }
    return bound.state;
  } catch (error) {
    throw new CliError((error as Error).message, { cause: error });
  }
}

/**
 * Records in state what apply learnt beyond the plan's changes, before it makes any: each
 * construct's `protect` (so applying `protect: false` is what lets a later plan delete a protected
 * resource removed from code) and an adopted account. After a saved plan was checked, so that
 * write does not make the plan stale; skipped when there is nothing to record.
 */
export async function recordDeclaredState(session: Session, writer: StateWriter, mode: 'apply' | 'destroy'): Promise<void> {
  const { withProtection } = await import('@vigil/engine');
  const settled = mode === 'apply' ? withProtection(writer.document, session.loaded.specs) : writer.document;
  if (settled === writer.document && !session.accountAdopted) return;
  await writer.update(() => settled);
  session.accountAdopted = false;
}

export async function computePlan(
  session: Session,
  state: StateDocument,
  options: { targets?: readonly string[]; destroy?: boolean },
): Promise<PlanResult> {
  const { createPlan, refresh } = await import('@vigil/engine');
  if (!options.destroy && !session.allowEmpty) await (await import('./empty-project.js')).assertProjectNotEmpty(session.loaded, state);
  const kinds = new Set([...session.loaded.specs.map((spec) => spec.kind), ...Object.values(state.resources).map((resource) => resource.kind)]);
  // Kinds only referred to by `fromId` are listed too (one list, not a GET per reference), so plan
  // can name every reference to a missing resource before anything is applied.
  if (!options.destroy) for (const spec of session.loaded.specs) for (const ref of spec.externalRefs ?? []) kinds.add(ref.kind);
  const remote = await refresh(session.calls, kinds);
  return createPlan({
    project: session.projectName,
    target: { baseUrl: session.stateTarget.baseUrl, accountId: session.stateTarget.accountId },
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
