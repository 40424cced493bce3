/**
 * The state document's schema, creation and the checks made whenever one is read: validation (a
 * corrupt file is an error naming the file and field, never silently replaced) and target identity.
 */
import { createHash, randomUUID } from 'node:crypto';
import { RESOURCE_KINDS } from '@vigil/constructs';
import { z } from 'zod';
import { tryParseAddress } from './addresses.js';
import { StateError } from './errors.js';
import type { StateDocument, StateTarget, StateWriteOptions } from './types.js';

export const STATE_VERSION = 1;

const kindSchema = z.enum(RESOURCE_KINDS);
const remoteIdSchema = z.union([z.string().min(1), z.number()]);
const addressSchema = z.string().refine((value) => !('problem' in tryParseAddress(value)), {
  error: (issue) => {
    const parsed = tryParseAddress(String(issue.input));
    return 'problem' in parsed ? parsed.problem : 'invalid address';
  },
});

export const resourceSchema = z.strictObject({
  kind: kindSchema,
  remoteId: remoteIdSchema,
  applied: z.record(z.string(), z.unknown()),
  dependsOn: z.array(addressSchema),
  protect: z.boolean().optional(),
});

export const journalEntrySchema = z.strictObject({
  id: z.string().min(1),
  operation: z.enum(['create', 'update', 'delete']),
  address: addressSchema,
  kind: kindSchema,
  startedAt: z.iso.datetime(),
  idempotencyKey: z.string().min(1).optional(),
  remoteId: remoteIdSchema.optional(),
  name: z.string().optional(),
});

/** zod schema of `StateDocument`: validated on every read. */
export const stateDocumentSchema = z
  .strictObject({
    version: z.literal(STATE_VERSION),
    lineage: z.uuid(),
    serial: z.int().nonnegative(),
    project: z.string(),
    target: z.strictObject({ baseUrl: z.string().min(1), accountId: z.string(), serviceId: z.string().min(1).optional() }),
    resources: z.record(z.string(), resourceSchema),
    journal: z.array(journalEntrySchema),
  })
  .superRefine((document, context) => {
    for (const [address, resource] of Object.entries(document.resources)) {
      // Checked here rather than as the record's key schema, whose error hides the reason.
      const parsed = tryParseAddress(address);
      if ('problem' in parsed) {
        context.addIssue({ code: 'custom', path: ['resources', address], message: parsed.problem });
        continue;
      }
      if (!address.startsWith(`${resource.kind}.`)) {
        context.addIssue({
          code: 'custom',
          path: ['resources', address, 'kind'],
          message: `kind "${resource.kind}" does not match the address's kind`,
        });
      }
    }
    const seen = new Set<string>();
    document.journal.forEach((entry, index) => {
      if (!entry.address.startsWith(`${entry.kind}.`)) {
        context.addIssue({ code: 'custom', path: ['journal', index, 'kind'], message: `kind "${entry.kind}" does not match the address's kind` });
      }
      if (seen.has(entry.id)) {
        context.addIssue({ code: 'custom', path: ['journal', index, 'id'], message: `duplicate journal id "${entry.id}"` });
      }
      seen.add(entry.id);
    });
  });

/** A fresh document for a project that has never been applied to `target`. */
export function emptyState(options: { project: string; target: StateTarget }): StateDocument {
  return {
    version: STATE_VERSION,
    lineage: randomUUID(),
    serial: 0,
    project: options.project,
    target: targetOf(options.target),
    resources: {},
    journal: [],
  };
}

/**
 * What state stores instead of a secret: enough to tell that the value changed, never the value.
 * Deterministic, so the planner can compare the desired secret's hash with the applied one.
 */
export function hashSecret(value: string): string {
  return `sha256:${createHash('sha256').update(value, 'utf8').digest('hex')}`;
}

/**
 * Parses and validates a state file's text. `location` names the file in errors, which tell what
 * is wrong and where, and that the file was left as it is.
 */
export function parseStateDocument(text: string, location: string): StateDocument {
  const untouched = 'vigil left it untouched: fix it or restore it (e.g. from version control)';
  if (text.trim() === '') {
    // Typically a write cut short by a full disk or a copy that failed, not anything vigil leaves.
    throw new StateError('state-invalid', `state file ${location} is empty; ${untouched}, or delete it if nothing was ever applied`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new StateError('state-invalid', `state file ${location} is not valid JSON (${reason}); ${untouched}`, { cause: error });
  }
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new StateError('state-invalid', `state file ${location} is not a vigil state document (expected a JSON object); ${untouched}`);
  }
  const version = (data as { version?: unknown }).version;
  if (version !== STATE_VERSION) {
    const detail =
      typeof version === 'number' && version > STATE_VERSION
        ? `has version ${version}, written by a newer vigil; this vigil reads version ${STATE_VERSION} (upgrade vigil)`
        : version === undefined
          ? `has no "version" field; it is not a vigil state document`
          : `has version ${JSON.stringify(version)}, but this vigil reads version ${STATE_VERSION}`;
    throw new StateError('state-invalid', `state file ${location} ${detail}; ${untouched}`);
  }
  const result = stateDocumentSchema.safeParse(data);
  if (!result.success) {
    const problems = result.error.issues.slice(0, 5).map((issue) => `${formatIssuePath(issue.path)}: ${issue.message}`);
    const more = result.error.issues.length > 5 ? ` (and ${result.error.issues.length - 5} more)` : '';
    throw new StateError('state-invalid', `state file ${location} is invalid at ${problems.join('; ')}${more}; ${untouched}`);
  }
  // The schema neither transforms nor fills in defaults, and strict objects admit no unknown keys,
  // so the parsed JSON is the validated document; zod's deep copy of it (tens of MB for 10,000
  // resources) is left to be collected young instead of kept.
  return data as StateDocument;
}

/** `resources["api-check.home"].remoteId`, `journal[0].kind`. */
export function formatIssuePath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return '(document)';
  return path
    .map((segment, index) => {
      if (typeof segment === 'number') return `[${segment}]`;
      const text = String(segment);
      if (/^[A-Za-z_$][\w$]*$/.test(text)) return index === 0 ? text : `.${text}`;
      return `[${JSON.stringify(text)}]`;
    })
    .join('');
}

/** Same service and account, whatever the URL's spelling (`HTTP://Host:80/` equals `http://host`). */
export function normaliseBaseUrl(baseUrl: string): string {
  try {
    const url = new URL(baseUrl);
    return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`;
  } catch {
    return baseUrl.replace(/\/+$/, '');
  }
}

function targetOf(target: StateTarget): StateTarget {
  return { baseUrl: target.baseUrl, accountId: target.accountId, ...(target.serviceId === undefined ? {} : { serviceId: target.serviceId }) };
}

/**
 * The same service and account. Two services that both report their identity are compared by it;
 * otherwise by URL, as before services reported one.
 */
export function sameTarget(a: StateTarget, b: StateTarget): boolean {
  if (a.accountId !== b.accountId) return false;
  if (a.serviceId !== undefined && b.serviceId !== undefined) return a.serviceId === b.serviceId && normaliseBaseUrl(a.baseUrl) === normaliseBaseUrl(b.baseUrl);
  return normaliseBaseUrl(a.baseUrl) === normaliseBaseUrl(b.baseUrl);
}

function describeTarget(target: StateTarget): string {
  return `${target.baseUrl} account ${target.accountId}${target.serviceId === undefined ? '' : ` (service ${target.serviceId})`}`;
}

/**
 * Refuses a state made against another service or account: using it would plan deletes of
 * resources that merely live elsewhere, and creates of duplicates. The same service at a new
 * address is refused too, with the command that records the move.
 */
export function assertSameTarget(state: StateDocument, target: StateTarget, options: { location?: string } = {}): void {
  if (sameTarget(state.target, target)) return;
  const location = options.location ?? '.vigil/state.json';
  const { serviceId } = state.target;
  if (serviceId !== undefined && serviceId === target.serviceId && state.target.accountId === target.accountId) {
    throw new StateError(
      'state-target-moved',
      `state at ${location} belongs to service ${serviceId} at ${state.target.baseUrl}, and the configured target ${target.baseUrl} is that same service (account ${target.accountId}) at a new address. ` +
        `Run \`vigil state retarget ${target.baseUrl}\` to record the new address, then run this command again.`,
    );
  }
  if (serviceId !== undefined && target.serviceId !== undefined && serviceId !== target.serviceId) {
    throw new StateError(
      'state-target-mismatch',
      `state at ${location} belongs to service ${serviceId} (${state.target.baseUrl} account ${state.target.accountId}), ` +
        `but the configured target ${target.baseUrl} is another service, ${target.serviceId} (account ${target.accountId}), which holds none of its resources. ` +
        `Point VIGIL_API_URL at the state's service, or give this target its own state file (state.path in vigil.config.ts).`,
    );
  }
  throw new StateError(
    'state-target-mismatch',
    `state at ${location} belongs to ${state.target.baseUrl} account ${state.target.accountId}, ` +
      `but the configured target is ${target.baseUrl} account ${target.accountId}. ` +
      `Point VIGIL_API_URL / VIGIL_ACCOUNT_ID at the state's target, or give this target its own state file (state.path in vigil.config.ts).`,
  );
}

/**
 * `state` bound to `target`. A state written before vigil recorded the account the key acts on
 * (`accountId: ""`) adopts the account of the first target with its URL it is used with, and
 * `adoptedAccount` says so; one written before services reported their identity adopts the
 * `serviceId` of the service at its URL (`adoptedService`). The caller tells the user, and the next
 * write records it, so this happens once. Any other difference is refused as by {@link assertSameTarget}.
 */
export function bindToTarget(
  state: StateDocument,
  target: StateTarget,
  options: { location?: string } = {},
): { state: StateDocument; adoptedAccount?: string; adoptedService?: string } {
  const sameUrl = normaliseBaseUrl(state.target.baseUrl) === normaliseBaseUrl(target.baseUrl);
  const adoptsAccount = state.target.accountId === '' && target.accountId !== '' && sameUrl;
  const accountId = adoptsAccount ? target.accountId : state.target.accountId;
  const adoptsService = state.target.serviceId === undefined && target.serviceId !== undefined && sameUrl && accountId === target.accountId;
  const bound: StateTarget = { ...state.target, accountId, ...(adoptsService ? { serviceId: target.serviceId } : {}) };
  assertSameTarget({ ...state, target: bound }, target, options);
  if (!adoptsAccount && !adoptsService) return { state };
  return {
    state: { ...state, target: bound },
    ...(adoptsAccount ? { adoptedAccount: target.accountId } : {}),
    ...(adoptsService ? { adoptedService: target.serviceId! } : {}),
  };
}

/**
 * `vigil state retarget`: `state` pointed at `target`, the same service at another address. Refused
 * unless the service is the one state records (same `serviceId` and account); a state recorded
 * before services reported their identity cannot be checked that way, so the caller must have
 * confirmed the service holds its resources (`verifiedByResources`).
 */
export function retargetState(
  state: StateDocument,
  target: StateTarget,
  options: { location?: string; verifiedByResources?: boolean } = {},
): StateDocument {
  const location = options.location ?? '.vigil/state.json';
  if (target.serviceId === undefined) {
    throw new StateError(
      'state-target-mismatch',
      `${target.baseUrl} does not report a service id (GET /v1/accounts/me), so vigil cannot tell that it is the service state at ${location} belongs to (${describeTarget(state.target)}); state was left as it is.`,
    );
  }
  if (state.target.accountId !== '' && state.target.accountId !== target.accountId) {
    throw new StateError(
      'state-target-mismatch',
      `state at ${location} belongs to account ${state.target.accountId}, but the API key acts on account ${target.accountId} at ${target.baseUrl}; state was left as it is. Set VIGIL_ACCOUNT_ID (or VIGIL_API_KEY) for account ${state.target.accountId}.`,
    );
  }
  if (state.target.serviceId !== undefined && state.target.serviceId !== target.serviceId) {
    throw new StateError(
      'state-target-mismatch',
      `state at ${location} belongs to service ${state.target.serviceId} (${state.target.baseUrl} account ${state.target.accountId}), ` +
        `but ${target.baseUrl} is another service, ${target.serviceId} (account ${target.accountId}); state was left as it is.`,
    );
  }
  if (state.target.serviceId === undefined && options.verifiedByResources !== true) {
    throw new StateError(
      'state-target-mismatch',
      `state at ${location} recorded no service id, and ${target.baseUrl} does not hold every resource it manages, so it is not the service state belongs to (${describeTarget(state.target)}); state was left as it is.`,
    );
  }
  return { ...state, target: targetOf(target) };
}

/**
 * The rules every backend applies to a write, so that they agree: a document of another lineage
 * never replaces the stored one (it belongs to another project or target) unless forced, and the
 * stored serial only grows. `storedLineage` and `storedSerial` describe what the backend holds
 * (`undefined` and 0 when it holds nothing). Returns the serial to store.
 */
export function serialForWrite(
  stored: { lineage: string | undefined; serial: number },
  document: Pick<StateDocument, 'lineage' | 'serial'>,
  options: StateWriteOptions & { location: string },
): number {
  const { location } = options;
  if (!options.force && stored.lineage !== undefined && document.lineage !== stored.lineage) {
    throw new StateError(
      'state-lineage-mismatch',
      `refusing to overwrite state ${location} (lineage ${stored.lineage}) with a document of lineage ${document.lineage}: they belong to different projects or targets`,
    );
  }
  if (!options.keepSerial) return stored.serial + 1;
  if (document.serial > stored.serial) return document.serial;
  if (options.force) return stored.serial + 1;
  throw new StateError(
    'state-serial-stale',
    `refusing to overwrite state ${location} (serial ${stored.serial}) with a document of serial ${document.serial}: it is not newer, so it would undo later writes`,
  );
}

/**
 * Whether `incoming` may replace `stored` (`vigil state push`): same lineage and a newer serial,
 * the rules a write applies, checked before any lock or write so the refusal can say how to force it.
 */
export function assertReplaceable(stored: StateDocument | undefined, incoming: StateDocument, options: { location: string; source: string; forceHint: string }): void {
  if (stored === undefined) return;
  const hint = ` If ${options.source} really should replace it, ${options.forceHint}.`;
  if (stored.lineage !== incoming.lineage) {
    throw new StateError(
      'state-lineage-mismatch',
      `refusing to replace state ${options.location} (lineage ${stored.lineage}, serial ${stored.serial}) with ${options.source} (lineage ${incoming.lineage}): ` +
        `they belong to different projects or targets.${hint}`,
    );
  }
  if (incoming.serial <= stored.serial) {
    throw new StateError(
      'state-serial-stale',
      `refusing to replace state ${options.location} (serial ${stored.serial}) with ${options.source} (serial ${incoming.serial}): ` +
        `it is not newer, so it would undo later writes (e.g. an apply made since it was pulled).${hint}`,
    );
  }
}

// Resource entries are never mutated once in a document (journal edits copy), so their JSON can be
// cached by identity: a large apply rewrites state hundreds of times, and re-serialising every
// unchanged entry each time was most of its CPU.
const entryJson = new WeakMap<object, string>();
const RESOURCES_PLACEHOLDER = '\u0000vigil-resources\u0000';

/** The document as `JSON.stringify(document, null, 2)` would write it, only faster on re-writes. */
export function serializeState(document: StateDocument): string {
  const entries = Object.entries(document.resources).map(([address, resource]) => {
    let json = entryJson.get(resource);
    if (json === undefined) {
      json = JSON.stringify(resource, null, 2).replace(/\n/g, '\n    ');
      entryJson.set(resource, json);
    }
    return `    ${JSON.stringify(address)}: ${json}`;
  });
  const resources = entries.length === 0 ? '{}' : `{\n${entries.join(',\n')}\n  }`;
  return JSON.stringify({ ...document, resources: RESOURCES_PLACEHOLDER }, null, 2).replace(JSON.stringify(RESOURCES_PLACEHOLDER), () => resources);
}
