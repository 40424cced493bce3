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
});
export type AgentJobs = z.infer<typeof AgentJobs>;

/** Body of `POST /v1/agent/results`: one run's report under the lease it was handed with. */
export const AgentResult = z.object({
  agentId: AgentPoll.shape.agentId,
  leaseId: z.string().min(1).max(100),
  report: RunReport,
});
export type AgentResult = z.infer<typeof AgentResult>;

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
