import { TracerouteCheckCreate } from '@vigil/schema';
import { commonCheckProps, SIMPLE_CHECK_KEYS } from '../import/checks.js';
import { ObjectBuilder, call, fromValue, literal, type Code } from '../import/code.js';
import { baselineOf, differs, remoteView } from '../import/context.js';
import { defineAdapter } from './define.js';
import { withoutDoubleCheck } from './monitor-import.js';
import type { MapInput, MappedResource, RemoteObject } from './types.js';

export const tracerouteMonitorAdapter = defineAdapter({
  kind: 'traceroute-monitor',
  isCheck: true,
  schemaFor: () => TracerouteCheckCreate,
  endpoints: { list: 'checks.list', create: 'checks.createTraceroute', update: 'checks.updateTraceroute', remove: 'checks.delete' },
  listQuery: { checkType: 'TRACEROUTE' },
  sendsAutoAssignAlerts: true,
  setFields: ['tags', 'locations', 'privateLocations'],
  importing: { order: 60, placement: { file: 'with-group' }, slugFallback: 'monitor', map: mapTracerouteMonitor },
});

const REQUEST_KEYS = ['protocol', 'port', 'ipFamily', 'maxHops', 'maxUnknownHops', 'ptrLookup', 'timeout'] as const;

function mapTracerouteMonitor(remote: RemoteObject, { adapter, inherited, context }: MapInput): MappedResource {
  const view = remoteView(adapter, remote);
  const request = view.request as Record<string, unknown> & { url: string };
  const baseline = baselineOf(adapter, { name: 'x', request: { url: 'x' } });
  const props = new ObjectBuilder().set('name', literal(String(view.name)));
  const extraKeys = commonCheckProps(props, withoutDoubleCheck(view, 'TracerouteMonitor', context), baseline, inherited, context);
  const defaults = baseline.request as Record<string, unknown>;
  const requestCode = new ObjectBuilder().set('url', literal(request.url));
  for (const key of REQUEST_KEYS) {
    if (request[key] !== undefined && request[key] !== null && differs(request[key], defaults[key])) requestCode.set(key, fromValue(request[key]));
  }
  if (differs(request.assertions, defaults.assertions)) {
    requestCode.set('assertions', { type: 'array', items: (Array.isArray(request.assertions) ? request.assertions : []).map(tracerouteAssertionCode) });
  }
  props.set('request', requestCode.build());
  for (const key of ['degradedResponseTime', 'maxResponseTime', ...SIMPLE_CHECK_KEYS] as const) {
    if (key in baseline && view[key] !== undefined && differs(view[key], baseline[key])) props.set(key, fromValue(view[key]));
  }
  return { construct: 'TracerouteMonitor', props: props.build(), extraKeys };
}

const METHODS: Record<string, string> = { EQUALS: 'equals', NOT_EQUALS: 'notEquals', LESS_THAN: 'lessThan', GREATER_THAN: 'greaterThan' };
const BUILDERS: Record<string, (property: string) => string | undefined> = {
  RESPONSE_TIME: (property) => (['avg', 'min', 'max', 'stdDev'].includes(property) ? `responseTime(${property === 'avg' ? '' : `'${property}'`})` : undefined),
  HOP_COUNT: (property) => (property === '' ? 'hopCount()' : undefined),
  PACKET_LOSS: (property) => (property === '' ? 'packetLoss()' : undefined),
};

/** `TracerouteAssertionBuilder.hopCount().lessThan(20)` when a builder yields exactly this assertion; plain data otherwise. */
function tracerouteAssertionCode(value: unknown): Code {
  const { source, comparison, property, target, regex } = value as { source: string; comparison: string; property: string; target: string; regex: string | null };
  const method = METHODS[comparison];
  const builder = BUILDERS[source]?.(property);
  const numeric = String(Number(target)) === target;
  const noNotEquals = comparison === 'NOT_EQUALS' && source !== 'RESPONSE_TIME';
  if ((regex !== null && regex !== '') || method === undefined || builder === undefined || !numeric || noNotEquals) return fromValue(value);
  return call(`TracerouteAssertionBuilder.${builder}.${method}(${target})`, 'TracerouteAssertionBuilder');
}
