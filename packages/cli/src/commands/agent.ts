/**
 * `vigil agent`: a runner agent for one location. It connects out to a `vigil server` (never the
 * other way round), long-polls for that location's jobs, executes each with @vigil/runner exactly
 * as the server runs its own (same network policy, user scripts in sandboxed processes), and reports
 * the results. The server leases each job to it; the agent renews the leases of its runs on every
 * poll, so a run it can no longer finish (killed, cut off) goes to a peer once its lease expires.
 */
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { Option, type Command } from 'commander';
import { usageError } from '../errors.js';
import { VERSION } from '../version.js';
import { serviceDenyNetworks } from './server.js';

interface AgentFlags {
  server: string;
  key?: string;
  location?: string;
  privateLocation?: string;
  concurrency: string;
  id?: string;
  denyNetwork?: string[];
  drain: string;
}

const AGENT_HELP = `
A public location's key is the operator's: vigil server --agent-key LOCATION=KEY (or
--agent-keys-file). A private location's key is made by its account:
POST /v1/private-locations/{id}/keys (the key is shown once). Give the key with --key or
VIGIL_AGENT_KEY (the environment keeps it out of ps).

The agent polls POST /v1/agent/jobs and posts results to POST /v1/agent/results. When the server
cannot be reached it retries with a growing wait (up to 30 s), keeping its runs going. A refused
key (401), another location's key (403) or another run wire version (400) stops it with exit 1.
SIGTERM or SIGINT: it takes no new jobs, gives runs in flight --drain to finish and report, then
abandons the rest (their leases expire and another agent of the location runs them).

Examples:
  VIGIL_AGENT_KEY=... vigil agent --server http://127.0.0.1:4010 --location eu-west-1 --concurrency 4
  VIGIL_AGENT_KEY=pl_... vigil agent --server http://127.0.0.1:4010 --private-location office-dc
`;

const MAX_BACKOFF_MS = 30_000;

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

export function registerAgent(program: Command): void {
  program
    .command('agent')
    .description("Run a location's checks for a vigil server: pull its jobs, run them here, report the results.")
    .requiredOption('--server <url>', 'the vigil server to pull jobs from, e.g. http://127.0.0.1:4010')
    .addOption(new Option('--key <key>', "this location's agent key: given to vigil server --agent-key, or a private location's key").env('VIGIL_AGENT_KEY'))
    .option('--location <location>', 'the public location whose jobs this agent runs')
    .option('--private-location <slug>', "the private location (its slugName) whose checks' runs this agent runs")
    .option('--concurrency <n>', 'runs executed at once (1 to 1000)', '4')
    .option('--id <id>', 'how the server names this agent (default: host name, process id and a random suffix)')
    .option('--deny-network <cidr>', 'never connect checks to this IPv4/IPv6 CIDR (repeatable; adds to the default link-local and cloud metadata denials; "none" drops the defaults)', collect)
    .option('--drain <seconds>', 'on SIGTERM, how long runs in flight get to finish before they are abandoned', '10')
    .addHelpText('after', AGENT_HELP)
    .action(async (flags: AgentFlags) => {
      // Loaded here, not with the command list: every vigil command would pay for it at start.
      const { PRIVATE_LOCATION_SLUG } = await import('@vigil/schema');
      const options = parseFlags(flags, PRIVATE_LOCATION_SLUG);
      const runner = await import('@vigil/runner');
      const denyNetworks = serviceDenyNetworks(flags.denyNetwork ?? [], runner.DEFAULT_SERVICE_DENY_NETWORKS);
      try {
        runner.parseNetworkPolicy(denyNetworks);
      } catch (error) {
        throw usageError(`--deny-network: ${(error as Error).message}`);
      }
      const { runAgent } = await import('../agent-loop.js');
      const stop = new AbortController();
      process.once('SIGINT', () => stop.abort());
      process.once('SIGTERM', () => stop.abort());
      await runAgent({ ...options, denyNetworks, version: VERSION, stop: stop.signal, log: (line) => process.stderr.write(`${line}\n`) });
    });
}

function parseFlags(flags: AgentFlags, privateLocationSlug: RegExp) {
  let server: URL;
  try {
    server = new URL(flags.server);
  } catch {
    throw usageError(`--server must be an http(s) URL, got "${flags.server}"`);
  }
  if (server.protocol !== 'http:' && server.protocol !== 'https:') throw usageError(`--server must be an http(s) URL, got "${flags.server}"`);
  if (server.username || server.password) throw usageError('--server must not carry credentials: give the key with --key or VIGIL_AGENT_KEY');
  const key = flags.key?.trim();
  if (!key) throw usageError('an agent key is needed: --key KEY or VIGIL_AGENT_KEY');
  if (flags.location !== undefined && flags.privateLocation !== undefined) throw usageError('give either --location or --private-location, not both');
  if (flags.location === undefined && flags.privateLocation === undefined) throw usageError('which location does this agent run? --location LOCATION or --private-location SLUG');
  if (flags.location !== undefined && !/^[^@\s]{1,64}$/.test(flags.location)) throw usageError(`--location must be 1 to 64 characters, without "@" or white space, got "${flags.location}"`);
  if (flags.privateLocation !== undefined && !privateLocationSlug.test(flags.privateLocation)) {
    throw usageError(`--private-location must be a private location's slugName: 1 to 30 letters, digits or dashes, and not a data-center location name such as "eu-west-1", got "${flags.privateLocation}"`);
  }
  // The server knows a private location by its key; the agent names it like a location.
  const location = (flags.location ?? flags.privateLocation)!;
  const concurrency = Number(flags.concurrency);
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 1000) throw usageError(`--concurrency must be a whole number from 1 to 1000, got "${flags.concurrency}"`);
  const drainSeconds = Number(flags.drain);
  if (!Number.isFinite(drainSeconds) || drainSeconds < 0 || drainSeconds > 3600) throw usageError(`--drain must be a number of seconds from 0 to 3600, got "${flags.drain}"`);
  const agentId = flags.id ?? `${hostname().replace(/[^A-Za-z0-9._:-]/g, '-').slice(0, 60)}-${process.pid}-${randomBytes(3).toString('hex')}`;
  if (!/^[A-Za-z0-9._:-]{1,100}$/.test(agentId)) throw usageError(`--id must be 1 to 100 letters, digits, ".", "_", ":" or "-", got "${agentId}"`);
  return { serverUrl: server.href.replace(/\/+$/, ''), key, location, concurrency, agentId, drainMs: drainSeconds * 1000, maxBackoffMs: MAX_BACKOFF_MS };
}
