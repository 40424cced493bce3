import { AsyncLocalStorage } from 'node:async_hooks';
import { PROJECT_SCOPE_KEY } from './brand.js';
import { assertionPathProblems } from './assertion-paths.js';
import type { Construct } from './construct.js';
import type { VigilConfig } from './config.js';
import { validateConfig } from './config-validation.js';
import { LOGICAL_ID_PATTERN } from './logical-id.js';
import type { Diagnostic, ResourceSpec } from './types.js';


/**
 * Everything one load of a project registered: its constructs and its config. The loader creates
 * one per load (`vigil validate`, `plan`, `apply`), runs the user's files inside
 * {@link withProject}, then calls {@link Project.validate} and {@link Project.synth}.
 *
 * Constructs from a second copy of this package register here too (they find this Project through
 * the shared scope on `globalThis`), so nothing in here relies on `instanceof`.
 */
export class Project {
  /** Absolute path of the project root (the config file's directory). */
  readonly root: string;
  readonly #constructs: Construct[] = [];
  readonly #members = new Set<Construct>();
  readonly #refused: Diagnostic[] = [];
  #config: VigilConfig | undefined;
  #loadingFile: (() => string | undefined) | undefined;

  constructor(options: { root: string }) {
    this.root = options.root;
  }

  /**
   * Tells constructs which file is being loaded when they are created (the loader knows: it
   * evaluates the files one by one, and follows the callbacks each file schedules). Relative paths
   * in props resolve from that file, as in Checkly, even when a helper module elsewhere calls `new`.
   */
  setLoadingFile(resolve: () => string | undefined): void {
    this.#loadingFile = resolve;
  }

  /** Absolute path of the file being loaded, when the loader says; see {@link setLoadingFile}. */
  loadingFile(): string | undefined {
    return this.#loadingFile?.();
  }

  /** Attaches the value the config module's default export (`defineConfig(...)`) produced. */
  setConfig(config: VigilConfig): void {
    this.#config = config;
  }

  /** The attached config, if any. */
  get config(): VigilConfig | undefined {
    return this.#config;
  }

  /**
   * Called by every construct's constructor. Public because constructs from another copy of this
   * package call it too; users never need it.
   */
  register(construct: Construct): void {
    this.#constructs.push(construct);
    this.#members.add(construct);
  }

  /**
   * Records a construct that can never become a resource here (Checkly's `AgenticCheck`): its error
   * joins {@link validate}'s, at the line that created it.
   */
  refuse(diagnostic: Diagnostic): void {
    this.#refused.push(diagnostic);
  }

  /** The registered constructs, in creation order. */
  constructs(): readonly Construct[] {
    return [...this.#constructs];
  }

  /** Whether `construct` registered into this Project. */
  has(construct: Construct): boolean {
    return this.#members.has(construct);
  }

  /**
   * Every problem of the project: config, logical ids, and each construct's fields and references.
   * All are collected; nothing stops at the first error.
   */
  validate(): Diagnostic[] {
    const diagnostics: Diagnostic[] = [];
    if (this.#config !== undefined) diagnostics.push(...validateConfig(this.#config));
    diagnostics.push(...this.#logicalIdProblems());
    diagnostics.push(...this.#refused);
    for (const construct of this.#constructs) {
      try {
        const { spec, diagnostics: own } = construct.synthesize(this);
        diagnostics.push(...own);
        if (spec !== undefined) diagnostics.push(...assertionPathProblems(spec));
      } catch (error) {
        // Props far outside their types (plain JS users) must not hide every other problem.
        diagnostics.push({
          severity: 'error',
          message: `${construct.describe()} could not be validated: ${error instanceof Error ? error.message : String(error)}`,
          hint: 'Check its props against their documented types; if they are right, this is a bug in vigil.',
          address: construct.address,
          source: construct.source,
        });
      }
    }
    return diagnostics;
  }

  /**
   * The desired state of every registered construct. Only call it when {@link validate} reported no
   * errors: a construct that cannot be synthesised here is a bug in the caller. The specs are the
   * constructs' cached results (copying 10,000 payloads costs more than building them): treat
   * them as read-only.
   */
  synth(): ResourceSpec[] {
    const specs: ResourceSpec[] = [];
    for (const construct of this.#constructs) {
      const { spec, diagnostics } = construct.synthesize(this);
      const firstError = diagnostics.find((d) => d.severity === 'error');
      if (spec === undefined || firstError) {
        throw new Error(
          `cannot synthesise ${construct.address}: ${firstError?.message ?? 'no payload'} ` +
            '(this is a bug in vigil: Project.synth() must only be called after validate() reported no errors)',
        );
      }
      specs.push(spec);
    }
    return specs;
  }

  #logicalIdProblems(): Diagnostic[] {
    const diagnostics: Diagnostic[] = [];
    const firstByAddress = new Map<string, Construct>();
    for (const construct of this.#constructs) {
      const { logicalId, address, source } = construct;
      if (typeof logicalId !== 'string' || !LOGICAL_ID_PATTERN.test(logicalId)) {
        diagnostics.push({
          severity: 'error',
          message: `logical id ${JSON.stringify(logicalId)} of ${construct.describe()} may only contain letters, digits and _ - / # .`,
          hint: 'Logical ids name resources in plans and state; rename it, e.g. "checkout-api".',
          address,
          source,
        });
        continue;
      }
      const first = firstByAddress.get(address);
      if (first === undefined) {
        firstByAddress.set(address, construct);
        continue;
      }
      const at = `${first.source.file}:${first.source.line}:${first.source.column}`;
      diagnostics.push({
        severity: 'error',
        message: `duplicate logical id "${logicalId}": another ${construct.kind} with this id was created at ${at}`,
        hint: `Logical ids must be unique per kind within a project; rename one of them.`,
        address,
        source,
      });
    }
    return diagnostics;
  }
}

type ProjectScope = AsyncLocalStorage<Project>;

/**
 * The scope lives on `globalThis` under a `Symbol.for` key so every copy of this package shares
 * it: a construct from a bundled copy must register into the Project the loader created.
 */
function projectScope(): ProjectScope {
  const holder = globalThis as { [PROJECT_SCOPE_KEY]?: ProjectScope };
  holder[PROJECT_SCOPE_KEY] ??= new AsyncLocalStorage<Project>();
  return holder[PROJECT_SCOPE_KEY];
}

/** How many `withProject` calls are running, in every copy of this package (as the scope is shared). */
const ACTIVE_LOADS_KEY = Symbol.for('vigil.project-scope.active-loads');

/**
 * Runs `fn` with `project` as the Project that constructs created inside it register into. The
 * scope is switched off when the last load ends: while any AsyncLocalStorage is on, Node runs hooks
 * on every promise of the process, which slowed the apply that follows a load by a tenth.
 */
export async function withProject<T>(project: Project, fn: () => Promise<T>): Promise<T> {
  const scope = projectScope();
  const counter = globalThis as { [ACTIVE_LOADS_KEY]?: number };
  counter[ACTIVE_LOADS_KEY] = (counter[ACTIVE_LOADS_KEY] ?? 0) + 1;
  try {
    return await scope.run(project, fn);
  } finally {
    counter[ACTIVE_LOADS_KEY] -= 1;
    if (counter[ACTIVE_LOADS_KEY] === 0) scope.disable();
  }
}

/** The Project being loaded, or `undefined` outside {@link withProject}. */
export function tryCurrentProject(): Project | undefined {
  return projectScope().getStore();
}

/**
 * `Symbol.for` key of the function the loader leaves behind once a load has ended: a construct
 * created later (by a callback the user's file scheduled, which outlived the wait for it) is
 * handed to it instead of throwing, since a throw in a callback would end the process. The loader
 * has already reported the pending work as an error at its line.
 */
export const LATE_CONSTRUCT_KEY: unique symbol = Symbol.for('vigil.late-construct');

/** The Project being loaded; throws a user-facing error outside {@link withProject}. */
export function currentProject(what: string): Project {
  const project = tryCurrentProject();
  if (project === undefined) {
    const late = (globalThis as { [LATE_CONSTRUCT_KEY]?: (what: string) => Project | undefined })[LATE_CONSTRUCT_KEY]?.(what);
    if (late !== undefined) return late;
    throw new Error(
      `${what} can only be created while vigil loads a project (vigil validate/plan/apply); ` +
        'declare constructs in *.monitor.ts files and run them through the vigil CLI, not with node directly.',
    );
  }
  return project;
}
