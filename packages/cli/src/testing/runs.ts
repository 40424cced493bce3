/**
 * The runs a `vigil test` session makes: one per selected check and location, each with the wire
 * payload the runner executes (references dropped, the group's run-time defaults merged) and the
 * variables it resolves `{{KEY}}` from.
 */
import type { LoadedProject, ResourceSpec } from '@vigil/engine';
import { applyGroupDefaults, resolveGroupBaseUrl, groupVariables, type GroupRunDefaults, type VariableLike } from '@vigil/runner/group-defaults';
import { isPassive } from './selection.js';

export interface RunVariable {
  key: string;
  value: string;
  secret?: boolean;
}

export interface PlannedRun {
  spec: ResourceSpec;
  /** The runner's input: the create payload with references dropped and group defaults merged. */
  check: Record<string, unknown> & { checkType: string; name: string };
  location: string;
  /** Lookup order: command line, the check's, its group's, the config's. */
  variables: RunVariable[];
  /** Why it does not run (a passive check such as a heartbeat), or undefined. */
  skipReason?: string;
}

/** Where a check runs when neither it nor `--location` says: a label for this machine. */
export const LOCAL_LOCATION = 'local';

export interface RunsOptions {
  /** `--location`, repeatable; empty: one run per check in its first location. */
  locations: readonly string[];
  /** `-e` and `--env-file`, the later entries winning. */
  commandLineVariables: ReadonlyArray<[string, string]>;
  /** Whether the runner has an executor for a check type. */
  canRun: (checkType: string) => boolean;
}

export function planRuns(loaded: LoadedProject, selected: readonly ResourceSpec[], options: RunsOptions): PlannedRun[] {
  const specs = new Map(loaded.specs.map((spec) => [spec.address, spec]));
  const fromCommandLine = dedupeLastWins(options.commandLineVariables);
  const fromConfig = configVariables(loaded);
  return selected.flatMap((spec) => {
    const payload = withoutRefs(spec.payload) as PlannedRun['check'];
    const group = groupOf(spec, specs);
    const check = applyGroupDefaults(payload, group) as PlannedRun['check'];
    const variables = resolveGroupBaseUrl([...fromCommandLine, ...asRunVariables(payload.environmentVariables), ...asRunVariables(groupVariables(group)), ...fromConfig]);
    const own = Array.isArray(payload.locations) ? (payload.locations as string[]) : [];
    const locations = options.locations.length > 0 ? options.locations : [own[0] ?? LOCAL_LOCATION];
    const skipReason = isPassive(spec)
      ? `${check.checkType.toLowerCase()} checks are passive: the service waits for their pings, there is nothing to run`
      : options.canRun(check.checkType)
        ? undefined
        : `vigil test cannot run ${check.checkType} checks yet`;
    return locations.map((location) => ({ spec, check, location, variables, ...(skipReason ? { skipReason } : {}) }));
  });
}

function groupOf(spec: ResourceSpec, specs: ReadonlyMap<string, ResourceSpec>): GroupRunDefaults | undefined {
  const ref = spec.refs.find((edge) => edge.path === 'groupId');
  const group = ref ? specs.get(ref.address) : undefined;
  return group ? (withoutRefs(group.payload) as GroupRunDefaults) : undefined;
}

/** `checks.environmentVariables` of the config, when the config has them. */
function configVariables(loaded: LoadedProject): RunVariable[] {
  const checks = (loaded.config as { checks?: { environmentVariables?: unknown } } | undefined)?.checks;
  return asRunVariables(checks?.environmentVariables);
}

function asRunVariables(value: unknown): RunVariable[] {
  if (!Array.isArray(value)) return [];
  return (value as VariableLike[])
    .filter((variable) => typeof variable?.key === 'string' && typeof variable.value === 'string')
    .map((variable) => ({ key: variable.key, value: variable.value as string, ...(variable.secret ? { secret: true } : {}) }));
}

function dedupeLastWins(entries: ReadonlyArray<[string, string]>): RunVariable[] {
  return [...new Map(entries).entries()].map(([key, value]) => ({ key, value }));
}

/** A copy with every `{ $ref }` (a reference to another construct: no id exists before deploy) as null. */
function withoutRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutRefs);
  if (typeof value !== 'object' || value === null) return value;
  if ('$ref' in value) return null;
  return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, withoutRefs(entry)]));
}
