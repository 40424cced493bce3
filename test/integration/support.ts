/**
 * Shared by the engine integration suites: a real server on port 0, the engine's ServiceCalls over
 * the real client, an in-memory state lock, and a helper that runs refresh → plan → apply the way
 * the CLI does.
 */
import { createClient } from '@vigil/client';
import type { ResourceSpec } from '@vigil/constructs';
import {
  StateWriter,
  applyPlan,
  createPlan,
  emptyState,
  refresh,
  type ApplyReport,
  type PlanResult,
  type ServiceCalls,
  type StateDocument,
  type StateLock,
} from '@vigil/engine';
import { startServer, type RunningServer } from '@vigil/server';

export const API_KEY = 'vigil-local';
export const ACCOUNT = 'local';
export const TARGET = { baseUrl: 'test', accountId: ACCOUNT };

export async function startService(options: { faults?: string } = {}): Promise<RunningServer> {
  return startServer({ port: 0, dataDir: ':memory:', ...options });
}

export function callsFor(server: RunningServer, options: { retryAttempts?: number } = {}): ServiceCalls {
  const { endpoints } = createClient({
    baseUrl: server.url,
    apiKey: API_KEY,
    pacing: false,
    ...(options.retryAttempts ? { retry: { attempts: options.retryAttempts } } : {}),
  });
  return {
    call: (endpoint, request = {}) => endpoints.call(endpoint, request as never),
    listAll: (endpoint, request = {}) => endpoints.listAll(endpoint, request as never) as AsyncIterable<unknown>,
  };
}

/** A StateLock that keeps the document in memory, like the local backend does on disk. */
export class MemoryLock implements StateLock {
  serial = 0;
  stored: StateDocument | undefined;
  async write(document: StateDocument): Promise<void> {
    this.serial += 1;
    this.stored = { ...document, serial: this.serial };
  }
  async release(): Promise<void> {}
}

export async function planFor(calls: ServiceCalls, specs: readonly ResourceSpec[], state: StateDocument, options: { destroy?: boolean } = {}): Promise<PlanResult> {
  const kinds = new Set([...specs.map((spec) => spec.kind), ...Object.values(state.resources).map((resource) => resource.kind)]);
  const remote = await refresh(calls, kinds);
  return createPlan({ project: 'test', target: TARGET, specs, state, remote, ...(options.destroy ? { destroy: true } : {}) });
}

export async function applySpecs(
  calls: ServiceCalls,
  specs: readonly ResourceSpec[],
  state: StateDocument = emptyState({ project: 'test', target: TARGET }),
  options: { destroy?: boolean; parallelism?: number } = {},
): Promise<{ state: StateDocument; report: ApplyReport; planned: PlanResult }> {
  const lock = new MemoryLock();
  lock.serial = state.serial;
  const writer = new StateWriter(lock, state);
  const planned = await planFor(calls, specs, state, options);
  const report = await applyPlan({ planned, api: calls, writer, parallelism: options.parallelism ?? 10 });
  return { state: writer.document, report, planned };
}

export function spec(kind: ResourceSpec['kind'], logicalId: string, payload: Record<string, unknown>, extra: Partial<ResourceSpec> = {}): ResourceSpec {
  return {
    address: `${kind}.${logicalId}`,
    kind,
    logicalId,
    payload,
    refs: [],
    source: { file: 'test.monitor.ts', line: 1, column: 1 },
    protect: false,
    secrets: [],
    ...extra,
  };
}
