/**
 * The JSON plan format (`formatVersion: 1`, DESIGN §6) as a zod schema: what `vigil plan --json`
 * prints and `--out` saves, and what `vigil apply plan.json` reads back. Scripts may rely on it.
 */
import { RESOURCE_KINDS } from '@vigil/constructs';
import { z } from 'zod';
import type { Plan } from './types.js';

const fieldChange = z.object({ path: z.string(), before: z.unknown().optional(), after: z.unknown().optional() });
const remoteId = z.union([z.string(), z.number()]);
const kind = z.enum(RESOURCE_KINDS as unknown as [string, ...string[]]);

export const planSchema = z.object({
  formatVersion: z.literal(1),
  project: z.string(),
  target: z.object({ baseUrl: z.string(), accountId: z.string() }),
  state: z.object({ lineage: z.string(), serial: z.number().int().nonnegative() }),
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
  diagnostics: z.array(z.unknown()),
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

export function parseSavedPlan(text: string, location: string): z.infer<typeof planSchema> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new SavedPlanError(`${location} is not a saved plan: ${(error as Error).message}`);
  }
  const parsed = planSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new SavedPlanError(`${location} is not a saved plan (formatVersion 1): ${issue.path.join('.') || '(root)'}: ${issue.message}`);
  }
  return parsed.data;
}

/**
 * Why a saved plan no longer matches the plan derived now, or `undefined` when it does: same
 * project, target and state serial, and the same actions on the same payloads.
 */
export function savedPlanDifference(saved: z.infer<typeof planSchema>, fresh: Plan): string | undefined {
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
