/**
 * `--seed FILE`: a JSON document that fills the read side with realistic data (the contract has no
 * write endpoint for check results, heartbeat events or subscriptions; status pages it has, and
 * seeded ones are the same pages as those).
 *
 * Format (every list optional):
 *
 *     {
 *       "accounts": [{
 *         "accountId": "acme",                       // must be an account the server knows (--api-key/--account-id)
 *         "profile": { "name", "runtimeId", "settings", "alertSettings" },
 *         "checks": [{ "id": "<uuid>", "checkType": "API" | "MULTI_STEP" | "TCP" | ..., ...create body }],
 *         "checkResults": [{ "id"?, "checkId", "created_at", "runLocation", "hasFailures"?, "responseTime"?,
 *                            "resultType"?, "attempts"?, "apiCheckResult"?: { "response": { "status", "timingPhases" },
 *                            "requestError" }, "multiStepCheckResult"?, ... }],
 *         "heartbeatEvents": [{ "checkId", "id"?, "state", "timestamp", "source"?, "userAgent"? }],
 *         "statusPages": [{ "id", "name", "cards"?: [{ "name", "services": [{ "id", "name"? }] }],
 *                           "subscriptions": [{ "id"?, "address", "status"?, "created_at"? }] }]
 *       }]
 *     }
 *
 * Times (`created_at`, `timestamp`) are ISO 8601 or relative to load time: `now`, `now-90m`,
 * `now-2h`, `now-3d`, `now+30s`, so a fixture keeps exercising "the last 6 hours" whenever it runs.
 * Checks are created exactly like `POST /v1/checks/api`, `/multistep` or `/v1/checks` (same schema,
 * same defaults) and keep the seed's `id`. Results are completed to the full check-result shape
 * (name from the check, `startedAt`/`stoppedAt` from `created_at` and `responseTime`, ...).
 * A load is one unit of work over the storage ports (either engine): a seed refused part-way stores
 * nothing. Loading is idempotent: a check, result, event or subscription whose id is already stored is
 * skipped, so restarting on the same `--data` directory with the same seed adds nothing (and a
 * relative time keeps the instant it resolved to at the load that stored it). A result without `id`
 * gets one derived from its check and position in the file, for the same reason.
 * A status page's cards name the status-page services it shows (the real API's `cards`); a service
 * id not yet stored is created with that id (and the card's name unless the service names one), so
 * a project can use it through `StatusPageService.fromId` and a check's `triggerIncident` reaches
 * the page's subscribers.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { HeartbeatEventState, Location, ResultType, SubscriptionStatus } from '@vigil/schema';
import { AccountChannels, createCheck } from '../domain/checks.js';
import { createSchemaOf, variantOfType } from '../domain/check-variants.js';
import { DomainError } from '../domain/errors.js';
import type { Repositories } from '../repositories.js';
import type { StoredDoc } from '../store/index.js';
import type { CheckResultDocument, ErrorOccurrence, TransactionPorts } from '../store/ports.js';
import { errorMessagesOf } from './error-groups.js';
import { boundResult } from './result-bounds.js';

/** A seed that does not fit the format; the message names the offending path. */
export class SeedError extends Error {
  override readonly name = 'SeedError';
}

const Json = z.record(z.string(), z.unknown());
const TimeExpression = z.string().min(1);

const SeedResult = z.looseObject({
  id: z.string().min(1).optional(),
  checkId: z.string().min(1),
  created_at: TimeExpression,
  runLocation: Location,
  hasFailures: z.boolean().default(false),
  hasErrors: z.boolean().default(false),
  responseTime: z.number().min(0).default(0),
  resultType: ResultType.exclude(['ALL']).default('FINAL'),
  attempts: z.number().int().min(0).default(0),
  apiCheckResult: Json.nullable().optional(),
  multiStepCheckResult: Json.nullable().optional(),
  browserCheckResult: Json.nullable().optional(),
});

const SeedHeartbeatEvent = z.object({
  id: z.string().min(1).optional(),
  checkId: z.string().min(1),
  state: HeartbeatEventState,
  timestamp: TimeExpression,
  source: z.string().default(''),
  userAgent: z.string().default(''),
});

const SeedSubscription = z.object({
  id: z.string().min(1).optional(),
  address: z.string().min(1),
  status: SubscriptionStatus.default('VERIFIED'),
  created_at: TimeExpression.optional(),
  updated_at: TimeExpression.nullable().optional(),
});

const SeedAccount = z.object({
  accountId: z.string().min(1),
  profile: z
    .object({
      name: z.string().optional(),
      runtimeId: z.string().optional(),
      settings: Json.optional(),
      alertSettings: Json.optional(),
    })
    .optional(),
  checks: z.array(z.looseObject({ id: z.string().min(1), checkType: z.string().default('API') })).default([]),
  checkResults: z.array(SeedResult).default([]),
  heartbeatEvents: z.array(SeedHeartbeatEvent).default([]),
  statusPages: z
    .array(
      z.object({
        id: z.string().min(1),
        name: z.string().min(1),
        cards: z.array(z.object({ name: z.string().min(1), services: z.array(z.object({ id: z.string().min(1), name: z.string().min(1).optional() })).default([]) })).default([]),
        subscriptions: z.array(SeedSubscription).default([]),
      }),
    )
    .default([]),
});

export const SeedFile = z.object({ accounts: z.array(SeedAccount).default([]) });
export type SeedFile = z.input<typeof SeedFile>;

export interface LoadSeedOptions {
  /** The instant relative times are resolved against; default now. */
  now?: Date;
  /** Accounts the server knows; a seed naming another account is refused. */
  knownAccountIds?: readonly string[];
}

/** What one load added (items already stored are not counted). */
export interface SeedSummary {
  checks: number;
  checkResults: number;
  heartbeatEvents: number;
  statusPages: number;
  subscriptions: number;
}

/** The longest id the documents port reads (checks, services); a longer one names nothing stored. */
const MAX_DOCUMENT_ID = 255;

/**
 * Validates `seed` and stores what it holds in one unit of work (see the module comment); resolves to
 * what was added. Rejects with a SeedError naming the offending path, having stored nothing.
 */
export async function loadSeed(repositories: Pick<Repositories, 'ports'>, seed: unknown, options: LoadSeedOptions = {}): Promise<SeedSummary> {
  const parsed = SeedFile.safeParse(seed);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new SeedError(`seed: ${issue.path.join('.') || '(root)'}: ${issue.message}`);
  }
  const now = options.now ?? new Date();
  return repositories.ports.transaction(async (tx) => {
    const summary: SeedSummary = { checks: 0, checkResults: 0, heartbeatEvents: 0, statusPages: 0, subscriptions: 0 };
    for (const [accountIndex, account] of parsed.data.accounts.entries()) {
      const at = `accounts.${accountIndex}`;
      if (options.knownAccountIds && !options.knownAccountIds.includes(account.accountId)) {
        throw new SeedError(`seed: ${at}.accountId: account "${account.accountId}" is not configured on this server`);
      }
      const accountId = account.accountId;
      if (account.profile) await tx.accountProfiles.save(accountId, account.profile);
      for (const [index, check] of account.checks.entries()) {
        if (await seedCheck(tx, accountId, check, `${at}.checks.${index}`)) summary.checks += 1;
      }
      for (const [index, result] of account.checkResults.entries()) {
        const path = `${at}.checkResults.${index}`;
        const check = await storedCheck(tx, accountId, result.checkId);
        if (!check) throw new SeedError(`seed: ${path}.checkId: check "${result.checkId}" is not in the seed or the store`);
        const full = boundResult(completeResult(result, { check, now, path, fallbackId: derivedId(accountId, result.checkId, 'result', index) }));
        if (await tx.checkResults.appendKept(accountId, full)) {
          summary.checkResults += 1;
          // Folded as a scheduled run's errors are, in the unit that stores the result.
          const createdMs = Date.parse(full.created_at);
          const occurrences: ErrorOccurrence[] = errorMessagesOf(full as Parameters<typeof errorMessagesOf>[0]).map((message) => ({ checkId: full.checkId, message, at: createdMs }));
          if (occurrences.length > 0) await tx.errorGroups.fold(accountId, occurrences);
        }
      }
      for (const [index, event] of account.heartbeatEvents.entries()) {
        const path = `${at}.heartbeatEvents.${index}`;
        if (!(await storedCheck(tx, accountId, event.checkId))) throw new SeedError(`seed: ${path}.checkId: check "${event.checkId}" is unknown`);
        const stored = {
          id: event.id ?? derivedId(accountId, event.checkId, 'heartbeat', index),
          state: event.state,
          timestamp: resolveTime(event.timestamp, now, `${path}.timestamp`),
          source: event.source,
          userAgent: event.userAgent,
        };
        const added = await tx.heartbeatPings.record({ accountId, checkId: event.checkId, id: stored.id, atMs: Date.parse(stored.timestamp), doc: JSON.stringify(stored) });
        if (added) summary.heartbeatEvents += 1;
      }
      for (const [pageIndex, page] of account.statusPages.entries()) {
        const pageAt = `${at}.statusPages.${pageIndex}`;
        if (!(await tx.statusPages.get(accountId, page.id))) summary.statusPages += 1;
        for (const [cardIndex, card] of page.cards.entries()) {
          for (const [serviceIndex, service] of card.services.entries()) {
            await seedService(tx, accountId, service.id, service.name ?? card.name, `${pageAt}.cards.${cardIndex}.services.${serviceIndex}.id`);
          }
        }
        const cards = page.cards.map((card) => ({ name: card.name, services: card.services.map((service) => ({ id: service.id })) }));
        await tx.statusPages.save(accountId, { id: page.id, name: page.name, cards });
        for (const [index, subscription] of page.subscriptions.entries()) {
          const path = `${pageAt}.subscriptions.${index}`;
          const created = subscription.created_at === undefined ? now.toISOString() : resolveTime(subscription.created_at, now, `${path}.created_at`);
          const added = await tx.statusPages.addSubscription(accountId, page.id, {
            id: subscription.id ?? derivedId(accountId, page.id, 'subscription', index),
            type: 'EMAIL',
            address: subscription.address,
            status: subscription.status,
            created_at: created,
            updated_at: subscription.updated_at ? resolveTime(subscription.updated_at, now, `${path}.updated_at`) : created,
          });
          if (added) summary.subscriptions += 1;
        }
      }
    }
    return summary;
  });
}

/** The account's check of that id, or undefined (also for an id too long to be stored). */
async function storedCheck(tx: TransactionPorts, accountId: string, id: string): Promise<StoredDoc | undefined> {
  return id.length > MAX_DOCUMENT_ID ? undefined : ((await tx.documents.get('checks', accountId, id)) as StoredDoc | undefined);
}

/**
 * Creates a seeded check through the same code as the create endpoints, under the seed's id (its
 * results refer to it). Returns false when the account has it already (a reload).
 */
async function seedCheck(tx: TransactionPorts, accountId: string, check: { id: string; checkType: string } & Record<string, unknown>, path: string): Promise<boolean> {
  if (check.id.length > MAX_DOCUMENT_ID) throw new SeedError(`seed: ${path}.id: at most ${MAX_DOCUMENT_ID} characters, got ${check.id.length}`);
  if (await storedCheck(tx, accountId, check.id)) return false;
  const { id: seedId, ...fields } = check;
  const variant = variantOfType(check.checkType);
  const schema = createSchemaOf(variant);
  const body = schema.safeParse(variant === 'generic' ? { script: null, ...fields } : fields);
  if (!body.success) {
    const issue = body.error.issues[0]!;
    throw new SeedError(`seed: ${path}.${issue.path.join('.')}: ${issue.message}`);
  }
  try {
    await createCheck(tx, accountId, { variant, body: body.data as Record<string, unknown>, autoAssignAlerts: false, channels: new AccountChannels(tx, accountId), id: seedId });
  } catch (error) {
    // The account does not have it (read above): another account's check holds the id.
    if (error instanceof DomainError && error.refusal === 'conflict') throw new SeedError(`seed: ${path}.id: check "${seedId}" belongs to another account`);
    throw error;
  }
  return true;
}

/** A status-page service with the seed's id, created like `POST /v1/status-pages/services` unless stored. */
async function seedService(tx: TransactionPorts, accountId: string, id: string, name: string, path: string): Promise<void> {
  if (id.length > MAX_DOCUMENT_ID) throw new SeedError(`seed: ${path}: at most ${MAX_DOCUMENT_ID} characters, got ${id.length}`);
  if (await tx.documents.get('services', accountId, id)) return;
  const created = await tx.documents.insertWithId('services', accountId, { name, id, created_at: new Date().toISOString(), updated_at: null });
  if (!created) throw new SeedError(`seed: ${path}: service "${id}" belongs to another account`);
}

function completeResult(
  result: z.output<typeof SeedResult>,
  context: { check: StoredDoc; now: Date; path: string; fallbackId: string },
): CheckResultDocument {
  const createdAt = resolveTime(result.created_at, context.now, `${context.path}.created_at`);
  const started = Date.parse(createdAt);
  const isApi = context.check['checkType'] === 'API';
  const degraded = typeof context.check['degradedResponseTime'] === 'number' ? (context.check['degradedResponseTime'] as number) : undefined;
  const maxTime = typeof context.check['maxResponseTime'] === 'number' ? (context.check['maxResponseTime'] as number) : undefined;
  return {
    name: String(context.check['name'] ?? ''),
    isDegraded: isApi && degraded !== undefined ? result.responseTime > degraded : null,
    overMaxResponseTime: isApi && maxTime !== undefined ? result.responseTime > maxTime : null,
    startedAt: createdAt,
    stoppedAt: new Date(started + result.responseTime).toISOString(),
    checkRunId: started,
    sequenceId: null,
    browserCheckResult: null,
    multiStepCheckResult: null,
    ...result,
    id: result.id ?? context.fallbackId,
    created_at: createdAt,
    apiCheckResult: result.apiCheckResult === undefined || result.apiCheckResult === null
      ? (isApi ? completeApiResult({}) : null)
      : completeApiResult(result.apiCheckResult),
  };
}

/** Fills the parts of `apiCheckResult` a seed leaves out, so stored results have the full shape. */
function completeApiResult(partial: Record<string, unknown>): Record<string, unknown> {
  const request = (partial['request'] ?? {}) as Record<string, unknown>;
  const response = (partial['response'] ?? {}) as Record<string, unknown>;
  return {
    assertions: [],
    jobLog: null,
    jobAssets: null,
    requestError: null,
    ...partial,
    request: { method: 'GET', url: '', data: '', headers: {}, params: {}, ...request },
    response: { status: 200, statusText: 'OK', body: '', headers: {}, timings: {}, timingPhases: {}, ...response },
  };
}

const RELATIVE_TIME = /^now(?:([+-])(\d+)(s|m|h|d))?$/;
const UNIT_MS: Readonly<Record<string, number>> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `now`, `now-90m`, `now+2h`, `now-3d`, or an ISO 8601 instant → ISO 8601 string. */
export function resolveTime(expression: string, now: Date, path: string): string {
  const relative = RELATIVE_TIME.exec(expression);
  if (relative) {
    const [, sign, amount, unit] = relative;
    const offset = sign === undefined ? 0 : Number(amount) * UNIT_MS[unit!]! * (sign === '-' ? -1 : 1);
    return new Date(now.getTime() + offset).toISOString();
  }
  const instant = Date.parse(expression);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(expression) || !Number.isFinite(instant)) {
    throw new SeedError(`seed: ${path}: "${expression}" is neither an ISO 8601 time nor now[+-]N(s|m|h|d)`);
  }
  return new Date(instant).toISOString();
}

/** A UUID-shaped id that is the same on every load of the same seed. */
function derivedId(accountId: string, ownerId: string, kind: string, index: number): string {
  const hex = createHash('sha256').update(`${accountId}\u0000${ownerId}\u0000${kind}\u0000${index}`).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}
