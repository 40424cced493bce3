/**
 * What a runner agent (`vigil agent`) and the service say to each other, around the run wire's
 * `RunJob` and `RunReport`. The agent only ever connects out: it long-polls `POST /v1/agent/jobs`
 * for jobs of its location and posts each run's report to `POST /v1/agent/results`, authenticated
 * by its location's agent key.
 */
import { z } from 'zod';
import { RunJob, RunReport } from './run-wire.js';

/** The longest lease the service hands out: an agent silent for longer loses its runs to a peer. */
export const MAX_AGENT_LEASE_MS = 60_000;

/** A location's name as runs carry it (no `@` or white space: it is part of a run's key). */
export const AgentLocation = z.string().regex(/^[^@\s]{1,64}$/, 'must be 1 to 64 characters, without "@" or white space');

/** Body of `POST /v1/agent/jobs`: who asks, for which location, and how many runs it can take now. */
export const AgentPoll = z.object({
  /** Chosen by the agent, stable for its process: the service tracks agents and leases by it. */
  agentId: z.string().regex(/^[A-Za-z0-9._:-]{1,100}$/, 'must be 1 to 100 letters, digits, ".", "_", ":" or "-"'),
  /** The run wire version the agent speaks (RUN_WIRE_VERSION); another one is refused. */
  wireVersion: z.number().int().positive(),
  /** The agent's own version, for `GET /v1/agent/agents`. */
  agentVersion: z.string().max(100),
  location: AgentLocation,
  /** Runs the agent can start now; 0 makes the poll a heartbeat that renews `leases`. */
  capacity: z.number().int().min(0).max(1000),
  /** Leases of the runs the agent is executing: each is extended by a lease period. */
  leases: z.array(z.string().min(1).max(100)).max(1000).default([]),
});
export type AgentPoll = z.infer<typeof AgentPoll>;

/** One job handed to an agent, held under `leaseId` until `leaseExpiresAt` unless renewed. */
export const AgentLeasedJob = z.object({
  leaseId: z.string(),
  /** ISO 8601; at most MAX_AGENT_LEASE_MS after the hand-out. */
  leaseExpiresAt: z.string(),
  job: RunJob,
});
export type AgentLeasedJob = z.infer<typeof AgentLeasedJob>;

/** Answer of `POST /v1/agent/jobs` when there is work (204 and no body when the poll timed out). */
export const AgentJobs = z.object({
  jobs: z.array(AgentLeasedJob),
  /** The lease period in ms: an agent renews its leases by polling within it. */
  leaseMs: z.number().int().positive(),
  /**
   * Set by a service that takes several reports in one `POST /v1/agent/results` (AgentResults):
   * how many at most. Absent from an older service, whose agents post one report per request.
   */
  reportsPerRequest: z.number().int().positive().optional(),
});
export type AgentJobs = z.infer<typeof AgentJobs>;

/** Body of `POST /v1/agent/results`: one run's report under the lease it was handed with. */
export const AgentResult = z.object({
  agentId: AgentPoll.shape.agentId,
  leaseId: z.string().min(1).max(100),
  report: RunReport,
});
export type AgentResult = z.infer<typeof AgentResult>;

/** The most reports one `POST /v1/agent/results` carries. */
export const MAX_REPORTS_PER_REQUEST = 50;

/**
 * Body of `POST /v1/agent/results` with several reports, each under its own lease: the reports an
 * agent's runs finished while its previous request was in flight. Each report is checked and
 * answered on its own (AgentResultsAnswer); the reports themselves are validated one by one, so
 * one malformed report does not refuse the others.
 */
export const AgentResults = z.object({
  agentId: AgentPoll.shape.agentId,
  reports: z.array(z.object({ leaseId: AgentResult.shape.leaseId, report: z.unknown() })).min(1).max(MAX_REPORTS_PER_REQUEST),
});
export type AgentResults = z.infer<typeof AgentResults>;

/** What became of one report of an AgentResults body, in the body's order. */
export const AgentReportOutcome = z.object({
  leaseId: z.string(),
  /**
   * As for a report posted alone: 200 recorded; 409 its lease is no longer the run's or the run
   * already has its result (not recorded; never worth retrying); 400 malformed or for another run;
   * 500 the service failed to store it (retry).
   */
  status: z.number().int(),
  /** The run's key, when recorded. */
  key: z.string().optional(),
  /** Why it was not recorded. */
  message: z.string().optional(),
});
export type AgentReportOutcome = z.infer<typeof AgentReportOutcome>;

/** Answer (200) of `POST /v1/agent/results` with an AgentResults body. */
export const AgentResultsAnswer = z.object({ results: z.array(AgentReportOutcome) });
export type AgentResultsAnswer = z.infer<typeof AgentResultsAnswer>;

/** One agent as `GET /v1/agent/agents` lists it. */
export const AgentInfo = z.object({
  agentId: z.string(),
  location: z.string(),
  agentVersion: z.string(),
  wireVersion: z.number(),
  /** ISO 8601 of its last poll or report. */
  lastSeenAt: z.string(),
  /** Runs it said it was executing at its last poll. */
  runsInFlight: z.number(),
  /** `live`, or `gone` once silent for two lease periods. */
  state: z.enum(['live', 'gone']),
  /** Set for an agent of a private location (its key is that location's): the location's id. */
  privateLocationId: z.string().optional(),
});
export type AgentInfo = z.infer<typeof AgentInfo>;
