import path from 'node:path';
import { MultiStepCheck, withProject, type Construct, type Diagnostic, type Project, type SourceLocation, type VigilConfig } from '@vigil/constructs';
import { checkMatchPatterns, discoverMonitorFiles, isChecklyConfig, reachesOutsideRoot } from './discover.js';

/** Structural view of a construct with script entrypoints (it may come from another package copy). */
interface EntrypointOwner {
  readonly kind: string;
  scriptEntrypoints(): Array<{ path: string }>;
}

/** Checks whose entrypoint a spec file may already be: Checkly's parser skips a spec either kind runs. */
const SPEC_RUNNING_KINDS = new Set(['browser-check', 'multistep-check']);

function entrypointsOf(construct: Construct): string[] {
  const owner = construct as unknown as Partial<EntrypointOwner>;
  if (!SPEC_RUNNING_KINDS.has(owner.kind ?? '') || typeof owner.scriptEntrypoints !== 'function') return [];
  return owner.scriptEntrypoints().map((request) => path.resolve(request.path));
}

/**
 * The spec files a `testMatch` selects become checks, as the Checkly CLI's project parser does:
 * one per file, named after the file, whose logical id is the file's path from the project root
 * (POSIX separators), unless a browser or multi-step check declared in a monitor file already runs
 * that file (the Checkly CLI skips a spec either kind runs). Runs after
 * the monitor files, so those checks are known; the created check is located at its spec file.
 */
export async function addSpecFileChecks(options: {
  project: Project;
  root: string;
  /** The `testMatch` value: a glob or a list of globs relative to the root. */
  testMatch: unknown;
  /** Config path of the option, for messages: `checks.multiStepChecks.testMatch`. */
  option: string;
  ignoreDirectoriesMatch: readonly string[] | undefined;
  exclude: readonly string[];
  /** The kind created; informational: a spec any browser or multi-step check runs is skipped, whatever the kind. */
  kind?: string;
  create: (logicalId: string, file: string) => Construct;
  configSource: SourceLocation | undefined;
}): Promise<Diagnostic[]> {
  if (options.testMatch === undefined) return [];
  const diagnostics: Diagnostic[] = [];
  for (const pattern of checkMatchPatterns(options.testMatch).filter(reachesOutsideRoot)) {
    diagnostics.push({
      severity: 'error',
      message: `vigil.config: ${options.option} pattern "${pattern}" reaches outside the project root ${options.root}`,
      hint: "Patterns are relative to the project root (the config file's directory) and stay inside it.",
      path: options.option,
      ...(options.configSource ? { source: options.configSource } : {}),
    });
  }
  const files = await discoverMonitorFiles({
    root: options.root,
    checkMatch: checkMatchPatterns(options.testMatch),
    ignoreDirectoriesMatch: options.ignoreDirectoriesMatch,
    // The config is among the excluded files: a Checkly config's patterns read as Checkly reads them.
    ignoreReading: options.exclude.some((file) => isChecklyConfig(file)) ? 'checkly' : 'vigil',
    exclude: options.exclude,
  });
  const taken = new Set(options.project.constructs().flatMap((construct) => entrypointsOf(construct)));
  await withProject(options.project, async () => {
    for (const file of files) {
      if (taken.has(file)) continue;
      const logicalId = path.relative(options.root, file).split(path.sep).join('/');
      const construct = options.create(logicalId, file);
      // The construct was made here, not in a user's file: its problems belong to the spec file.
      Object.defineProperty(construct, 'source', { value: { file, line: 1, column: 1 }, enumerable: true });
    }
  });
  return diagnostics;
}

/** `checks.multiStepChecks.testMatch`: one MultiStepCheck per matching spec file. */
export function addMultiStepSpecChecks(project: Project, root: string, config: VigilConfig, exclude: readonly string[], configSource: SourceLocation | undefined): Promise<Diagnostic[]> {
  return addSpecFileChecks({
    project,
    root,
    testMatch: config.checks?.multiStepChecks?.testMatch,
    option: 'checks.multiStepChecks.testMatch',
    ignoreDirectoriesMatch: config.checks?.ignoreDirectoriesMatch,
    exclude,
    create: (logicalId, file) => new MultiStepCheck(logicalId, { name: path.basename(file), code: { entrypoint: file } }),
    configSource,
  });
}
