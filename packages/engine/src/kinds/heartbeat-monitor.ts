import { HeartbeatCheckCreate } from '@vigil/schema';
import { commonCheckProps } from '../import/checks.js';
import { ObjectBuilder, fromValue, literal } from '../import/code.js';
import { baselineOf, remoteView } from '../import/context.js';
import { defineAdapter } from './define.js';
import type { MapInput, MappedResource, Payload, RemoteObject } from './types.js';

export const heartbeatMonitorAdapter = defineAdapter({
  kind: 'heartbeat-monitor',
  isCheck: true,
  schemaFor: () => HeartbeatCheckCreate,
  endpoints: { list: 'checks.list', create: 'checks.createHeartbeat', update: 'checks.updateHeartbeat', remove: 'checks.delete' },
  listQuery: { checkType: 'HEARTBEAT' },
  sendsAutoAssignAlerts: true,
  setFields: ['tags', 'locations', 'privateLocations'],
  prepareRemote: withoutPingToken,
  importing: { order: 52, placement: { file: 'with-group' }, slugFallback: 'heartbeat', map: mapHeartbeatMonitor },
});

/**
 * The service's ping token (and URL) is not the code's to decide: it never enters a plan, state or
 * imported code, so a plan compares only what the code says. `vigil apply` reads it afterwards to
 * print the ping URL.
 */
function withoutPingToken(remote: RemoteObject): RemoteObject {
  const heartbeat = remote.heartbeat;
  if (heartbeat === null || typeof heartbeat !== 'object' || Array.isArray(heartbeat)) return remote;
  const { pingToken: _token, pingUrl: _url, ...rest } = heartbeat as Record<string, unknown>;
  return { ...remote, heartbeat: rest };
}

/** Fields a heartbeat ignores (HeartbeatMonitor neither sends them nor takes them without a warning). */
const SCHEDULING_KEYS = ['frequency', 'frequencyOffset', 'locations', 'privateLocations', 'runtimeId', 'runParallel', 'retryStrategy', 'doubleCheck'] as const;

function mapHeartbeatMonitor(remote: RemoteObject, { adapter, inherited, context }: MapInput): MappedResource {
  const view = remoteView(adapter, remote);
  const heartbeat = view.heartbeat as { period: number; periodUnit: string; grace: number; graceUnit: string };
  const baseline = baselineOf(adapter, { name: 'x', heartbeat });
  // Written as the service's defaults so commonCheckProps writes none of them; a group's or the
  // config's scheduling defaults do not reach a heartbeat either.
  const scheduling: Payload = Object.fromEntries(SCHEDULING_KEYS.map((key) => [key, baseline[key]]));
  const props = new ObjectBuilder().set('name', literal(String(view.name)));
  const extraKeys = commonCheckProps(props, { ...view, ...scheduling }, baseline, { ...inherited, ...Object.fromEntries(SCHEDULING_KEYS.map((key) => [key, undefined])) }, context);
  props
    .set('period', fromValue(heartbeat.period))
    .set('periodUnit', literal(heartbeat.periodUnit))
    .set('grace', fromValue(heartbeat.grace))
    .set('graceUnit', literal(heartbeat.graceUnit));
  return { construct: 'HeartbeatMonitor', props: props.build(), extraKeys };
}
