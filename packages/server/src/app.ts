/**
 * The Hono app: cross-cutting conventions as middleware (request log, fault
 * injection, auth and account selection, rate limits, JSON errors), then the route modules.
 *
 * Why Hono: it runs on the web-standard Request/Response (so `app.request()` works in tests without a
 * socket), its router is among the fastest on Node, it is small and actively maintained, and it does
 * not impose a validation layer — ours comes from @vigil/schema so the 400 body matches
 * exactly, which framework validators (Fastify/ajv, zod-openapi hooks) would each format their way.
 */
import { Hono, type Context } from 'hono';
import { AccountRegistry, type AccountKey } from './accounts.js';
import { AgentHub } from './agents/hub.js';
import { PrivateLocationKeys } from './agents/private-keys.js';
import { isAgentKeyPath } from './agents/routes.js';
import { clientAddress, CredentialFailures, DEFAULT_AUTH_FAILURE_LIMIT, type AuthFailureLimit } from './http/auth-failures.js';
import { isDashboardPath, registerDashboard } from './dashboard/index.js';
import { DomainError } from './domain/errors.js';
import { HttpError, httpErrorOf } from './http/errors.js';
import { FaultInjector, parseFaults, type FaultDecision } from './http/faults.js';
import { requestedAccounts, selectAccount } from './http/account-header.js';
import { requestHeader } from './http/headers.js';
import { SharedRateLimiter, type RateDecision, type RateLimitOptions } from './http/rate-limit.js';
import { requestLogWriter } from './http/request-log.js';
import { ServiceMetrics } from './metrics/index.js';
import type { AppEnv } from './http/types.js';
import { isPublicPagePath } from './public-pages/routes.js';
import type { SubscriptionMailOptions } from './public-pages/subscription-store.js';
import { HEALTH_PATH } from './routes/health.js';
import { buildRouteContext, ROUTE_MODULES } from './routes/index.js';
import { isMetricsToken, METRICS_PATH, register as registerMetrics, routeTemplateOf } from './routes/metrics.js';
import { isPingPath } from './routes/pings.js';
import { loadSeed } from './readside/seed.js';
import { openRepositories, portRepositories, type Repositories, type SqliteRepositories } from './repositories.js';
import { Store } from './store/index.js';
import type { StoragePorts } from './store/ports.js';

export interface AppOptions {
  /** A directory for `vigil.db`, or `':memory:'` (the default). */
  readonly dataDir?: string;
  /** An exact database file path instead of `dataDir` (e.g. the embedded service's `.vigil/local.db`). */
  readonly databaseFile?: string;
  /** API keys and their accounts; default: key `vigil-local` for account `local`. */
  readonly accounts?: readonly AccountKey[];
  /** Off unless given. Counted in the database, so every replica on it shares the limit of a key. */
  readonly rateLimit?: RateLimitOptions;
  /**
   * Bad keys answered 401 per client address and window, and per presented key; beyond, 429. Never
   * applies to a valid key. Default 20 per 60 s, `false` for none.
   */
  readonly authFailureLimit?: AuthFailureLimit | false;
  /** `--faults` SPEC (see http/faults.ts); parse errors throw FaultSpecError. */
  readonly faults?: string;
  /** Parsed `--seed` file (readside/seed.ts), stored before the app serves a request (`ready`). */
  readonly seed?: unknown;
  /** File that receives one JSON line per request. */
  readonly requestLog?: string;
  /** Receives what the operator should fix, e.g. a data directory other users can read (default: stderr). */
  readonly onWarning?: (message: string) => void;
  /**
   * Parse every response with its endpoint's response schema and answer 500 when it does not match.
   * For tests (costs a parse per response); off by default.
   */
  readonly checkResponses?: boolean;
  /**
   * The URL the service is reached at, for URLs in responses (a heartbeat's `pingUrl`); a function
   * when it is known only once the server listens. Without it responses carry no such URLs.
   */
  readonly publicUrl?: string | (() => string | undefined);
  /**
   * Set when subscribers' e-mail is delivered (an SMTP server and the outbox running): the public
   * pages then offer e-mail subscriptions, with these limits on the form (default DEFAULT_SUBSCRIBE_LIMITS).
   */
  readonly subscriptionMail?: SubscriptionMailOptions;
  /**
   * The operator's bearer token for `GET /metrics`: with it the metrics cover every account and the
   * service itself; with an account's API key, that account's checks only (routes/metrics.ts).
   */
  readonly metricsToken?: string;
  /** The most checks one `/metrics` scrape exports (default DEFAULT_MAX_CHECKS). */
  readonly metricsMaxChecks?: number;
  /** Bounds of the per-check response-time histogram, seconds (default DEFAULT_RESPONSE_TIME_BUCKETS; `[]`: +Inf, sum and count only). */
  readonly metricsBuckets?: readonly number[];
  /** How long a job handed to a runner agent is its own without a renewal (default 30 s, at most 60 s). */
  readonly agentLeaseMs?: number;
  /**
   * Storage ports opened beforehand, PostgreSQL's (startServer opens them from its `databaseUrl`,
   * since opening them is async): the app then keeps nothing in SQLite. Not with `dataDir` or
   * `databaseFile`. The app's `close` closes them.
   */
  readonly ports?: StoragePorts;
}

export interface ServiceApp {
  readonly app: Hono<AppEnv>;
  /** What the service keeps, built once on its database: hand it to the scheduler (start.ts). */
  readonly repositories: Repositories;
  /** What `GET /metrics` serves; the scheduler feeds it (start.ts). */
  readonly metrics: ServiceMetrics;
  /**
   * Runner agents: the hub their runs wait in (started with the scheduler), private locations' keys,
   * and the count of bad credentials their routes share with API keys (start.ts registers the routes).
   */
  readonly agents: { readonly hub: AgentHub; readonly privateKeys: PrivateLocationKeys; readonly authFailures: CredentialFailures | undefined };
  /**
   * Resolves once the `--seed` (if any) is stored, in one unit of work over the ports; rejects with its
   * SeedError, having stored nothing. Requests wait for it (a request before it answers after it).
   */
  readonly ready: Promise<void>;
  /** Closes the database (on SQLite before it returns); the app must not serve requests afterwards. */
  close(): Promise<void>;
}

/** An app on SQLite (createApp without `ports`): its store, for tests and benchmarks. */
export interface SqliteServiceApp extends ServiceApp {
  readonly store: Store;
  readonly repositories: SqliteRepositories;
}

const ANALYTICS_PREFIX = '/v1/analytics/';

/** Paths served without authentication. */
const PUBLIC_PATHS = new Set(['/openapi.json', HEALTH_PATH]);

function bearerToken(header: string | undefined): string | undefined {
  const match = header === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

function errorResponse(error: Error, c: Context<AppEnv>): Response {
  if (error instanceof DomainError) error = httpErrorOf(error);
  if (error instanceof HttpError) return c.json(error.toBody(), error.status as 400, error.headers);
  process.stderr.write(`vigil server: unexpected error on ${c.req.method} ${c.req.path}: ${error.stack ?? String(error)}\n`);
  return c.json(new HttpError(500, 'An internal server error occurred').toBody(), 500);
}

/** Builds the app and opens (and migrates) its SQLite database, or serves the `ports` it is given. */
export function createApp(options?: AppOptions & { readonly ports?: undefined }): SqliteServiceApp;
export function createApp(options: AppOptions): ServiceApp;
export function createApp(options: AppOptions = {}): ServiceApp {
  const faults = new FaultInjector(parseFaults(options.faults));
  const accounts = new AccountRegistry(options.accounts ?? []);
  const authFailures = options.authFailureLimit === false ? undefined : new CredentialFailures(options.authFailureLimit ?? DEFAULT_AUTH_FAILURE_LIMIT);
  const log = options.requestLog ? requestLogWriter(options.requestLog) : undefined;
  if (options.dataDir !== undefined && options.databaseFile !== undefined) {
    throw new Error('give either dataDir or databaseFile, not both');
  }
  if (options.ports !== undefined && (options.dataDir !== undefined || options.databaseFile !== undefined)) {
    throw new Error('give either ports or dataDir/databaseFile, not both');
  }
  const store = options.ports !== undefined ? undefined : new Store(
    options.databaseFile !== undefined ? { file: options.databaseFile } : (options.dataDir ?? ':memory:'),
    options.onWarning ? { warn: options.onWarning } : {},
  );
  const repositories = store ? openRepositories(store) : portRepositories(options.ports!);
  const limiter = options.rateLimit ? new SharedRateLimiter(repositories.ports.rateLimits, options.rateLimit) : undefined;
  const metrics = new ServiceMetrics(repositories.ports, {
    ...(options.metricsMaxChecks === undefined ? {} : { maxChecks: options.metricsMaxChecks }),
    ...(options.metricsBuckets === undefined ? {} : { responseTimeBuckets: options.metricsBuckets }),
  });
  const { metricsToken } = options;
  // An agent's run counts as started when it is first handed out, as an in-process run when it starts.
  const agentHub = new AgentHub({ ports: repositories.ports, onRunStarted: (dueMs, nowMs) => metrics.runStarted(dueMs, nowMs), ...(options.agentLeaseMs === undefined ? {} : { leaseMs: options.agentLeaseMs }) });
  const agents = { hub: agentHub, privateKeys: new PrivateLocationKeys(repositories.ports.privateLocations), authFailures };
  const app = new Hono<AppEnv>();
  const ready = options.seed === undefined ? Promise.resolve() : loadSeed(repositories, options.seed, { knownAccountIds: accounts.all().map((account) => account.id) }).then(() => undefined);
  // Whoever builds the app awaits `ready` (startServer does); this keeps a refused seed from also
  // being an unhandled rejection in an app nobody serves.
  ready.catch(() => undefined);

  app.onError(errorResponse);
  if (options.seed !== undefined) {
    let seeded = false;
    app.use('*', async (_c, next) => {
      if (!seeded) {
        await ready;
        seeded = true;
      }
      return next();
    });
  }
  app.notFound((c) => c.json(new HttpError(404, `Route ${c.req.method} ${c.req.path} not found`).toBody(), 404));

  app.use('*', async (c, next) => {
    const arrived = log ? new Date().toISOString() : '';
    const started = performance.now();
    let fault: FaultDecision = 'none';
    try {
      if (faults.active) {
        if (faults.spec.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, faults.spec.latencyMs));
        fault = faults.decide();
        if (fault === 'error') throw new HttpError(503, 'Service unavailable (injected fault)');
        if (fault === 'too-many') throw new HttpError(429, 'Too many requests (injected fault)', { headers: { 'retry-after': '1' } });
      }
      await next();
    } catch (error) {
      // Turned into the response here rather than by onError, so the log line has the final status.
      c.res = errorResponse(error instanceof Error ? error : new Error(String(error)), c);
    } finally {
      const elapsedMs = performance.now() - started;
      metrics.requestEnded(c.req.method, routeTemplateOf(c), c.res.status, elapsedMs / 1000);
      log?.({
        t: arrived,
        method: c.req.method,
        path: c.req.path,
        status: c.res.status,
        account: c.get('account')?.id ?? null,
        ms: Math.round(elapsedMs * 100) / 100,
        ...(fault === 'none' ? {} : { fault }),
      });
    }
    if (fault === 'drop') {
      // The request was handled and its write committed; cut the connection before any response byte.
      c.env?.incoming?.socket?.destroy();
    }
  });

  app.use('*', async (c, next) => {
    // Agents authenticate with their location's key, checked by their routes (agents/routes.ts).
    if (PUBLIC_PATHS.has(c.req.path) || isPingPath(c.req.path) || isPublicPagePath(c.req.method, c.req.path) || isAgentKeyPath(c.req.path)) return next();
    // The dashboard's pages authenticate with their own session cookie (dashboard/web.ts).
    if (isDashboardPath(c.req.method, c.req.path)) return next();
    const header = requestHeader(c, 'authorization');
    const token = bearerToken(header);
    if (token !== undefined && c.req.path === METRICS_PATH && isMetricsToken(token, metricsToken)) {
      c.set('operator', true);
      return next();
    }
    const own = token === undefined ? undefined : accounts.accountsOf(token);
    const now = Date.now();
    // The key is looked up before any failure count is read: a count is charged to bad keys and their
    // senders, and must not refuse a good key sent from the same address (auth-failures.ts).
    if (token === undefined || !own) {
      const address = clientAddress(c);
      const refusal = authFailures?.refusal(address, token, now);
      if (refusal) {
        const from = refusal.by === 'address' ? 'from this address' : 'with this key';
        throw new HttpError(429, `Too many failed authentication attempts ${from}; retry in ${refusal.seconds} s`, { headers: { 'retry-after': String(refusal.seconds) } });
      }
      authFailures?.fail(address, token, now);
      throw new HttpError(401, token === undefined ? 'Missing authentication' : 'Bad Token');
    }
    const requested = requestedAccounts(c);
    // Charged before the account check, so probing account ids with a valid key is rate limited too.
    const decision = await limiter?.take(token, c.req.path.startsWith(ANALYTICS_PREFIX) ? 'analytics' : 'default', now);
    if (decision && !decision.allowed) {
      throw new HttpError(429, `Rate limit exceeded: ${decision.limit} requests per window; retry in ${decision.resetSeconds} s`, {
        headers: { ...rateHeaders(decision), 'retry-after': String(decision.resetSeconds) },
      });
    }
    const account = selectAccount(requested, own);
    c.set('account', account);
    c.set('apiKey', token);
    if (decision) {
      await next();
      for (const [name, value] of Object.entries(rateHeaders(decision))) c.res.headers.set(name, value);
      return;
    }
    await next();
  });

  const { publicUrl } = options;
  const context = buildRouteContext({
    app,
    repositories,
    store,
    accounts,
    checkResponses: options.checkResponses ?? false,
    publicUrl: typeof publicUrl === 'function' ? publicUrl : () => publicUrl,
    subscriptionMail: options.subscriptionMail,
    agents,
  });
  // Before the public pages: `/` is the dashboard except on a status page's custom domain, where it falls through to that page.
  registerDashboard(app, { repositories, accounts, publicUrl: context.publicUrl });
  for (const module of ROUTE_MODULES) module.register(app, context);
  registerMetrics(app, metrics, accounts, { writeToSocket: !faults.active });

  const close = store
    ? async () => store.close()
    : () => repositories.ports.close();
  return { app, ...(store ? { store } : {}), repositories, metrics, agents, ready, close };
}

function rateHeaders(decision: RateDecision): Record<string, string> {
  return {
    'x-ratelimit-limit': String(decision.limit),
    'x-ratelimit-remaining': String(decision.remaining),
    'x-ratelimit-reset': String(decision.resetSeconds),
  };
}
