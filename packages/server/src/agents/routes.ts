/**
 * The agents' side of the API, outbound only from the agent's point of view:
 *
 * - `POST /v1/agent/jobs`: a long poll. Answers 200 with up to `capacity` leased jobs of the
 *   agent's location, or 204 when none came within the poll time. Renews the leases it lists.
 * - `POST /v1/agent/results`: one run's report under its lease; 409 when the lease is no longer the
 *   run's (handed to a peer after it expired) or the run already has its result. Or, from an agent
 *   told `reportsPerRequest` in a jobs answer, up to that many reports each under its own lease
 *   (`{agentId, reports: [{leaseId, report}]}`): each is checked and answered exactly as if posted
 *   alone (`{results: [{leaseId, status, key?, message?}]}`, in the body's order), and they are
 *   recorded in one group commit instead of one request and one commit each.
 * - `GET /v1/agent/agents`: the agents the service heard from through any of its replicas (with an
 *   account's API key).
 *
 * The first two authenticate with an agent key (`Authorization: Bearer KEY`), never an account
 * key: an operator's key for a public location (`--agent-key`), or a private location's key made
 * through the API. A key is for one location, and the location an agent names must be its key's.
 * Bad keys are counted per client address and per key like bad API keys (http/auth-failures.ts):
 * past the limit the answer is 429 instead of 401. A key is looked up again when a poll ends, so a
 * key revoked while an agent waits is refused in that poll's answer.
 */
import { AgentPoll, AgentResult, AgentResults, MAX_REPORTS_PER_REQUEST, RunReport, formatIssues, wireVersionMismatch, type AgentReportOutcome } from '@vigil/schema';
import type { Context, Hono } from 'hono';
import { readJsonBody, MAX_BODY_BYTES } from '../http/body.js';
import { clientAddress, type CredentialFailures } from '../http/auth-failures.js';
import { badRequest, HttpError } from '../http/errors.js';
import { requestHeader } from '../http/headers.js';
import type { AppEnv } from '../http/types.js';
import type { ValidationSource } from '../http/errors.js';
import { ReportRefusal, type AgentHub, type AgentIdentity } from './hub.js';
import type { AgentKeyRing } from './keys.js';
import type { PrivateLocationKeys } from './private-keys.js';
import { describeQueue } from './routing.js';

export const AGENT_JOBS_PATH = '/v1/agent/jobs';
export const AGENT_RESULTS_PATH = '/v1/agent/results';
export const AGENT_LIST_PATH = '/v1/agent/agents';

/** Paths that authenticate with an agent key instead of an account's API key (app.ts skips them). */
export function isAgentKeyPath(path: string): boolean {
  return path === AGENT_JOBS_PATH || path === AGENT_RESULTS_PATH;
}

/** A report holds every try's result (each response body bounded by the runner): room for several. */
const MAX_REPORT_BYTES = 4 * MAX_BODY_BYTES;

export interface AgentRoutesOptions {
  hub: AgentHub;
  /** The operator's keys of public locations in force now (a keys file is read again when it changes). */
  keys: () => AgentKeyRing;
  /** Private locations' keys (made through the API); without it only the operator's keys are known. */
  privateKeys?: PrivateLocationKeys;
  /** The app's count of bad credentials, shared with API keys; without it bad keys are not limited. */
  authFailures?: CredentialFailures;
}

export function registerAgentRoutes(app: Hono<AppEnv>, options: AgentRoutesOptions): void {
  const { hub, authFailures } = options;
  const presentedKey = (c: Context<AppEnv>): string | undefined => /^Bearer\s+(\S+)\s*$/i.exec(requestHeader(c, 'authorization') ?? '')?.[1];
  const identityOf = async (key: string): Promise<AgentIdentity | undefined> => {
    const location = options.keys().locationOf(key);
    if (location !== undefined) return { queue: location, location };
    return options.privateKeys?.identify(key);
  };
  const authenticate = async (c: Context<AppEnv>): Promise<AgentIdentity> => {
    const key = presentedKey(c);
    const identity = key === undefined ? undefined : await identityOf(key);
    if (identity) return identity;
    // Only a bad key meets the limit: a good one is never held back by its neighbours' failures.
    const address = clientAddress(c);
    const now = Date.now();
    const refusal = authFailures?.refusal(address, key, now);
    if (refusal) {
      const from = refusal.by === 'address' ? 'from this address' : 'with this key';
      throw new HttpError(429, `Too many failed authentication attempts ${from}; retry in ${refusal.seconds} s`, { headers: { 'retry-after': String(refusal.seconds) } });
    }
    authFailures?.fail(address, key, now);
    throw new HttpError(401, key === undefined ? 'Missing authentication' : 'Bad Token');
  };
  const stillValid = async (c: Context<AppEnv>, identity: AgentIdentity): Promise<boolean> => {
    const key = presentedKey(c);
    const now = key === undefined ? undefined : await identityOf(key);
    return now !== undefined && now.queue === identity.queue;
  };

  app.post(AGENT_JOBS_PATH, async (c) => {
    const identity = await authenticate(c);
    const { json } = await readJsonBody(c.req.raw, c.env?.incoming);
    refuseOtherWire((json as { wireVersion?: unknown } | undefined)?.wireVersion);
    const poll = parsed(AgentPoll, json, 'payload');
    if (poll.location !== identity.location) throw new HttpError(403, `this agent key is for ${describeQueue(identity.queue)}, not ${poll.location}`);
    const gone = clientGone(c);
    const leased = await hub.poll(poll, identity, gone.signal).finally(gone.dispose);
    if (!(await stillValid(c, identity))) {
      // Revoked while the poll waited: nothing handed out in it stays with this agent.
      if (leased.length > 0) await hub.releaseLeases([poll.agentId]);
      throw new HttpError(401, 'Bad Token');
    }
    if (leased.length === 0) return c.body(null, 204);
    return c.json({
      jobs: leased.map((run) => ({ leaseId: run.leaseId, leaseExpiresAt: new Date(run.leaseExpiresMs).toISOString(), job: run.job })),
      leaseMs: hub.leaseMs,
      reportsPerRequest: MAX_REPORTS_PER_REQUEST,
    });
  });

  app.post(AGENT_RESULTS_PATH, async (c) => {
    const identity = await authenticate(c);
    const { json } = await readJsonBody(c.req.raw, c.env?.incoming, MAX_REPORT_BYTES);
    if (json !== null && typeof json === 'object' && 'reports' in json) return c.json({ results: await recordMany(hub, identity, json) });
    refuseOtherWire((json as { report?: { wireVersion?: unknown } } | undefined)?.report?.wireVersion);
    const result = parsed(AgentResult, json, 'payload');
    try {
      await hub.report(result.agentId, identity, result.leaseId, result.report);
    } catch (error) {
      if (error instanceof ReportRefusal) throw new HttpError(error.kind === 'invalid' ? 400 : 409, error.message);
      throw error;
    }
    return c.json({ recorded: true, key: result.report.key });
  });

  // Behind the app's account authentication like every API route: an account sees the agents of
  // public locations and of its own private locations.
  app.get(AGENT_LIST_PATH, async (c) => c.json(await hub.agents(c.get('account')?.id)));
}

/**
 * Aborts when the agent goes away while its poll waits. Under @hono/node-server it listens on the
 * Node response as the adapter does: reading `c.req.raw.signal` makes the adapter build a full web
 * Request for every poll, which the profile showed costing more than the rest of the poll's handling.
 */
function clientGone(c: Context<AppEnv>): { signal: AbortSignal; dispose: () => void } {
  const outgoing = c.env?.outgoing;
  const incoming = c.env?.incoming;
  if (!outgoing || !incoming) return { signal: c.req.raw.signal, dispose: () => {} };
  const controller = new AbortController();
  const onClose = () => {
    if (incoming.errored || !outgoing.writableFinished) controller.abort();
  };
  if (outgoing.destroyed) controller.abort();
  else outgoing.once('close', onClose);
  return { signal: controller.signal, dispose: () => outgoing.off('close', onClose) };
}

/**
 * The reports of one AgentResults body, each recorded or refused on its own as if posted alone.
 * Every report's recording starts in this turn, so they share one group commit; each still runs
 * its lease check inside that commit (hub.report's guard), so a stale or repeated one is refused
 * without touching the others.
 */
async function recordMany(hub: AgentHub, identity: AgentIdentity, json: object): Promise<AgentReportOutcome[]> {
  // Another run wire version is the agent's, not one report's: the whole body is refused, naming both.
  const reports = (json as { reports?: unknown }).reports;
  if (Array.isArray(reports)) for (const entry of reports) refuseOtherWire((entry as { report?: { wireVersion?: unknown } } | null)?.report?.wireVersion);
  const body = parsed(AgentResults, json, 'payload');
  return Promise.all(
    body.reports.map(async ({ leaseId, report }): Promise<AgentReportOutcome> => {
      const checked = RunReport.safeParse(report);
      if (!checked.success) {
        const { message } = formatIssues(checked.error, report);
        return { leaseId, status: 400, message };
      }
      try {
        await hub.report(body.agentId, identity, leaseId, checked.data);
        return { leaseId, status: 200, key: checked.data.key };
      } catch (error) {
        if (error instanceof ReportRefusal) return { leaseId, status: error.kind === 'invalid' ? 400 : 409, message: error.message };
        hub.logFailure(`recording the report under lease ${leaseId}`, error);
        return { leaseId, status: 500, message: 'the service failed to store this report; report it again' };
      }
    }),
  );
}

/** A peer of another run wire version is refused before its body is read any further, naming both versions. */
function refuseOtherWire(theirs: unknown): void {
  const mismatch = wireVersionMismatch(theirs, 'the agent');
  if (mismatch !== null) throw badRequest(mismatch, { source: 'payload', keys: ['wireVersion'] });
}

function parsed<T>(schema: { safeParse(value: unknown): { success: true; data: T } | { success: false; error: Parameters<typeof formatIssues>[0] } }, value: unknown, source: ValidationSource): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const { message, keys } = formatIssues(result.error, value);
  throw badRequest(message, { source, keys });
}

/** The agent endpoints for `/openapi.json`. */
export function agentOpenApiPaths(): Record<string, Record<string, unknown>> {
  const error = (description: string) => ({ description, content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } } });
  // Not the API key: an agent key in the same Authorization header, which the document's scheme does not describe.
  const agentKey: unknown[] = [];
  const byAgentKey = ' (Authorization: Bearer AGENT_KEY, a key given to vigil server --agent-key or made with POST /v1/private-locations/{id}/keys, not an API key)';
  const json = (description: string) => ({ description, content: { 'application/json': { schema: { type: 'object' } } } });
  return {
    [AGENT_JOBS_PATH]: {
      post: {
        operationId: 'agent.jobs',
        summary: "Long poll of a runner agent for its location's jobs, each under a lease; renews the leases it lists",
        description: `Answers up to capacity jobs, or 204 after the poll time${byAgentKey}`,
        tags: ['agents'],
        security: agentKey,
        requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', required: ['agentId', 'wireVersion', 'agentVersion', 'location', 'capacity'], properties: { agentId: { type: 'string' }, wireVersion: { type: 'integer' }, agentVersion: { type: 'string' }, location: { type: 'string' }, capacity: { type: 'integer', minimum: 0 }, leases: { type: 'array', items: { type: 'string' } } } } } } },
        responses: { 200: json('{jobs: [{leaseId, leaseExpiresAt, job (RunJob)}], leaseMs, reportsPerRequest}'), 204: { description: 'No job came within the poll time' }, 400: error('Not a poll, or another run wire version'), 401: error('Missing or unknown agent key, or revoked while the poll waited'), 429: error('Too many bad keys from this address or with this key'), 403: error("The key is another location's") },
      },
    },
    [AGENT_RESULTS_PATH]: {
      post: {
        operationId: 'agent.results',
        summary: "A run's report (RunReport) under the lease its job was handed with, or several reports each under its own lease; each recorded once",
        description: `409 when the lease was handed to another agent or the run already has its result. With {agentId, reports: [{leaseId, report}]} (at most ${MAX_REPORTS_PER_REQUEST}; an agent told reportsPerRequest in a jobs answer), 200 {results: [{leaseId, status, key?, message?}]} answers each report as if posted alone${byAgentKey}`,
        tags: ['agents'],
        security: agentKey,
        requestBody: { required: true, content: { 'application/json': { schema: { oneOf: [{ type: 'object', required: ['agentId', 'leaseId', 'report'], properties: { agentId: { type: 'string' }, leaseId: { type: 'string' }, report: { type: 'object' } } }, { type: 'object', required: ['agentId', 'reports'], properties: { agentId: { type: 'string' }, reports: { type: 'array', maxItems: MAX_REPORTS_PER_REQUEST, items: { type: 'object', required: ['leaseId', 'report'], properties: { leaseId: { type: 'string' }, report: { type: 'object' } } } } } }] } } } },
        responses: { 200: json('{recorded: true, key}, or for several reports {results: [{leaseId, status, key?, message?}]}'), 400: error('Not a report, or another run wire version'), 401: error('Missing, unknown or revoked agent key'), 429: error('Too many bad keys from this address or with this key'), 409: error('The lease is no longer the run’s, or the run already has its result') },
      },
    },
    [AGENT_LIST_PATH]: {
      get: { operationId: 'agent.list', summary: "The runner agents this service heard from (public locations' and this account's private locations'): location, versions, last seen, runs in flight, live or gone", tags: ['agents'], responses: { 200: json('An array of agents') } },
    },
  };
}
