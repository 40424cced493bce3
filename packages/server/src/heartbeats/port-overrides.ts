/**
 * For tests and benches: the repositories with a confirm of the heartbeat ports replaced, as a
 * process killed at the confirm, or a watch from before claims were leases, would behave.
 */
import type { Repositories } from '../repositories.js';
import type { HeartbeatDeadlines, HeartbeatPings } from '../store/ports.js';

export function withReportedMissed(repositories: Repositories, reportedMissed: HeartbeatDeadlines['reportedMissed']): Repositories {
  const real = repositories.ports.heartbeatDeadlines;
  const deadlines: HeartbeatDeadlines = {
    watch: (heartbeat) => real.watch(heartbeat),
    forget: (accountId, checkId) => real.forget(accountId, checkId),
    recordPing: (accountId, checkId, pingMs) => real.recordPing(accountId, checkId, pingMs),
    claimMissed: (nowMs, limit, owner, leaseMs) => real.claimMissed(nowMs, limit, owner, leaseMs),
    reportedMissed,
    reported: (accountId, checkId) => real.reported(accountId, checkId),
  };
  return { ...repositories, ports: { ...repositories.ports, heartbeatDeadlines: deadlines } };
}

export function withPingsProcessed(repositories: Repositories, processed: HeartbeatPings['processed']): Repositories {
  const real = repositories.ports.heartbeatPings;
  const pings: HeartbeatPings = {
    record: (ping) => real.record(ping),
    startOnce: () => real.startOnce(),
    claim: (owner, nowMs, leaseMs, limit) => real.claim(owner, nowMs, leaseMs, limit),
    processed,
    ofCheck: (accountId, checkId, fromMs, toMs) => real.ofCheck(accountId, checkId, fromMs, toMs),
    progress: (accountId, id) => real.progress(accountId, id),
    monitorOfToken: (token) => real.monitorOfToken(token),
    monitors: () => real.monitors(),
    prune: (beforeMs, limit) => real.prune(beforeMs, limit),
  };
  return { ...repositories, ports: { ...repositories.ports, heartbeatPings: pings } };
}
