/**
 * Executors by `checkType`. Adding a check type is one executor file plus its tests, and one line in
 * `BUILT_IN_EXECUTORS`.
 */
import type { Executor } from '../types.js';
import { apiExecutor } from './api.js';
import { browserExecutor } from './browser.js';
import { dnsExecutor } from './dns.js';
import { multiStepExecutor } from './multi-step.js';
import { playwrightExecutor } from './playwright.js';
import { sslExecutor } from './ssl.js';
import { icmpExecutor } from './icmp.js';
import { tracerouteExecutor } from './traceroute.js';
import { grpcExecutor } from './grpc.js';
import { tcpExecutor } from './tcp.js';
import { urlExecutor } from './url.js';

export const BUILT_IN_EXECUTORS: readonly Executor[] = [apiExecutor, multiStepExecutor, browserExecutor, tcpExecutor, urlExecutor, dnsExecutor, playwrightExecutor, sslExecutor, icmpExecutor, tracerouteExecutor, grpcExecutor];

export type ExecutorRegistry = ReadonlyMap<string, Executor>;

export function executorRegistry(executors: readonly Executor[]): ExecutorRegistry {
  const registry = new Map<string, Executor>();
  for (const executor of executors) {
    if (registry.has(executor.checkType)) throw new Error(`two executors for checkType ${executor.checkType}: this is a bug in vigil`);
    registry.set(executor.checkType, executor);
  }
  return registry;
}
