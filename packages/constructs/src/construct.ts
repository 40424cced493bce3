import path from 'node:path';
import { formatIssues } from '@vigil/schema';
import { z } from 'zod';
import { CONSTRUCT_BRAND } from './brand.js';
import { BuildContext } from './build-context.js';
import { formatPath, getAtPath, setAtPath, withoutUndefined, type PathSegment } from './path.js';
import { currentProject, type Project } from './project.js';
import { constructRef, type ConstructRef } from './ref.js';
import { deferUserSource } from './source-location.js';
import { reportUnknownProps } from './unknown-props.js';
import type { Diagnostic, ResourceKind, ResourceSpec, SourceLocation } from './types.js';

/** Props every construct accepts. */
export interface ConstructProps {
  /**
   * Protects the remote resource: any plan that would delete or replace it fails instead.
   * Use it for resources whose loss hurts (a paging alert channel, a status-page service).
   */
  protect?: boolean;
}

/** The outcome of building one construct: its spec when it has no errors, and every problem found. */
export interface SynthesisResult {
  spec?: ResourceSpec;
  diagnostics: Diagnostic[];
}

/**
 * Base of every construct. A construct registers into the Project being loaded when it is created,
 * remembers where it was created, and turns its props into the spec's request body on demand.
 *
 * Nothing here uses `instanceof`, and subclasses must not either: a construct may come from another
 * copy of this package (see {@link CONSTRUCT_BRAND}).
 */
export abstract class Construct {
  /** The brand `isConstruct` checks. */
  readonly [CONSTRUCT_BRAND] = true as const;
  /** Resource kind, the first half of the address. */
  readonly kind: ResourceKind;
  /** Project-unique (per kind) name of the resource; renaming it recreates the resource. */
  readonly logicalId: string;
  /** `${kind}.${logicalId}` */
  readonly address: string;
  /** Where the user's `new X(...)` call is (worked out on first read of its fields). */
  readonly source: SourceLocation;
  /** Plans that would delete or replace this resource fail. */
  readonly protect: boolean;
  /** The Project this construct registered into. */
  readonly project: Project;
  /**
   * The file the loader was loading when this construct was created (absolute; a monitor or config
   * file, not a helper module it imports), when the loader says.
   */
  readonly loadedFrom: string | undefined;
  /**
   * The last synthesis, reused by `synth()` after `validate()`: parsing is most of the cost of a
   * large project. Props are not expected to change once the files are loaded; bundled scripts
   * do change, so handing one over drops the cache.
   */
  #synthesized: { project: Project; result: SynthesisResult } | undefined;

  protected constructor(kind: ResourceKind, logicalId: string, props: ConstructProps | undefined) {
    this.project = currentProject(`${new.target.name} ${JSON.stringify(logicalId)}`);
    this.kind = kind;
    this.logicalId = logicalId;
    this.address = `${kind}.${logicalId}`;
    this.loadedFrom = this.project.loadingFile();
    this.source = deferUserSource(new.target);
    this.protect = props?.protect === true;
    this.project.register(this);
  }

  /**
   * A path from the user's props as an absolute path. A relative one starts at the directory of the
   * file being loaded when the construct was created, as Checkly resolves it: a helper module that
   * makes checks for several monitor files resolves each check's files from the file it serves.
   * Without a loader (tests), the file that called `new`.
   */
  resolveUserPath(file: string): string {
    return path.resolve(this.project.root, path.dirname(this.loadedFrom ?? this.source.file), file);
  }

  /**
   * A reference to this construct, as Checkly's `ref()`: accepted wherever the construct is, e.g.
   * `groupId: group.ref()` on a check.
   */
  ref(): ConstructRef<this> {
    return constructRef(this);
  }

  /** `ApiCheck "home"`: how messages name this construct. */
  describe(): string {
    return `${this.constructor.name} ${JSON.stringify(this.logicalId)}`;
  }

  /**
   * Validates the props and builds the spec: the payload is parsed with the schema's Create schema
   * (which fills in the documented defaults), then references are put back as `{ $ref }`.
   */
  synthesize(project: Project): SynthesisResult {
    if (this.#synthesized?.project === project) return this.#synthesized.result;
    const result = this.#build(project);
    this.#synthesized = { project, result };
    return result;
  }

  /** Drops the cached synthesis; call it when something synthesis reads has changed. */
  protected invalidate(): void {
    this.#synthesized = undefined;
  }

  #build(project: Project): SynthesisResult {
    const context = new BuildContext(this, project);
    const known = this.knownProps();
    if (known !== undefined) reportUnknownProps(context, this.#props(), known, { owner: this.constructor.name });
    const raw = withoutUndefined(this.buildPayload(context));
    const parsed = this.payloadSchema().safeParse(raw);
    if (!parsed.success) {
      // Constructs check some cross-field rules themselves, because zod skips an object's
      // refinements once any field failed; the schema may then report the same problem again.
      const seen = new Set(context.diagnostics.map((d) => `${d.path ?? ''}\n${d.message}`));
      for (const issue of parsed.error.issues) {
        const payloadPath = issue.path.filter((s): s is PathSegment => typeof s !== 'symbol');
        if (context.reported.has(formatPath(payloadPath))) continue;
        const [path, message, hint] = this.#describeIssue(issue, payloadPath);
        if (seen.has(`${path}\n${message}`)) continue;
        seen.add(`${path}\n${message}`);
        context.error(path, message, hint);
      }
    }
    const diagnostics = context.diagnostics;
    if (!parsed.success || diagnostics.some((d) => d.severity === 'error')) return { diagnostics };

    const payload = parsed.data as Record<string, unknown>;
    for (const ref of context.refs) setAtPath(payload, ref.segments, { $ref: ref.address });
    const secrets = context.secrets
      .filter((segments) => typeof getAtPath(payload, segments) === 'string' && getAtPath(payload, segments) !== '')
      .map(formatPath)
      .sort();
    return {
      diagnostics,
      spec: {
        address: this.address,
        kind: this.kind,
        logicalId: this.logicalId,
        payload,
        refs: context.refs.map((ref) => ({ path: formatPath(ref.segments), address: ref.address })),
        ...(context.externalRefs.length > 0
          ? { externalRefs: context.externalRefs.map((ref) => ({ path: formatPath(ref.segments), kind: ref.kind, remoteId: ref.remoteId })) }
          : {}),
        source: this.source,
        protect: this.protect,
        ...(this.#testOnly() ? { testOnly: true } : {}),
        secrets,
      },
    };
  }

  /** The props this construct accepts, to report misspelt ones; `undefined` skips the check. */
  protected knownProps(): Readonly<Record<string, true>> | undefined {
    return undefined;
  }

  /** Checks accept `testOnly`; it is read from the props rather than stored so other kinds need not know it. */
  #testOnly(): boolean {
    const props = this.#props();
    return typeof props === 'object' && props !== null && (props as { testOnly?: unknown }).testOnly === true;
  }

  #props(): unknown {
    return (this as { props?: unknown }).props;
  }

  /** The zod schema of the create call's body (from `@vigil/schema`). */
  protected abstract payloadSchema(): z.ZodType;

  /**
   * The request body before defaults: props mapped to payload fields, the defaults cascade applied,
   * references resolved through `context.reference`, construct-level rules reported to `context`.
   */
  protected abstract buildPayload(context: BuildContext): Record<string, unknown>;

  /**
   * Maps a payload path back to the prop path the user wrote, where the two differ
   * (`alertChannelSubscriptions[0]` → `alertChannels[0]`). Identity by default.
   */
  protected propPath(payloadPath: PathSegment[]): string {
    return formatPath(payloadPath);
  }

  #describeIssue(issue: z.core.$ZodIssue, payloadPath: PathSegment[]): [string, string, string | undefined] {
    const propPath = this.propPath(payloadPath);
    let { message } = formatIssues(new z.ZodError([issue]));
    const payloadLabel = `"${formatPath(payloadPath)}"`;
    if (message.startsWith(payloadLabel)) message = `"${propPath}"${message.slice(payloadLabel.length)}`;
    return [propPath, message, this.fieldHint(payloadPath)];
  }

  /** The hint shown with a schema problem at `payloadPath`; a kind whose limits differ overrides it. */
  protected fieldHint(payloadPath: PathSegment[]): string | undefined {
    return hintFor(payloadPath);
  }
}

/** Hints for the fields users get wrong most, keyed by the payload's top-level field. */
const FIELD_HINTS: Record<string, string> = {
  frequency: 'Use a Frequency builder, e.g. `frequency: Frequency.EVERY_5M`.',
  locations: 'Use data-center locations such as "eu-west-1" or "us-east-1".',
  runtimeId: 'Use one of the runtime ids listed, e.g. "2026.04" (the newest).',
  degradedResponseTime: 'Response-time limits are milliseconds between 0 and 30000.',
  maxResponseTime: 'Response-time limits are milliseconds between 0 and 30000.',
  environmentVariables: 'At most 50 environment variables; move shared ones to the check group.',
  retryStrategy: 'Build it with RetryStrategyBuilder (fixedStrategy, linearStrategy, exponentialStrategy, singleRetry, noRetries).',
  alertSettings: 'Build it with AlertEscalationBuilder.runBasedEscalation(...) or timeBasedEscalation(...).',
  concurrency: 'concurrency is the number of checks run at once when the group is triggered; at least 1.',
  groupOrder: 'groupOrder is a position in the group, 0 or more.',
  repeatInterval: 'repeatInterval counts repeatUnits between occurrences; between 1 and 365.',
  timezone: 'Name a zone of the IANA database, e.g. "Europe/Amsterdam" or "America/New_York"; a fixed offset such as "+05:00" cannot follow daylight saving time.',
  sslExpiryThreshold: 'sslExpiryThreshold is a number of days between 1 and 30.',
  endsAt: 'A maintenance window ends after it starts; use repeatUnit and repeatInterval for recurring windows.',
  frequencyOffset: 'frequencyOffset spreads runs over time: 10, 20 or 30 with frequency 0, 1..frequency×10 up to an hour, 1..frequency/60 above.',
};

function hintFor(payloadPath: PathSegment[]): string | undefined {
  const [head, second] = payloadPath;
  if (head === 'request' && second === 'assertions') return 'Build assertions with AssertionBuilder, e.g. AssertionBuilder.statusCode().equals(200).';
  // The limit hint only fits the list itself, not a bad item in it.
  if (head === 'environmentVariables' && payloadPath.length > 1) return undefined;
  if (head === 'request' && second === 'method') return 'HTTP methods are upper case: GET, POST, PUT, HEAD, DELETE, PATCH.';
  return typeof head === 'string' ? FIELD_HINTS[head] : undefined;
}
