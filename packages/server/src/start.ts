import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { HTTP_ERROR_NAMES } from '@vigil/schema';
import { serve } from '@hono/node-server';
import { slackAppTokensOf, type AccountKey } from './accounts.js';
import type { AgentHub } from './agents/hub.js';
import { AgentKeyRing } from './agents/keys.js';
import { registerAgentRoutes } from './agents/routes.js';
import type { LocalLocations } from './agents/routing.js';
import { createApp, type ServiceApp } from './app.js';
import { parsePublicUrl } from './heartbeats/ping-urls.js';
import { subscriberLinks } from './public-pages/subscriber-links.js';
import type { SubscribeLimits } from './public-pages/subscription-store.js';
import { startScheduling, type SchedulingOptions } from './scheduler/index.js';
import type { RateLimitOptions } from './http/rate-limit.js';
import type { AuthFailureLimit } from './http/auth-failures.js';
import type { StoragePorts } from './store/ports.js';
import type { ConnectRetryOptions } from './store/postgres/connect-retry.js';

export interface ServerOptions {
  /** 0 (the default) picks a free port. */
  readonly port?: number;
  /** Loopback by default; the service has no TLS and is not meant to face a network. */
  readonly host?: string;
  /** A directory for `vigil.db`, or `':memory:'` (the default). */
  readonly dataDir?: string;
  /**
   * A PostgreSQL database instead of SQLite, `postgres://user:password@host:port/database`: everything
   * the service keeps is kept there, shared by every replica started on it (docs/postgres.md). Not
   * with `dataDir` or `databaseFile`. A database that is down at start is waited for (`connectRetry`);
   * errors name `host:port/database`, never the password.
   */
  readonly databaseUrl?: string;
  /** How starting on `databaseUrl` waits for a database that is not up yet (default: 10 tries, backing off to 30 s). */
  readonly connectRetry?: ConnectRetryOptions;
  /**
   * With `databaseUrl`: false sends every statement unnamed, for a pooler that hands each transaction
   * another server connection (PgBouncer in transaction mode); default true, statements sent often
   * are prepared on each connection (store/postgres/guarded-pool.ts).
   */
  readonly prepareStatements?: boolean;
  /** An exact database file path instead of `dataDir` (e.g. the embedded service's `.vigil/local.db`). */
  readonly databaseFile?: string;
  /** API keys and their accounts; default: key `vigil-local` for account `local`. */
  readonly accounts?: readonly AccountKey[];
  /** Per-API-key limit; off unless given. */
  readonly rateLimit?: RateLimitOptions;
  /** Bad keys answered 401 per client address and per key in a window (never limits a valid key); default 20 per 60 s, `false` for none. */
  readonly authFailureLimit?: AuthFailureLimit | false;
  /** Fault injection SPEC, e.g. `latency=50ms,error=0.1,429=0.2,drop=0.05,seed=42`. */
  readonly faults?: string;
  /** Seed data (the parsed `--seed` JSON file). */
  readonly seed?: unknown;
  /** Append one JSON line per request to this file. */
  readonly requestLog?: string;
  /** Receives what the operator should fix, e.g. a data directory other users can read (default: stderr). */
  readonly onWarning?: (message: string) => void;
  /** Check every response against the contract (500 on a mismatch); for tests. */
  readonly checkResponses?: boolean;
  /** Run activated checks on their schedule (`vigil server`'s default); off unless given. */
  readonly scheduler?: boolean | SchedulingOptions;
  /**
   * The URL clients reach the service at, when not the one it listens on (a reverse proxy, a DNS
   * name): heartbeat monitors' `pingUrl` is built on it (heartbeats/ping-urls.ts says why never
   * on a request's Host header).
   */
  readonly publicUrl?: string;
  /** Limits of the public pages' subscription form (default DEFAULT_SUBSCRIBE_LIMITS); the form is offered only with the scheduler and an `smtpUrl`. */
  readonly subscribeLimits?: Partial<SubscribeLimits>;
  /** The operator's bearer token for `GET /metrics` (every account and the service); without it, account keys see their own checks. */
  readonly metricsToken?: string;
  /** Bounds of the per-check response-time histogram, seconds (default DEFAULT_RESPONSE_TIME_BUCKETS; `[]`: +Inf, sum and count only). */
  readonly metricsBuckets?: readonly number[];
  /**
   * Runner agents (`vigil agent`): the keys in force (one location each) and which locations this
   * process still runs itself (default: every location that has no agent key). Needs `scheduler`.
   */
  readonly agents?: AgentOptions;
}

export interface AgentOptions {
  readonly keys: () => AgentKeyRing;
  readonly localLocations?: LocalLocations;
  /** How long a job handed to an agent is its own without a renewal (default 30 s, at most 60 s). */
  readonly leaseMs?: number;
}

export interface RunningServer {
  /** `http://127.0.0.1:PORT`, no trailing slash. */
  readonly url: string;
  readonly port: number;
  /**
   * Stops accepting connections and claiming slots, lets in-flight requests, runs and deliveries
   * finish (up to 5 s; runs and deliveries still going then are aborted and dropped), then closes
   * the database.
   */
  close(): Promise<void>;
}

const NO_OPERATOR_AGENT_KEYS = new AgentKeyRing([]);

/** How long `close()` waits for in-flight requests, runs and deliveries before cutting them off. */
const DRAIN_TIMEOUT_MS = 5000;

/**
 * Requests Node refuses before the app sees them (a request line or headers past 16 KiB, malformed
 * HTTP) get the documented error body instead of Node's bare status line, so every 4xx a client
 * meets has the same shape (found by test/hardening/fuzz).
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  const [status, message] =
    error.code === 'HPE_HEADER_OVERFLOW' ? [431, 'Request line and headers exceed 16 KiB']
    : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? [408, 'Request not received in time']
    : [400, 'Malformed HTTP request'];
  const phrase = HTTP_ERROR_NAMES[status]!;
  const body = JSON.stringify({ statusCode: status, error: phrase, message });
  socket.end(`HTTP/1.1 ${status} ${phrase}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
}

/**
 * The PostgreSQL engine's ports, imported only when asked for: a service on SQLite never loads the
 * PostgreSQL driver.
 */
async function openPostgres(connectionString: string, options: ServerOptions): Promise<StoragePorts> {
  const { openPostgresPorts } = await import('./store/postgres/index.js');
  return openPostgresPorts({
    connectionString,
    ...(options.connectRetry ? { connectRetry: options.connectRetry } : {}),
    ...(options.onWarning ? { warn: options.onWarning } : {}),
    ...(options.prepareStatements === undefined ? {} : { prepareStatements: options.prepareStatements }),
  });
}

/** Starts the monitoring service on a loopback port (see ServerOptions). */
export async function startServer(options: ServerOptions = {}): Promise<RunningServer> {
  const host = options.host ?? '127.0.0.1';
  const publicUrl = options.publicUrl === undefined ? undefined : parsePublicUrl(options.publicUrl);
  const slackAppTokens = slackAppTokensOf(options.accounts ?? []);
  // Known once listening; no request is served before.
  let listeningUrl: string | undefined;
  // Subscribers' e-mail goes out through the scheduler's outbox, so the form is offered only when that runs with an SMTP server.
  const mailing = typeof options.scheduler === 'object' && options.scheduler.alerting?.smtpUrl;
  const schedulingOptions = options.scheduler === true ? {} : options.scheduler;
  if (options.agents && !schedulingOptions) throw new Error('runner agents need the scheduler: they execute its runs');
  if (options.databaseUrl !== undefined && (options.dataDir !== undefined || options.databaseFile !== undefined)) {
    throw new Error('give either databaseUrl or dataDir/databaseFile, not both');
  }
  if (options.prepareStatements !== undefined && options.databaseUrl === undefined) {
    throw new Error('prepareStatements is an option of databaseUrl (PostgreSQL); SQLite prepares its statements in process');
  }
  // Opened before the app, which is built synchronously on whatever ports it is handed.
  const ports = options.databaseUrl === undefined ? undefined : await openPostgres(options.databaseUrl, options);
  let service: ServiceApp;
  try {
    service = createApp({
      ...options,
      ...(ports ? { ports } : {}),
      ...(options.agents?.leaseMs === undefined ? {} : { agentLeaseMs: options.agents.leaseMs }),
      publicUrl: () => publicUrl ?? listeningUrl,
      ...(mailing ? { subscriptionMail: { limits: options.subscribeLimits } } : {}),
    });
  } catch (error) {
    await ports?.close();
    throw error;
  }
  try {
    await service.ready;
  } catch (error) {
    await service.close();
    throw error;
  }
  // With the scheduler, agents are always served: private locations' keys are made through the API, no flag needed.
  let agents: { hub: AgentHub; localLocations: LocalLocations } | undefined;
  if (schedulingOptions) {
    const { hub, privateKeys, authFailures } = service.agents;
    const keys = options.agents?.keys ?? (() => NO_OPERATOR_AGENT_KEYS);
    registerAgentRoutes(service.app, { hub, keys, privateKeys, ...(authFailures ? { authFailures } : {}) });
    agents = { hub, localLocations: options.agents?.localLocations ?? { except: new Set(keys().locations()) } };
  }
  let server: Server;
  try {
    server = await new Promise<Server>((resolve, reject) => {
      const created = serve({ fetch: service.app.fetch, port: options.port ?? 0, hostname: host }, () => resolve(created as Server)) as Server;
      created.once('error', reject);
    });
  } catch (error) {
    await service.close();
    throw error;
  }
  server.on('clientError', answerClientError);
  const { port } = server.address() as AddressInfo;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  listeningUrl = url;
  // The accounts' Slack App tokens reach only the outbox, which looks one up per notification.
  // Subscribers' e-mails get their signed links when the outbox sends them (public-pages/subscriber-links.ts).
  const alerting = { slackAppTokens, subscriberLinks: subscriberLinks(service.repositories.ports, () => publicUrl ?? listeningUrl), ...(schedulingOptions ? schedulingOptions.alerting : {}) };
  const scheduling = schedulingOptions ? startScheduling(service.repositories, { ...schedulingOptions, metrics: service.metrics, alerting, ...(agents ? { agents } : {}) }) : undefined;
  let closing: Promise<void> | undefined;
  return {
    url,
    port,
    close() {
      closing ??= new Promise<void>((resolve) => {
        // Runs and deliveries get the same drain time; the database closes only after the scheduling
        // stopped touching it (it aborts and drops what is still going at the deadline).
        const stopped = scheduling ? scheduling.stop(DRAIN_TIMEOUT_MS) : Promise.resolve();
        const force = setTimeout(() => server.closeAllConnections(), DRAIN_TIMEOUT_MS);
        force.unref();
        server.close(() => {
          clearTimeout(force);
          void stopped.then(() => service.close()).then(resolve);
        });
        // Keep-alive connections with no request in flight would otherwise hold close() open.
        server.closeIdleConnections();
      });
      return closing;
    },
  };
}
