/**
 * For tests and benches: the repositories with the heartbeat deadlines port's confirm replaced, as a
 * process killed at the confirm, or a watch from before claims were leases, would behave.
 */
import type { Repositories } from '../repositories.js';
import type { HeartbeatDeadlines } from '../store/ports.js';

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
