/**
 * The agents' side of the API, outbound only from the agent's point of view:
 *
 * - `POST /v1/agent/jobs`: a long poll. Answers 200 with up to `capacity` leased jobs of the
 *   agent's location, or 204 when none came within the poll time. Renews the leases it lists.
 * - `POST /v1/agent/results`: one run's report under its lease; 409 when the lease is no longer the
 *   run's (handed to a peer after it expired) or the run already has its result.
 * - `GET /v1/agent/agents`: the agents this service heard from (with an account's API key).
 *
 * The first two authenticate with an agent key (`Authorization: Bearer KEY`), never an account
 * key: a key is for one location, and the location an agent names must be its key's.
 */
import { AgentPoll, AgentResult, formatIssues, wireVersionMismatch } from '@vigil/schema';
import type { Context, Hono } from 'hono';
import { readJsonBody, MAX_BODY_BYTES } from '../http/body.js';
import { badRequest, HttpError } from '../http/errors.js';
import { requestHeader } from '../http/headers.js';
import type { AppEnv } from '../http/types.js';
import type { ValidationSource } from '../http/errors.js';
import { ReportRefusal, type AgentHub } from './hub.js';
import type { AgentKeyRing } from './keys.js';

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
  /** The keys in force now (a keys file is read again when it changes). */
  keys: () => AgentKeyRing;
}

export function registerAgentRoutes(app: Hono<AppEnv>, options: AgentRoutesOptions): void {
  const { hub } = options;
  const locationOfKey = (c: Context<AppEnv>): string => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(requestHeader(c, 'authorization') ?? '');
    if (!match) throw new HttpError(401, 'Missing authentication');
    const location = options.keys().locationOf(match[1]!);
    if (location === undefined) throw new HttpError(401, 'Bad Token');
    return location;
  };

  app.post(AGENT_JOBS_PATH, async (c) => {
    const keyLocation = locationOfKey(c);
    const { json } = await readJsonBody(c.req.raw, c.env?.incoming);
    refuseOtherWire((json as { wireVersion?: unknown } | undefined)?.wireVersion);
    const poll = parsed(AgentPoll, json, 'payload');
    if (poll.location !== keyLocation) throw new HttpError(403, `this agent key is for location ${keyLocation}, not ${poll.location}`);
    const leased = await hub.poll(poll, c.req.raw.signal);
    if (leased.length === 0) return c.body(null, 204);
    return c.json({
      jobs: leased.map((run) => ({ leaseId: run.leaseId, leaseExpiresAt: new Date(run.leaseExpiresMs).toISOString(), job: run.job })),
      leaseMs: hub.leaseMs,
    });
  });

  app.post(AGENT_RESULTS_PATH, async (c) => {
    const keyLocation = locationOfKey(c);
    const { json } = await readJsonBody(c.req.raw, c.env?.incoming, MAX_REPORT_BYTES);
    refuseOtherWire((json as { report?: { wireVersion?: unknown } } | undefined)?.report?.wireVersion);
    const result = parsed(AgentResult, json, 'payload');
    try {
      await hub.report(result.agentId, keyLocation, result.leaseId, result.report);
    } catch (error) {
      if (error instanceof ReportRefusal) throw new HttpError(error.kind === 'invalid' ? 400 : 409, error.message);
      throw error;
    }
    return c.json({ recorded: true, key: result.report.key });
  });

  // Behind the app's account authentication like every API route.
  app.get(AGENT_LIST_PATH, (c) => c.json(hub.agents()));
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
  const byAgentKey = ' (Authorization: Bearer AGENT_KEY, a key given to vigil server --agent-key, not an API key)';
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
        responses: { 200: json('{jobs: [{leaseId, leaseExpiresAt, job (RunJob)}], leaseMs}'), 204: { description: 'No job came within the poll time' }, 400: error('Not a poll, or another run wire version'), 401: error('Missing or unknown agent key'), 403: error("The key is another location's") },
      },
    },
    [AGENT_RESULTS_PATH]: {
      post: {
        operationId: 'agent.results',
        summary: "A run's report (RunReport) under the lease its job was handed with; recorded once",
        description: `409 when the lease was handed to another agent or the run already has its result${byAgentKey}`,
        tags: ['agents'],
        security: agentKey,
        requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', required: ['agentId', 'leaseId', 'report'], properties: { agentId: { type: 'string' }, leaseId: { type: 'string' }, report: { type: 'object' } } } } } },
        responses: { 200: json('{recorded: true, key}'), 400: error('Not a report, or another run wire version'), 401: error('Missing or unknown agent key'), 409: error('The lease is no longer the run’s, or the run already has its result') },
      },
    },
    [AGENT_LIST_PATH]: {
      get: { operationId: 'agent.list', summary: 'The runner agents this service heard from: location, versions, last seen, runs in flight, live or gone', tags: ['agents'], responses: { 200: json('An array of agents') } },
    },
  };
}
