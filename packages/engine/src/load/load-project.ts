import { realpathSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { CONFIG_SOURCE_KEY, Project, type Diagnostic, type ResourceSpec, type SourceLocation, type VigilConfig } from '@vigil/constructs';
import { LEGACY_PACKAGE_NAME, PACKAGE_NAME } from '@vigil/constructs/package-name';
import { Graph } from '../graph/index.js';
import { bundleProject, MEMBER_EXPORTS } from './bundle.js';
import { applyChecklyDefaults, checkMatchDiagnostics, discoverMonitorFiles, isChecklyConfig, resolveConfigPath } from './discover.js';
import { evaluateModules, EvaluationClock, LoadDirectory, PENDING_WORK_MS, type EvaluationOutcome } from './evaluate.js';
import { describeWork, type PendingWork } from './file-activity.js';
import { formatDuration } from '../state/duration.js';
import { buildResourceGraph } from './resource-graph.js';
import { attachScripts } from './script-hooks.js';
import { addConfigPlaywrightChecks, attachPlaywrightSuites } from './playwright-suites.js';
import { addMultiStepSpecChecks } from './test-match.js';
import { addBrowserSpecChecks } from './browser-spec-checks.js';
import { scriptDirectories } from './scripts.js';
import { displayPath, relativeSource, thrownErrorToDiagnostic } from './user-errors.js';

export interface LoadProjectOptions {
  /** Config file, absolute or relative to `cwd`; default the nearest `vigil.config.*` in `cwd` or above. */
  configPath?: string;
  /** Directory relative paths start from (the shell's working directory for the CLI). */
  cwd: string;
  /**
   * Module files that imports of the package (and of its pre-rename name `vigil`), its
   * `/constructs`, `@vigil/constructs` and Checkly's in user code resolve to. The CLI passes its own
   * entry files so user code shares the module instance the CLI runs; by default all point at
   * `@vigil/constructs`.
   */
  aliases?: Readonly<Record<string, string>>;
  /**
   * How long the config and monitor files may take to evaluate, in ms (top-level awaits included);
   * default {@link DEFAULT_LOAD_TIMEOUT_MS}.
   */
  timeoutMs?: number;
  /**
   * How long to wait, once the files have loaded, for asynchronous work they started (constructs
   * created in its callbacks belong to the project); default {@link PENDING_WORK_MS}.
   */
  pendingWorkMs?: number;
}

/** The default of {@link LoadProjectOptions.timeoutMs} (`--load-timeout`). */
export const DEFAULT_LOAD_TIMEOUT_MS = 30_000;

export interface LoadedProject {
  /** Absolute project root: the config file's directory. */
  root: string;
  /** Absolute path of the config file. */
  configPath: string;
  /** The config module's default export; absent when it could not be evaluated. */
  config?: VigilConfig;
  /** Absolute paths of the monitor files that were loaded, sorted. */
  files: string[];
  /** The fresh Project the user's constructs registered into. */
  project: Project;
  /** Every problem found, sorted by file, line and column; sources are relative to `root`. */
  diagnostics: Diagnostic[];
  /** The desired state; empty when any diagnostic is an error. */
  specs: ResourceSpec[];
  /** Nodes are spec addresses, edges are refs; empty when any diagnostic is an error. */
  graph: Graph;
  /**
   * Set when a file did not finish evaluating (reported as an error diagnostic): `timeout` when the
   * time ran out, so the user's code may still be running and holding the process open;
   * `unsettled` when its top-level await could never settle.
   */
  stalled?: 'timeout' | 'unsettled';
}

/**
 * Loads a project the way every command starts: find the config, evaluate it, discover the monitor
 * files its `checks.checkMatch` selects, bundle them in one esbuild build, evaluate the bundle into
 * a fresh {@link Project}, bundle check scripts, validate, synthesise, and build the graph.
 *
 * Throws `ProjectNotFoundError` when there is no config file; every problem in the user's code is
 * returned as a diagnostic instead.
 *
 * The config is bundled and evaluated on its own first because the globs that select the monitor
 * files live in it. The monitor bundle then reuses the evaluated config module rather than running
 * it again, so a monitor that imports the config sees the same instance.
 */
export async function loadProject(options: LoadProjectOptions): Promise<LoadedProject> {
  const configPath = resolveConfigPath(options);
  const root = path.dirname(configPath);
  const aliases = options.aliases ?? defaultAliases();
  const vigilDirectories = [...new Set(Object.values(aliases).map((file) => path.dirname(file)))];
  const isVigilFile = (file: string) => vigilDirectories.some((directory) => file.startsWith(directory + path.sep));

  const project = new Project({ root });
  const loaded: LoadedProject = { root, configPath, files: [], project, diagnostics: [], specs: [], graph: new Graph() };
  const report = (diagnostics: readonly Diagnostic[]) => {
    loaded.diagnostics.push(...diagnostics.map((diagnostic) => relativeDiagnostic(root, diagnostic)));
  };
  const directory = new LoadDirectory(root);
  const clock = new EvaluationClock(options.timeoutMs ?? DEFAULT_LOAD_TIMEOUT_MS);
  const pendingWorkMs = options.pendingWorkMs ?? PENDING_WORK_MS;
  const stalled = (outcome: EvaluationOutcome, groups: ReadonlyArray<readonly string[]>) => {
    if (outcome.stalled === undefined) return false;
    loaded.stalled = outcome.stalled;
    report([stalledLoadDiagnostic(root, outcome.stalled, clock, groups)]);
    return true;
  };
  try {
    await directory.guard();
    const configBundle = await bundleProject({ root, outdir: directory.directory('config'), groups: [[configPath]], exportMembers: true, aliases });
    report(configBundle.diagnostics);
    const configUrl = configBundle.entries?.[0];
    if (configUrl === undefined) return finish(loaded);
    const configModule = await evaluateModules([configUrl], project, clock, pendingWorkMs);
    if (stalled(configModule, [[configPath]])) return finish(loaded);
    report(pendingWorkDiagnostics(root, configModule.pending, pendingWorkMs));
    if (configModule.errors.length > 0) {
      report(configModule.errors.map((error) => thrownErrorToDiagnostic(root, error, isVigilFile)));
      return finish(loaded);
    }
    const config = (configModule.exports[0]?.[MEMBER_EXPORTS] as { default?: unknown } | undefined)?.default;
    if (!isConfigObject(config)) {
      report([
        {
          severity: 'error',
          message: `${displayPath(root, configPath)} must export its config as the default export`,
          hint: `Write \`export default defineConfig({ projectName: '...', logicalId: '...' })\`, importing defineConfig from '${PACKAGE_NAME}'.`,
          source: { file: configPath, line: 1, column: 1 },
        },
      ]);
      return finish(loaded);
    }
    applyChecklyDefaults(configPath, config);
    loaded.config = config;
    project.setConfig(config);

    loaded.files = await discoverMonitorFiles({
      root,
      checkMatch: config.checks?.checkMatch,
      ignoreDirectoriesMatch: config.checks?.ignoreDirectoriesMatch,
      ignoreReading: isChecklyConfig(configPath) ? 'checkly' : 'vigil',
      exclude: [configPath],
    });
    report(await checkMatchDiagnostics({ root, checkMatch: config.checks?.checkMatch, files: loaded.files, source: configSource(config) }));
    if (loaded.files.length > 0) {
      const groups = await groupFiles(loaded.files);
      const monitorBundle = await bundleProject({
        root,
        outdir: directory.directory('monitors'),
        groups,
        aliases,
        evaluated: { [configPath]: configUrl },
      });
      report(monitorBundle.diagnostics);
      if (monitorBundle.entries === undefined) return finish(loaded);
      const monitors = await evaluateModules(monitorBundle.entries, project, clock, pendingWorkMs);
      if (stalled(monitors, groups)) return finish(loaded);
      report(pendingWorkDiagnostics(root, monitors.pending, pendingWorkMs));
      if (monitors.errors.length > 0) {
        report(monitors.errors.map((error) => thrownErrorToDiagnostic(root, error, isVigilFile)));
        return finish(loaded);
      }
    }

    report(await addBrowserSpecChecks(project, root, config, [configPath], configSource(config)));
    report(await addMultiStepSpecChecks(project, root, config, [configPath], configSource(config)));
    report(await addConfigPlaywrightChecks(project, root, config, configSource(config)));
    report(await attachScripts(project, root, scriptDirectories(root, config.checks?.allowedScriptDirectories)));
    report(await attachPlaywrightSuites(project, root));
    report(project.validate());
    if (loaded.diagnostics.some((diagnostic) => diagnostic.severity === 'error')) return finish(loaded);

    loaded.specs = project.synth().map((spec) => ({ ...spec, source: relativeSource(root, spec.source) }));
    const { graph, diagnostics } = buildResourceGraph(loaded.specs);
    report(diagnostics);
    if (!loaded.diagnostics.some((diagnostic) => diagnostic.severity === 'error')) loaded.graph = graph;
    else loaded.specs = [];
    return finish(loaded);
  } finally {
    await directory.cleanUp();
  }
}

/**
 * The error for a load that stopped waiting for the user's files: it names the file being evaluated
 * (the first of the evaluation order that has not finished; files evaluate one after another, so
 * the others were not reached).
 */
function stalledLoadDiagnostic(
  root: string,
  reason: 'timeout' | 'unsettled',
  clock: EvaluationClock,
  groups: ReadonlyArray<readonly string[]>,
): Diagnostic {
  const order = groups.flat();
  const pendingIndex = order.findIndex((file) => !clock.hasFinished(file));
  const pending = pendingIndex === -1 ? undefined : order[pendingIndex];
  const notReached = pendingIndex === -1 ? 0 : order.length - pendingIndex - 1;
  const subject = pending === undefined ? 'the project' : displayPath(root, pending);
  const rest = notReached === 0 ? '' : notReached === 1 ? '; 1 more file was not loaded' : `; ${notReached} more files were not loaded`;
  if (reason === 'timeout') {
    return {
      severity: 'error',
      message: `${subject} did not finish loading within ${formatDuration(clock.timeoutMs)}: a top-level await in it (or in a file it imports) is still waiting${rest}`,
      hint: 'Make the awaited work finish sooner, or allow more time with --load-timeout (e.g. --load-timeout 2m).',
    };
  }
  return {
    severity: 'error',
    message: `${subject} can never finish loading: a top-level await in it (or in a file it imports) waits for a promise that nothing will settle${rest}`,
    hint: 'Every promise awaited at the top level of a monitor or config file must resolve or reject.',
  };
}

/**
 * Monitor files are bundled into modules of about this many bytes of source each. Every construct
 * reads a stack frame to learn where it was created, and V8's cost for a frame's position grows
 * with the size of the code around it (a module's top-level code is one function): in one
 * megabyte-sized bundle, 10,000 constructs spent over ten seconds on that alone. One module per
 * file fixes that but pays a module-loader round trip per file (a message to the TypeScript
 * loader's thread, under tsx). Small groups balance the two. Process CPU of evaluating 1,000
 * files × 10 constructs (median of 6, one sitting): 16 KB 1.03 s, 32 KB 0.88 s, 48 KB 0.90 s,
 * 64 KB 0.87 s (128 KB: 1.25 s); the smallest of the flat region keeps a failing file's module
 * small, since a throw stops the rest of its module.
 */
export const MODULE_SOURCE_BUDGET = 32 * 1024;

/** Consecutive files (sorted, so groups are stable) packed up to the budget, at least one each. */
async function groupFiles(files: readonly string[]): Promise<string[][]> {
  const sizes = await Promise.all(files.map(async (file) => (await stat(file)).size));
  const groups: string[][] = [];
  let current: string[] = [];
  let currentSize = 0;
  files.forEach((file, index) => {
    const size = sizes[index] ?? 0;
    if (current.length > 0 && currentSize + size > MODULE_SOURCE_BUDGET) {
      groups.push(current);
      current = [];
      currentSize = 0;
    }
    current.push(file);
    currentSize += size;
  });
  if (current.length > 0) groups.push(current);
  return groups;
}

/** Work a file started that outlived the wait for it: what it would still create is not loaded. */
function pendingWorkDiagnostics(root: string, pending: readonly PendingWork[], waitedMs: number): Diagnostic[] {
  return pending.map((work) => ({
    severity: 'error',
    message: `${displayPath(root, work.file)} started ${describeWork(work.type)} that was still running ${formatDuration(waitedMs)} after the file loaded, so constructs it creates later would be missing from the project`,
    hint: 'Create constructs at the top level of the file, or await the work there (e.g. `await fs.promises.readdir(dir)` instead of a callback), so the load waits for it.',
    source: work.site ?? { file: work.file, line: 1, column: 1 },
  }));
}

/** Without aliases from the CLI, every vigil entry point is served by `@vigil/constructs` itself. */
function defaultAliases(): Record<string, string> {
  const constructs = realpathSync(createRequire(import.meta.url).resolve('@vigil/constructs'));
  const aliases: Record<string, string> = { '@vigil/constructs': constructs };
  for (const name of [PACKAGE_NAME, LEGACY_PACKAGE_NAME, 'checkly']) {
    aliases[name] = constructs;
    aliases[`${name}/constructs`] = constructs;
  }
  return aliases;
}

/** Where `defineConfig` was called, as it recorded it. */
function configSource(config: VigilConfig): SourceLocation | undefined {
  return (config as { [CONFIG_SOURCE_KEY]?: SourceLocation })[CONFIG_SOURCE_KEY];
}

function isConfigObject(value: unknown): value is VigilConfig {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Locations relative to the root, also inside messages: constructs name the first of two duplicates
 * by its absolute location, which would make output depend on where the repository is checked out.
 */
function relativeDiagnostic(root: string, diagnostic: Diagnostic): Diagnostic {
  const prefix = root + path.sep;
  const relativeText = (text: string) => text.split(prefix).join('');
  const result: Diagnostic = { ...diagnostic, message: relativeText(diagnostic.message) };
  if (diagnostic.hint !== undefined) result.hint = relativeText(diagnostic.hint);
  if (diagnostic.source) result.source = relativeSource(root, diagnostic.source);
  return result;
}

function finish(loaded: LoadedProject): LoadedProject {
  loaded.diagnostics.sort(compareDiagnostics);
  return loaded;
}

/** By file, line, column; diagnostics without a location first; otherwise in the order found. */
function compareDiagnostics(a: Diagnostic, b: Diagnostic): number {
  const fileA = a.source?.file ?? '';
  const fileB = b.source?.file ?? '';
  if (fileA !== fileB) return fileA < fileB ? -1 : 1;
  return (a.source?.line ?? 0) - (b.source?.line ?? 0) || (a.source?.column ?? 0) - (b.source?.column ?? 0);
}
