/**
 * `vigil server`: runs the reference monitoring service in the foreground until SIGINT/SIGTERM.
 */
import { readFileSync, statSync } from 'node:fs';
import { Option, type Command } from 'commander';
import { CliError, usageError } from '../errors.js';
import { loadServer } from '../server-module.js';
import { LOG_FORMATS, serverLog, type LogFormat } from '../server-log.js';
import { registerMigrateData } from './server-migrate-data.js';

/**
 * A fixed port and a data directory on disk by default: clients and state find the same service
 * after a restart. `--port 0` and `--data :memory:` are for tests and throwaway runs.
 */
export const DEFAULT_SERVER_PORT = '4010';
export const DEFAULT_SERVER_DATA = '.vigil/server';

interface ServerFlags {
  port: string;
  data: string;
  database?: string;
  databasePreparedStatements?: string;
  apiKey?: string[];
  accountId?: string[];
  accounts?: string;
  rateLimit?: string;
  faults?: string;
  seed?: string;
  requestLog?: string;
  scheduler: boolean;
  retention: string;
  rollupRetention: string;
  denyNetwork?: string[];
  smtp?: string;
  providerUrl?: string[];
  publicUrl?: string;
  metricsToken?: string;
  metricsBuckets?: string;
  logFormat: LogFormat;
  agentKey?: string[];
  agentKeysFile?: string;
  localLocations?: string;
  agentLease?: string;
  maxRunsInFlight?: string;
}

const FAULTS_HELP = `
Fault injection (--faults SPEC, comma-separated name=value, for testing clients):
  latency=50ms   delay every request by that long before handling it (ms or s)
  error=0.1      answer that fraction of requests 503 before handling them (nothing is written)
  429=0.2        answer that fraction 429 with Retry-After: 1 before handling them (nothing is written)
  drop=0.05      handle that fraction (writes are committed), then cut the connection before
                 the response is sent: the client sees a network error for a request that succeeded
  seed=42        seed of the random draws; the same requests in the same order get the same faults

Accounts: --api-key K --account-id ID pairs (repeat both flags, paired in order; one key may be
paired with several accounts and pick one with the x-service-account header), or --accounts FILE
holding a JSON array of {"apiKey", "accountId", "name"?, "slackAppToken"?}; slackAppToken is the bot
token of the Slack App the account installed, which its Slack App channels post with.
Default: key "vigil-local", account "local".

Runner agents (vigil agent): --agent-key LOCATION=KEY (repeatable) or --agent-keys-file FILE (one
LOCATION=KEY a line, # comments; read again when it changes, so removing a line revokes that key)
let agents run the checks of those locations; keys are at least 16 characters. By default this
process still runs every location that has no agent key; --local-locations LIST (comma-separated)
or none says exactly which locations it runs itself. A run of any other location waits for an
agent of its location; with none connected it is recorded as not executed (see docs/agents.md).

Example:
  vigil server --port 8080 --data ./.vigil/server --api-key secret --account-id acme --rate-limit 600/60
`;

/** `--retention` and `--rollup-retention`: whole days, at most ten years. */
function parseRetention(flag: string, text: string): number {
  const days = Number(text);
  if (!Number.isInteger(days) || days < 1 || days > 3650) throw usageError(`${flag} must be a whole number of days from 1 to 3650, got "${text}"`);
  return days;
}

/**
 * The runner's deny list: the service defaults (link-local, cloud metadata) plus every
 * --deny-network; `none` drops the defaults (only the CIDRs given with it stay).
 */
export function serviceDenyNetworks(flags: readonly string[], defaults: readonly string[]): string[] {
  const cidrs = flags.filter((flag) => flag.trim() !== 'none');
  return flags.length === cidrs.length ? [...defaults, ...cidrs] : cidrs;
}

/** `--provider-url NAME=URL` flags → { name: url }; a later flag for the same name wins. */
function parseProviderUrls(flags: readonly string[], names: readonly string[]): Record<string, string> {
  const urls: Record<string, string> = {};
  for (const flag of flags) {
    const match = /^([a-z-]+)=(https?:\/\/\S+)$/.exec(flag.trim());
    if (!match || !names.includes(match[1]!)) {
      throw usageError(`--provider-url must be NAME=URL with NAME one of ${names.join(', ')} and an http(s) URL, got "${flag}"`);
    }
    urls[match[1]!] = match[2]!;
  }
  return urls;
}

/**
 * `--database` (or VIGIL_DATABASE_URL): a postgres:// URL, never echoed (it holds the password).
 * `--data` names the SQLite directory, so both at once is a mistake; the default --data is not.
 */
function parseDatabaseUrl(url: string | undefined, dataGiven: boolean): string | undefined {
  if (url === undefined) return undefined;
  if (dataGiven) throw usageError('use either --database (or VIGIL_DATABASE_URL) or --data, not both: --data is where SQLite keeps its file');
  if (!/^postgres(ql)?:\/\/[^/\s]+\/[^\s]+$/.test(url.trim())) throw usageError('--database must be a PostgreSQL URL, postgres://user:password@host:port/database');
  return url.trim();
}

const PREPARED_STATEMENTS_FLAG = '--database-prepared-statements (or VIGIL_DATABASE_PREPARED_STATEMENTS)';

/**
 * `--database-prepared-statements on|off`: off for a pooler in front of PostgreSQL that hands each
 * transaction another server connection (PgBouncer in transaction mode), where a statement prepared
 * on one connection is missing on the next. Only PostgreSQL has it: SQLite prepares in process.
 */
function parsePreparedStatements(value: string | undefined, databaseUrl: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  const setting = value.trim().toLowerCase();
  if (setting !== 'on' && setting !== 'off') throw usageError(`${PREPARED_STATEMENTS_FLAG} must be on or off, got "${value}"`);
  if (databaseUrl === undefined) throw usageError(`${PREPARED_STATEMENTS_FLAG} needs --database (or VIGIL_DATABASE_URL): it is a setting of PostgreSQL connections`);
  return setting === 'on';
}

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535) throw usageError(`--port must be an integer from 0 to 65535, got "${value}"`);
  return port;
}

function readJson(file: string, flag: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw usageError(`${flag} ${file}: ${(error as Error).message}`);
  }
}

type ServerModule = Awaited<ReturnType<typeof loadServer>>;

/** The most a service can hold in flight is bounded by its sockets long before this; a larger value is a typo. */
const MAX_RUNS_IN_FLIGHT_CEILING = 100_000;

/** `--max-runs-in-flight`: a whole number, at most MAX_RUNS_IN_FLIGHT_CEILING. */
export function parseMaxRunsInFlight(text: string): number {
  const runs = Number(text);
  if (!/^\d+$/.test(text.trim()) || runs < 1 || runs > MAX_RUNS_IN_FLIGHT_CEILING) {
    throw usageError(`--max-runs-in-flight must be a whole number from 1 to ${MAX_RUNS_IN_FLIGHT_CEILING.toLocaleString('en-US')}, got "${text}"`);
  }
  return runs;
}

/** The agent flags as the service's `agents` option; undefined when none is given. */
function agentOptions(flags: ServerFlags, server: ServerModule): NonNullable<Parameters<ServerModule['startServer']>[0]>['agents'] {
  const given = flags.agentKey !== undefined || flags.agentKeysFile !== undefined || flags.localLocations !== undefined || flags.agentLease !== undefined;
  if (!given) return undefined;
  if (!flags.scheduler) throw usageError('--agent-key, --agent-keys-file, --local-locations and --agent-lease need the scheduler: drop --no-scheduler');
  let keys;
  try {
    const flagged = (flags.agentKey ?? []).map((spec) => server.parseAgentKey(spec, '--agent-key'));
    keys = server.agentKeySource({
      keys: flagged,
      ...(flags.agentKeysFile === undefined ? {} : { file: flags.agentKeysFile }),
      warn: (message) => process.stderr.write(`${message}\n`),
      readFile: (file) => {
        const text = readFileSync(file, 'utf8');
        const stats = statSync(file);
        return { text, stamp: `${stats.mtimeMs}:${stats.size}` };
      },
    });
    keys();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw usageError(code === 'ENOENT' ? `--agent-keys-file ${flags.agentKeysFile}: no such file` : (error as Error).message);
  }
  let localLocations: { only: Set<string> } | undefined;
  if (flags.localLocations !== undefined) {
    const listed = flags.localLocations.split(',').map((location) => location.trim()).filter((location) => location !== '');
    if (listed.length === 0) throw usageError('--local-locations must list locations, or be none');
    localLocations = { only: new Set(listed.length === 1 && listed[0] === 'none' ? [] : listed) };
  }
  let leaseMs: number | undefined;
  if (flags.agentLease !== undefined) {
    const match = /^(\d+)(ms|s)$/.exec(flags.agentLease.trim());
    leaseMs = match ? Number(match[1]) * (match[2] === 's' ? 1000 : 1) : Number.NaN;
    if (!(leaseMs >= server.MIN_AGENT_LEASE_MS && leaseMs <= 60_000)) throw usageError(`--agent-lease must be a duration from 1s to 60s (e.g. 30s or 1500ms), got "${flags.agentLease}"`);
  }
  return { keys, ...(localLocations ? { localLocations } : {}), ...(leaseMs === undefined ? {} : { leaseMs }) };
}

export function registerServer(program: Command): void {
  const serverCommand = program
    .command('server')
    .description('Run the local monitoring service (the reference implementation of the API) until interrupted.')
    .option('--port <n>', 'port to listen on, on 127.0.0.1 (0 picks a free port)', DEFAULT_SERVER_PORT)
    .option('--data <dir>', 'directory for the database (vigil.db), relative to the current directory; :memory: keeps nothing', DEFAULT_SERVER_DATA)
    .addOption(
      new Option('--database <url>', 'keep everything in PostgreSQL instead of SQLite, postgres://user:password@host:port/database; servers started on one database share it (not with --data)')
        .env('VIGIL_DATABASE_URL'),
    )
    .addOption(
      new Option(
        '--database-prepared-statements <on|off>',
        'with --database: off sends every statement unnamed, for a pooler that hands each transaction another server connection (PgBouncer in transaction mode); on (the default) prepares statements sent often on each connection',
      ).env('VIGIL_DATABASE_PREPARED_STATEMENTS'),
    )
    .option('--api-key <key>', 'API key accepted by the service (repeatable; pairs with --account-id)', collect)
    .option('--account-id <id>', 'account of the preceding --api-key (repeatable)', collect)
    .option('--accounts <file>', 'JSON file with [{apiKey, accountId, name?, slackAppToken?}] instead of --api-key/--account-id')
    .option('--rate-limit <n/s>', 'per API key: at most N requests per S seconds (analytics: 30 per window); off unless given')
    .option('--faults <spec>', 'inject faults, e.g. latency=50ms,error=0.1,429=0.2,drop=0.05,seed=42 (see below)')
    .option('--seed <file>', 'JSON file with status pages, subscriptions and check results to load')
    .option('--request-log <file>', 'append one JSON line per request: {t, method, path, status, account, ms}')
    .option('--retention <days>', 'delete check results older than this many days (1 to 3650)', '30')
    .option('--rollup-retention <days>', 'keep daily rollups of check results this many days (1 to 3650; hourly ones --retention + 30 days, at most this); analytics past --retention are answered from them', '400')
    .option('--deny-network <cidr>', 'never connect checks to this IPv4/IPv6 CIDR (repeatable; adds to the default link-local and cloud metadata denials; "none" drops the defaults)', collect)
    .option('--smtp <url>', 'SMTP server for e-mail alert channels, smtp://[user:pass@]host:port or smtps://… (without it e-mail alerts are recorded UNDELIVERABLE)')
    .option('--provider-url <name=url>', 'base URL of an alert provider instead of its public one: pagerduty, opsgenie, opsgenie-eu or slack (repeatable)', collect)
    .option('--public-url <url>', "URL clients reach this service at, when not http://127.0.0.1:PORT (e.g. behind a reverse proxy): the base of heartbeat monitors' pingUrl")
    .addOption(
      new Option('--metrics-token <token>', "bearer token of the operator's GET /metrics: every account's checks plus the scheduler, notification, HTTP and process metrics (an account's API key sees its own checks only)")
        .env('VIGIL_METRICS_TOKEN'),
    )
    .option('--metrics-buckets <list>', 'bounds of the per-check response-time histogram in GET /metrics, comma-separated seconds (default 0.1,0.25,0.5,1,2.5,10), or none for its +Inf bucket, sum and count only')
    .addOption(
      new Option('--log-format <format>', 'stderr lines (failed checks, alerts sent, failed deliveries): text, or json (one JSON object per line)')
        .choices([...LOG_FORMATS])
        .default('text'),
    )
    .option('--agent-key <location=key>', 'accept runner agents (vigil agent) of LOCATION presenting KEY (repeatable; prefer --agent-keys-file: flags show in ps)', collect)
    .option('--agent-keys-file <file>', 'file of LOCATION=KEY lines for runner agents, read again when it changes')
    .option('--local-locations <list>', 'comma-separated locations this process runs itself, or none (default: every location without an agent key)')
    .option('--agent-lease <duration>', 'how long a job handed to an agent stays its own without a renewal, 1s to 60s (default 30s)')
    .option(
      '--max-runs-in-flight <n>',
      'network checks (API, TCP, DNS, SSL, URL, gRPC) running at once at most; the limit follows the due rate and run durations between 50 and this (default: half the open-file limit, or 1 MiB per run of a quarter of memory and half the heap, whichever is lower; at least 50). Browser/multi-step and ICMP/traceroute runs have caps of their own per core',
    )
    .option('--no-scheduler', 'serve the API only and run no checks (by default every activated check runs on its schedule)')
    .addHelpText('after', FAULTS_HELP)
    .action(async (flags: ServerFlags, command: Command) => {
      const port = parsePort(flags.port);
      const databaseUrl = parseDatabaseUrl(flags.database, command.getOptionValueSource('data') === 'cli');
      const prepareStatements = parsePreparedStatements(flags.databasePreparedStatements, databaseUrl);
      const server = await loadServer({ sqlite: databaseUrl === undefined });
      const apiKeys = flags.apiKey ?? [];
      const accountIds = flags.accountId ?? [];

      if (apiKeys.length !== accountIds.length) {
        throw usageError(`--api-key and --account-id come in pairs: got ${apiKeys.length} key(s) and ${accountIds.length} account id(s)`);
      }
      if (flags.accounts !== undefined && apiKeys.length > 0) throw usageError('use either --accounts or --api-key/--account-id, not both');
      let accounts: Array<{ apiKey: string; accountId: string; name?: string }> = apiKeys.map((apiKey, index) => ({
        apiKey,
        accountId: accountIds[index]!,
      }));
      if (accounts.some((entry) => entry.apiKey === '' || entry.accountId === '')) throw usageError('--api-key and --account-id must not be empty');
      if (flags.accounts !== undefined) {
        try {
          accounts = server.readAccountsFile(flags.accounts);
        } catch (error) {
          throw usageError((error as Error).message);
        }
      }

      let rateLimit: { requests: number; windowSeconds: number } | undefined;
      if (flags.rateLimit !== undefined) {
        try {
          rateLimit = server.parseRateLimit(flags.rateLimit);
        } catch (error) {
          throw usageError(`--rate-limit: ${(error as Error).message}`);
        }
      }
      try {
        server.parseFaults(flags.faults);
      } catch (error) {
        throw usageError(`--faults: ${(error as Error).message}`);
      }
      const seed = flags.seed === undefined ? undefined : readJson(flags.seed, '--seed');
      // Parsed before the service starts: a bad value is a usage error (exit 2), not a failed start.
      const retentionDays = parseRetention('--retention', flags.retention);
      const rollupRetentionDays = parseRetention('--rollup-retention', flags.rollupRetention);
      const runner = await import('@vigil/runner');
      const denyNetworks = serviceDenyNetworks(flags.denyNetwork ?? [], runner.DEFAULT_SERVICE_DENY_NETWORKS);
      try {
        runner.parseNetworkPolicy(denyNetworks);
      } catch (error) {
        throw usageError(`--deny-network: ${(error as Error).message}`);
      }

      if (flags.smtp !== undefined && !/^smtps?:\/\/[^/\s]+/.test(flags.smtp)) {
        throw usageError(`--smtp must be an smtp:// or smtps:// URL, got "${flags.smtp}"`);
      }

      const providerUrls = parseProviderUrls(flags.providerUrl ?? [], Object.keys(server.PROVIDER_BASE_URLS));
      let publicUrl: string | undefined;
      if (flags.publicUrl !== undefined) {
        try {
          publicUrl = server.parsePublicUrl(flags.publicUrl);
        } catch (error) {
          throw usageError(`--public-url: ${(error as Error).message}`);
        }
      }

      if (flags.metricsToken !== undefined && flags.metricsToken.trim() === '') throw usageError('--metrics-token must not be empty');
      let metricsBuckets: number[] | undefined;
      if (flags.metricsBuckets !== undefined) {
        try {
          metricsBuckets = server.parseResponseTimeBuckets(flags.metricsBuckets);
        } catch (error) {
          throw usageError(`--metrics-buckets: ${(error as Error).message}`);
        }
      }

      const agents = agentOptions(flags, server);
      let maxRunsInFlight: number | undefined;
      if (flags.maxRunsInFlight !== undefined) {
        if (!flags.scheduler) throw usageError('--max-runs-in-flight needs the scheduler: drop --no-scheduler');
        maxRunsInFlight = parseMaxRunsInFlight(flags.maxRunsInFlight);
      }

      const log = serverLog(flags.logFormat);
      // The scheduler's own failures, already worded `vigil server: …` for the text log.
      const serviceLine = (line: string) => (flags.logFormat === 'json' ? log.notice('service-error', 'error', line.replace(/^vigil server: /, '')) : process.stderr.write(`${line}\n`));
      // Listen for signals before announcing the port: a supervisor may signal as soon as it reads it.
      // A signal while the server still waits for its PostgreSQL database ends the wait (and the start).
      const stopWaiting = new AbortController();
      const signalled = new Promise<NodeJS.Signals>((resolve) => {
        const stop = (signal: NodeJS.Signals) => {
          stopWaiting.abort();
          resolve(signal);
        };
        process.once('SIGINT', () => stop('SIGINT'));
        process.once('SIGTERM', () => stop('SIGTERM'));
      });
      let running: Awaited<ReturnType<typeof server.startServer>>;
      try {
        running = await server.startServer({
          port,
          ...(databaseUrl === undefined ? { dataDir: flags.data } : { databaseUrl, connectRetry: { signal: stopWaiting.signal }, ...(prepareStatements === undefined ? {} : { prepareStatements }) }),
          accounts,
          ...(rateLimit ? { rateLimit } : {}),
          ...(flags.faults !== undefined ? { faults: flags.faults } : {}),
          ...(seed !== undefined ? { seed } : {}),
          ...(flags.requestLog !== undefined ? { requestLog: flags.requestLog } : {}),
          ...(publicUrl !== undefined ? { publicUrl } : {}),
          ...(flags.metricsToken !== undefined ? { metricsToken: flags.metricsToken } : {}),
          ...(metricsBuckets !== undefined ? { metricsBuckets } : {}),
          ...(agents ? { agents } : {}),
          scheduler: flags.scheduler
            ? {
                retentionDays,
                rollupRetentionDays,
                denyNetworks,
                ...(maxRunsInFlight !== undefined ? { maxRunsInFlight } : {}),
                alerting: { ...(flags.smtp !== undefined ? { smtpUrl: flags.smtp } : {}), providerUrls, onDelivery: (event) => log.delivery(event) },
                onCheckFailed: (event) => log.checkFailed(event),
                log: serviceLine,
              }
            : false,
        });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
          throw new CliError(`cannot start the server: port ${port} on 127.0.0.1 is in use (another vigil server?); stop it, or pass --port N (--port 0 picks a free port)`, { cause: error });
        }
        throw new CliError(`cannot start the server: ${(error as Error).message}`, { cause: error });
      }
      // Once, in plain words, before the service announces itself: an operator must know how far
      // user code is contained on this machine.
      if (flags.scheduler) log.notice('sandbox', 'info', `sandbox: ${runner.describeSandbox()}`);
      if (flags.scheduler) {
        const network = maxRunsInFlight ?? server.defaultMaxRunsInFlight();
        const floor = Math.min(network, server.MIN_RUNS_IN_FLIGHT);
        log.notice('runs-in-flight', 'info', `runs in flight: ${floor === network ? network : `${floor} to ${network}`} network, ${server.defaultSandboxedRuns()} browser/multi-step, ${server.defaultProcessRuns()} ICMP/traceroute`);
      }
      process.stdout.write(`listening on ${running.url}\n`);

      const signal = await signalled;
      const stopping = `${signal}: finishing in-flight requests and closing the database`;
      if (flags.logFormat === 'json') log.notice('stopping', 'info', stopping);
      else process.stderr.write(`${stopping}\n`);
      await running.close();
    });
  registerMigrateData(serverCommand);
}
