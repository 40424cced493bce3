/**
 * `vigil import`, minus the I/O: given the unmanaged remote resources chosen for import, decide
 * their logical ids, variables, files and props, the environment variables their secrets come
 * from, and the state entry each gets once its file is written. Pure, so every decision is tested
 * without a service or a file system.
 */
import path from 'node:path';
import type { CheckDefaults, ResourceKind } from '@vigil/constructs';
import type { z } from 'zod';
import { adapterFor } from '../kinds/index.js';
import { normalizeRemote } from '../kinds/normalize.js';
import type { Payload } from '../kinds/types.js';
import { replaceAtPath } from '../kinds/paths.js';
import { hashSecret, type Address, type RemoteId, type StateDocument } from '../state/index.js';
import { browserCheckLayer, inheritanceFromConfig } from './checks.js';
import { call, literal, tsString, usesOf, type Code, type ObjectCode } from './code.js';
import type { MapContext, MappedResource } from './context.js';
import { UniqueNames, environmentName, fileStem, slugify, variableName } from './names.js';
import type { Candidate } from './select.js';

export interface ImportInput {
  readonly candidates: readonly Candidate[];
  readonly state: StateDocument;
  /** Addresses declared by the project's code: imported logical ids stay distinct from them. */
  readonly projectAddresses: Iterable<Address>;
  /** `checks` of the project config: imported checks write what they would otherwise inherit. */
  readonly checkDefaults?: CheckDefaults | undefined;
  /** The environment at import: hidden secrets are recorded as the hash of the variable, when set. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Names of files already in the output directory; generated files never replace them. */
  readonly existingFiles: Iterable<string>;
  /** Directory the files are written to, from the project root (POSIX); default `imported`. */
  readonly generatedDir?: string;
  /** Resources this project's code already declares (and state maps to a remote id). */
  readonly managed?: readonly ManagedResource[];
}

/** A resource the project already manages, and where its code declares it. */
export interface ManagedResource {
  readonly address: Address;
  readonly kind: ResourceKind;
  readonly remoteId: RemoteId;
  /** The file declaring its construct, from the project root (POSIX), and the line. */
  readonly source: { readonly file: string; readonly line: number };
  /** The exported variable holding its construct, when the file exports it. */
  readonly variable?: string;
}

/** A variable the generated code imports from the project's own files. */
export interface ExternalVariable {
  readonly address: Address;
  readonly variable: string;
  /** Module specifier from the generated directory, e.g. `../monitors/alert-channels.monitor.js`. */
  readonly module: string;
}

/** One resource to adopt: where its code goes, what it says, and its state entry. */
export interface ImportedResource {
  readonly address: Address;
  readonly kind: ResourceKind;
  readonly logicalId: string;
  readonly remoteId: RemoteId;
  readonly name: string;
  readonly construct: string;
  readonly props: ObjectCode;
  /** Exported variable name, for the resources others refer to (groups, channels, services). */
  readonly variable?: string;
  readonly file: string;
  readonly dependsOn: readonly Address[];
  /** The state entry's `applied`: what the next plan computes as desired, secrets hashed. */
  readonly applied: Payload;
  /** What the code cannot reproduce exactly (the next plan will show it). */
  readonly warnings: readonly string[];
}

/** A secret the generated code reads from the environment. */
export interface RequiredVariable {
  readonly name: string;
  readonly address: Address;
  readonly path: string;
  /** `false` when the service does not return the value: only its owner knows it. */
  readonly returnedByService: boolean;
}

export interface ImportPlan {
  readonly resources: readonly ImportedResource[];
  /** Generated files in write order, each with the resources it declares (in order). */
  readonly files: ReadonlyArray<{ readonly name: string; readonly addresses: readonly Address[] }>;
  readonly variables: readonly RequiredVariable[];
  /** Managed resources the generated code refers to by their exported variable. */
  readonly external: readonly ExternalVariable[];
}

/**
 * Kinds whose managed constructs generated code may refer to by variable. A managed group is still
 * referred to with `fromId`: its props would cascade into the imported check, changing what it sends.
 */
const BY_VARIABLE: ReadonlySet<ResourceKind> = new Set<ResourceKind>(['alert-channel', 'status-page-service', 'private-location']);

function moduleFrom(generatedDir: string, file: string): string {
  const relative = path.posix.relative(generatedDir === '' ? '.' : generatedDir, file).replace(/\.(c|m)?tsx?$/, '.$1js');
  return relative.startsWith('.') ? relative : `./${relative}`;
}

const MONITOR_SUFFIX = '.monitor.ts';

/** Check kinds share logical ids: a plan treats the same id under the other kind as a replace. */
function namespaceOf(kind: ResourceKind): string {
  return adapterFor(kind).isCheck ? 'check' : kind;
}

function takenLogicalIds(input: ImportInput): Map<string, Set<string>> {
  const taken = new Map<string, Set<string>>();
  const add = (address: Address) => {
    const dot = address.indexOf('.');
    if (dot < 0) return;
    const namespace = namespaceOf(address.slice(0, dot) as ResourceKind);
    if (!taken.has(namespace)) taken.set(namespace, new Set());
    taken.get(namespace)!.add(address.slice(dot + 1));
  };
  for (const address of input.projectAddresses) add(address);
  for (const address of Object.keys(input.state.resources)) add(address);
  return taken;
}

/** Which payload keys the planner will compare: required, defaulted or clearable ones, and `extra`. */
function managedKeys(schema: z.ZodObject, extra: readonly string[]): string[] {
  return Object.entries(schema.shape as Record<string, z.ZodType>)
    .filter(([key, field]) => {
      if (extra.includes(key)) return true;
      const absent = field.safeParse(undefined);
      const optionalWithoutDefault = absent.success && absent.data === undefined;
      return !optionalWithoutDefault || field.safeParse(null).success || field.safeParse([]).success;
    })
    .map(([key]) => key);
}

function upperSnake(text: string): string {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .toUpperCase();
}

export function planImport(input: ImportInput): ImportPlan {
  const taken = takenLogicalIds(input);
  const idsFor = new Map<string, UniqueNames>();
  const logicalIdFor = (kind: ResourceKind, name: string) => {
    const namespace = namespaceOf(kind);
    if (!idsFor.has(namespace)) idsFor.set(namespace, new UniqueNames(taken.get(namespace) ?? []));
    return idsFor.get(namespace)!.claim(slugify(name, adapterFor(kind).importing.slugFallback));
  };

  // Logical ids and addresses first: references between imported resources need them all.
  const key = (kind: ResourceKind, id: RemoteId) => `${kind}\u0000${String(id)}`;
  const byRemote = new Map<string, { candidate: Candidate; address: Address; logicalId: string }>();
  const ordered = input.candidates.map((candidate) => {
    const logicalId = logicalIdFor(candidate.kind, candidate.name);
    const entry = { candidate, address: `${candidate.kind}.${logicalId}`, logicalId };
    byRemote.set(key(candidate.kind, candidate.remoteId), entry);
    return entry;
  });

  const generatedDir = input.generatedDir ?? 'imported';
  const managedByRemote = new Map<string, ManagedResource>();
  for (const managed of input.managed ?? []) managedByRemote.set(key(managed.kind, managed.remoteId), managed);
  const external = new Map<Address, ExternalVariable>();
  // Generated variables never shadow one the generated code imports from the project's files.
  const variables = new UniqueNames(
    (input.managed ?? []).flatMap((managed) => (managed.variable !== undefined && BY_VARIABLE.has(managed.kind) ? [managed.variable] : [])),
    '',
  );
  const variableOf = new Map<Address, string>();
  for (const { candidate, address, logicalId } of ordered) {
    const suffix = adapterFor(candidate.kind).importing.variableSuffix;
    if (suffix !== undefined) variableOf.set(address, variables.claim(variableName(logicalId, suffix)));
  }

  // Lower-cased: on case-insensitive file systems `Checks.monitor.ts` is taken for `checks`.
  const stems = new UniqueNames(
    [...input.existingFiles].map((file) => file.toLowerCase()).filter((file) => file.endsWith(MONITOR_SUFFIX)).map((file) => file.slice(0, -MONITOR_SUFFIX.length)),
  );
  const fileOf = new Map<string, string>();
  const claimFile = (slot: string, stem: string) => {
    if (!fileOf.has(slot)) fileOf.set(slot, `${stems.claim(fileStem(stem))}${MONITOR_SUFFIX}`);
    return fileOf.get(slot)!;
  };

  const envNames = new UniqueNames([], '_');
  const required: RequiredVariable[] = [];
  const configInheritance = inheritanceFromConfig(input.checkDefaults);
  const resources: ImportedResource[] = [];

  for (const { candidate, address, logicalId } of ordered) {
    const warnings: string[] = [];
    const hidden = new Map<string, unknown>();
    const context: MapContext = {
      logicalId,
      generatedDir,
      ref(kind, remoteId) {
        const imported = byRemote.get(key(kind, remoteId));
        if (imported) return { type: 'ref', address: imported.address };
        const managed = managedByRemote.get(key(kind, remoteId));
        if (managed && BY_VARIABLE.has(kind)) {
          if (managed.variable !== undefined) {
            external.set(managed.address, { address: managed.address, variable: managed.variable, module: moduleFrom(generatedDir, managed.source.file) });
            return { type: 'ref', address: managed.address };
          }
          warnings.push(
            `refers to ${managed.address}, which ${managed.source.file}:${managed.source.line} declares without exporting it, by its id; ` +
              'export that construct and use its variable instead, so the reference follows it when it is re-created',
          );
        }
        const className = adapterFor(kind).importing.fromIdClass ?? 'this is a bug';
        return call(`${className}.fromId(${typeof remoteId === 'number' ? String(remoteId) : tsString(String(remoteId))})`, className);
      },
      secret({ path, hint, remoteValue, payloadValue }) {
        if (remoteValue === '') {
          hidden.set(path, hashSecret(''));
          return literal('');
        }
        const name = envNames.claim(environmentName(`${upperSnake(logicalId)}_${upperSnake(hint)}`));
        const returnedByService = typeof remoteValue === 'string';
        const fromEnv = input.env[name];
        hidden.set(path, payloadValue !== undefined ? hashSecret(payloadValue) : returnedByService ? hashSecret(remoteValue) : fromEnv !== undefined ? hashSecret(fromEnv) : null);
        required.push({ name, address, path, returnedByService });
        return { type: 'env', name };
      },
      warn: (message) => warnings.push(message),
    };

    const { remote } = candidate;
    const adapter = adapterFor(candidate.kind);
    const { placement } = adapter.importing;
    // A check's file is its group's when that group is imported too.
    const group =
      adapter.isCheck && remote.groupId !== null && remote.groupId !== undefined ? byRemote.get(key('check-group', remote.groupId as RemoteId)) : undefined;
    // config (for this kind) → a browser check's own layer of the config, as synth cascades.
    const inherited = adapter.isCheck
      ? { ...inheritanceFromConfig(input.checkDefaults, candidate.kind), ...(candidate.kind === 'browser-check' ? browserCheckLayer(input.checkDefaults) : {}) }
      : configInheritance;
    const mapped = adapter.importing.map(remote, { adapter, inherited, context });
    let file: string;
    switch (placement.file) {
      case 'shared':
        file = claimFile(candidate.kind, placement.stem);
        break;
      case 'own':
        // `checks` is claimed first so ungrouped checks keep that file name whatever groups are called.
        claimFile('checks', 'checks');
        file = claimFile(address, logicalId);
        break;
      case 'with-group':
        file = group ? fileOf.get(group.address)! : claimFile('checks', 'checks');
        break;
    }

    const names = new Set<string>();
    const refs = new Set<Address>();
    usesOf(mapped.props, names, refs);
    let secretsApplied: unknown = structuredClone(remote);
    for (const [path, value] of hidden) secretsApplied = replaceAtPath(secretsApplied, path, () => value);
    const applied = normalizeRemote({
      adapter,
      remote,
      managedKeys: managedKeys(adapter.schemaFor(remote), mapped.extraKeys),
      secretPaths: [...hidden.keys()],
      applied: secretsApplied as Payload,
    });
    resources.push({
      address,
      kind: candidate.kind,
      logicalId,
      remoteId: candidate.remoteId,
      name: candidate.name,
      construct: mapped.construct,
      props: mapped.props,
      ...(variableOf.has(address) ? { variable: variableOf.get(address)! } : {}),
      file,
      dependsOn: [...refs].sort(),
      applied: JSON.parse(JSON.stringify(applied)) as Payload,
      warnings,
    });
  }

  const files = [...new Set(resources.map((resource) => resource.file))].map((name) => ({
    name,
    addresses: resources.filter((resource) => resource.file === name).map((resource) => resource.address),
  }));
  return { resources, files, variables: required, external: [...external.values()].sort((a, b) => (a.address < b.address ? -1 : 1)) };
}

export type { Code, ObjectCode };
