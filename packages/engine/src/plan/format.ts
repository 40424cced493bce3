/**
 * The JSON plan format (`formatVersion: 1`) as a zod schema: what `vigil plan --json`
 * prints and `--out` saves, and what `vigil apply plan.json` reads back. Scripts may rely on it.
 */
import { RESOURCE_KINDS } from '@vigil/constructs';
import { z } from 'zod';
import type { Plan } from './types.js';

const fieldChange = z.object({ path: z.string(), before: z.unknown().optional(), after: z.unknown().optional() });
const remoteId = z.union([z.string(), z.number()]);
const kind = z.enum(RESOURCE_KINDS);

export const planSchema = z.object({
  formatVersion: z.literal(1),
  project: z.string(),
  target: z.object({ baseUrl: z.string(), accountId: z.string() }),
  state: z.object({ lineage: z.string(), serial: z.number().int().nonnegative() }),
  destroy: z.literal(true).optional(),
  targets: z.array(z.string()).optional(),
  summary: z.object({
    create: z.number().int(),
    update: z.number().int(),
    delete: z.number().int(),
    replace: z.number().int(),
    noop: z.number().int(),
  }),
  changes: z.array(
    z.object({
      address: z.string(),
      kind,
      logicalId: z.string(),
      action: z.enum(['create', 'update', 'delete', 'replace', 'noop']),
      reason: z.enum(['new', 'field-changed', 'drift', 'not-in-code', 'kind-changed', 'deleted-remotely', 'unchanged']),
      remoteId: remoteId.optional(),
      dependsOn: z.array(z.string()),
      diff: z.array(fieldChange),
      drift: z.array(fieldChange),
      payloadHash: z.string().optional(),
      replaces: z.object({ address: z.string(), kind, remoteId }).optional(),
    }),
  ),
  forget: z.array(z.string()),
  diagnostics: z.array(
    z.object({
      severity: z.enum(['error', 'warning']),
      message: z.string(),
      hint: z.string().optional(),
      address: z.string().optional(),
      path: z.string().optional(),
      source: z.object({ file: z.string(), line: z.number(), column: z.number() }).optional(),
    }),
  ),
});

/** The plan as JSON text; `undefined` fields (a create's remote id) are left out. */
export function serializePlan(plan: Plan): string {
  return `${JSON.stringify(plan, null, 2)}\n`;
}

export class SavedPlanError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SavedPlanError';
  }
}

const MAKE_ONE = 'make one with: vigil plan --out FILE';

/** Reads a saved plan, telling a damaged one from another kind of file (a state file, a newer format). */
export function parseSavedPlan(text: string, location: string): SavedPlan {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new SavedPlanError(`${location} is not a saved plan: it is not JSON (${(error as Error).message}); ${MAKE_ONE}`);
  }
  const record = typeof json === 'object' && json !== null && !Array.isArray(json) ? (json as Record<string, unknown>) : undefined;
  if (record && 'lineage' in record && 'resources' in record && !('changes' in record)) {
    throw new SavedPlanError(`${location} is a vigil state file, not a saved plan; ${MAKE_ONE}`);
  }
  if (!record || !('formatVersion' in record) || !('changes' in record)) {
    throw new SavedPlanError(`${location} is not a saved plan: a vigil plan is a JSON object with formatVersion and changes; ${MAKE_ONE}`);
  }
  if (record.formatVersion !== 1) {
    throw new SavedPlanError(`${location} is a plan of formatVersion ${JSON.stringify(record.formatVersion)}, and this vigil reads formatVersion 1; make it again with this version`);
  }
  const parsed = planSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new SavedPlanError(`${location} is a damaged saved plan (formatVersion 1): ${issue.path.join('.') || '(root)'}: ${issue.message}; ${MAKE_ONE}`);
  }
  return parsed.data as SavedPlan;
}

/** A saved plan as read back: the plan data, with no payloads (apply re-derives them). */
export type SavedPlan = Plan;

/**
 * Why a saved plan no longer matches the plan derived now, or `undefined` when it does: same
 * project, target and state serial, and the same actions on the same payloads.
 */
export function savedPlanDifference(saved: SavedPlan, fresh: Plan): string | undefined {
  if ((saved.destroy ?? false) !== (fresh.destroy ?? false)) return saved.destroy ? 'it is a destroy plan, and this run plans changes' : 'it plans changes, and this run destroys';
  if (saved.project !== fresh.project) return `it is for project "${saved.project}", not "${fresh.project}"`;
  if (saved.target.baseUrl !== fresh.target.baseUrl || saved.target.accountId !== fresh.target.accountId) {
    return `it targets ${saved.target.baseUrl} (account ${saved.target.accountId}), not ${fresh.target.baseUrl} (account ${fresh.target.accountId})`;
  }
  if (saved.state.serial !== fresh.state.serial) {
    return `the state changed since it was made (serial ${saved.state.serial} then, ${fresh.state.serial} now)`;
  }
  // Serial 0 means no state existed yet; a fresh lineage is drawn each time until the first write.
  if (saved.state.serial > 0 && saved.state.lineage !== fresh.state.lineage) {
    return `it was made for another state (lineage ${saved.state.lineage}, now ${fresh.state.lineage})`;
  }
  const key = (change: { address: string; action: string; payloadHash?: string | undefined; remoteId?: string | number | undefined }) =>
    `${change.address} ${change.action} ${change.payloadHash ?? ''} ${change.remoteId ?? ''}`;
  const before = new Map(saved.changes.filter((c) => c.action !== 'noop').map((change) => [change.address, key(change)]));
  const now = new Map(fresh.changes.filter((c) => c.action !== 'noop').map((change) => [change.address, key(change)]));
  for (const [address, text] of now) {
    if (before.get(address) !== text) return `${address} would now be planned differently`;
  }
  for (const address of before.keys()) if (!now.has(address)) return `${address} no longer needs a change`;
  if ([...saved.forget].sort().join() !== [...fresh.forget].sort().join()) return 'the resources to forget differ';
  return undefined;
}
