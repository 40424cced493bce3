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
 * Loading is idempotent: a check, result, event or subscription whose id is already stored is
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
import { createCheckInStore } from '../domain/checks.js';
import { createSchemaOf, variantOfType } from '../domain/check-variants.js';
import type { Repositories } from '../repositories.js';
import type { Store, StoredDoc } from '../store/index.js';
import { renameSeededCheck, renameSeededService } from '../store/sqlite/seeded-ids.js';
import type { StoredResult } from './results-store.js';

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

/** Validates `seed` and stores what it holds (see the module comment); returns what was added. */
export function loadSeed(repositories: Pick<Repositories, 'store' | 'readSide'>, seed: unknown, options: LoadSeedOptions = {}): SeedSummary {
  const { store } = repositories;
  const parsed = SeedFile.safeParse(seed);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new SeedError(`seed: ${issue.path.join('.') || '(root)'}: ${issue.message}`);
  }
  const now = options.now ?? new Date();
  const summary: SeedSummary = { checks: 0, checkResults: 0, heartbeatEvents: 0, statusPages: 0, subscriptions: 0 };
  const { results, pages } = repositories.readSide;
  store.transaction(() => {
    parsed.data.accounts.forEach((account, accountIndex) => {
      const at = `accounts.${accountIndex}`;
      if (options.knownAccountIds && !options.knownAccountIds.includes(account.accountId)) {
        throw new SeedError(`seed: ${at}.accountId: account "${account.accountId}" is not configured on this server`);
      }
      const accountId = account.accountId;
      if (account.profile) pages.saveProfile(accountId, account.profile);
      account.checks.forEach((check, index) => {
        if (seedCheck(store, accountId, check, `${at}.checks.${index}`)) summary.checks += 1;
      });
      account.checkResults.forEach((result, index) => {
        const path = `${at}.checkResults.${index}`;
        const check = store.checks.get(accountId, result.checkId);
        if (!check) throw new SeedError(`seed: ${path}.checkId: check "${result.checkId}" is not in the seed or the store`);
        const full = completeResult(result, { check, now, path, fallbackId: derivedId(accountId, result.checkId, 'result', index) });
        if (results.recordResult(accountId, full)) summary.checkResults += 1;
      });
      account.heartbeatEvents.forEach((event, index) => {
        const path = `${at}.heartbeatEvents.${index}`;
        if (!store.checks.get(accountId, event.checkId)) throw new SeedError(`seed: ${path}.checkId: check "${event.checkId}" is unknown`);
        const added = results.recordHeartbeatEvent(accountId, event.checkId, {
          id: event.id ?? derivedId(accountId, event.checkId, 'heartbeat', index),
          state: event.state,
          timestamp: resolveTime(event.timestamp, now, `${path}.timestamp`),
          source: event.source,
          userAgent: event.userAgent,
        });
        if (added) summary.heartbeatEvents += 1;
      });
      account.statusPages.forEach((page, pageIndex) => {
        if (!pages.statusPage(accountId, page.id)) summary.statusPages += 1;
        for (const card of page.cards) {
          for (const service of card.services) seedService(store, accountId, service.id, service.name ?? card.name);
        }
        const cards = page.cards.map((card) => ({ name: card.name, services: card.services.map((service) => ({ id: service.id })) }));
        pages.saveStatusPage(accountId, { id: page.id, name: page.name, cards });
        page.subscriptions.forEach((subscription, index) => {
          const path = `${at}.statusPages.${pageIndex}.subscriptions.${index}`;
          const created = subscription.created_at === undefined ? now.toISOString() : resolveTime(subscription.created_at, now, `${path}.created_at`);
          const added = pages.addSubscription(accountId, page.id, {
            id: subscription.id ?? derivedId(accountId, page.id, 'subscription', index),
            type: 'EMAIL',
            address: subscription.address,
            status: subscription.status,
            created_at: created,
            updated_at: subscription.updated_at ? resolveTime(subscription.updated_at, now, `${path}.updated_at`) : created,
          });
          if (added) summary.subscriptions += 1;
        });
      });
    });
  });
  return summary;
}

/**
 * Creates a seeded check through the same code as the create endpoints, then gives it the seed's
 * id. The store's collections always allocate ids; a seed must choose them, because its results
 * refer to them. Returns false when the id is already stored (a reload).
 */
function seedCheck(store: Store, accountId: string, check: { id: string; checkType: string } & Record<string, unknown>, path: string): boolean {
  if (store.checks.get(accountId, check.id)) return false;
  const { id: seedId, ...fields } = check;
  const variant = variantOfType(check.checkType);
  const schema = createSchemaOf(variant);
  const body = schema.safeParse(variant === 'generic' ? { script: null, ...fields } : fields);
  if (!body.success) {
    const issue = body.error.issues[0]!;
    throw new SeedError(`seed: ${path}.${issue.path.join('.')}: ${issue.message}`);
  }
  const created = createCheckInStore(store, accountId, { variant, body: body.data as Record<string, unknown>, autoAssignAlerts: false });
  const allocatedId = String(created.id);
  renameSeededCheck(store.db, accountId, allocatedId, seedId);
  return true;
}

/** A status-page service with the seed's id, created like `POST /v1/status-pages/services` unless stored. */
function seedService(store: Store, accountId: string, id: string, name: string): void {
  if (store.services.get(accountId, id)) return;
  const now = new Date().toISOString();
  const created = store.services.insert(accountId, (allocated) => ({ name, id: allocated, created_at: now, updated_at: null }));
  renameSeededService(store.db, accountId, String(created.id), id);
}

function completeResult(
  result: z.output<typeof SeedResult>,
  context: { check: StoredDoc; now: Date; path: string; fallbackId: string },
): StoredResult {
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
