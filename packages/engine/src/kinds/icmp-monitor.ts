import { IcmpCheckCreate } from '@vigil/schema';
import { commonCheckProps, SIMPLE_CHECK_KEYS } from '../import/checks.js';
import { ObjectBuilder, call, fromValue, literal, tsString, type Code } from '../import/code.js';
import { baselineOf, differs, remoteView } from '../import/context.js';
import { defineAdapter } from './define.js';
import { withoutDoubleCheck } from './monitor-import.js';
import type { MapInput, MappedResource, RemoteObject } from './types.js';

export const icmpMonitorAdapter = defineAdapter({
  kind: 'icmp-monitor',
  isCheck: true,
  schemaFor: () => IcmpCheckCreate,
  endpoints: { list: 'checks.list', create: 'checks.createIcmp', update: 'checks.updateIcmp', remove: 'checks.delete' },
  listQuery: { checkType: 'ICMP' },
  sendsAutoAssignAlerts: true,
  setFields: ['tags', 'locations', 'privateLocations'],
  importing: { order: 59, placement: { file: 'with-group' }, slugFallback: 'monitor', map: mapIcmpMonitor },
});

function mapIcmpMonitor(remote: RemoteObject, { adapter, inherited, context }: MapInput): MappedResource {
  const view = remoteView(adapter, remote);
  const request = view.request as Record<string, unknown> & { hostname: string };
  const baseline = baselineOf(adapter, { name: 'x', request: { hostname: 'x' } });
  const props = new ObjectBuilder().set('name', literal(String(view.name)));
  const extraKeys = commonCheckProps(props, withoutDoubleCheck(view, 'IcmpMonitor', context), baseline, inherited, context);
  const defaults = baseline.request as Record<string, unknown>;
  const requestCode = new ObjectBuilder().set('hostname', literal(request.hostname));
  for (const key of ['ipFamily', 'pingCount'] as const) {
    if (request[key] !== undefined && request[key] !== null && differs(request[key], defaults[key])) requestCode.set(key, fromValue(request[key]));
  }
  if (differs(request.assertions, defaults.assertions)) {
    requestCode.set('assertions', { type: 'array', items: (Array.isArray(request.assertions) ? request.assertions : []).map(icmpAssertionCode) });
  }
  props.set('request', requestCode.build());
  for (const key of ['degradedPacketLossThreshold', 'maxPacketLossThreshold', ...SIMPLE_CHECK_KEYS] as const) {
    if (key in baseline && view[key] !== undefined && differs(view[key], baseline[key])) props.set(key, fromValue(view[key]));
  }
  return { construct: 'IcmpMonitor', props: props.build(), extraKeys };
}

const METHODS: Record<string, string> = { EQUALS: 'equals', NOT_EQUALS: 'notEquals', LESS_THAN: 'lessThan', GREATER_THAN: 'greaterThan', CONTAINS: 'contains', NOT_CONTAINS: 'notContains' };

/** `IcmpAssertionBuilder.latency('avg').lessThan(100)` when a builder yields exactly this assertion; plain data otherwise. */
function icmpAssertionCode(value: unknown): Code {
  const { source, comparison, property, target, regex } = value as { source: string; comparison: string; property: string; target: string; regex: string | null };
  const method = METHODS[comparison];
  if ((regex !== null && regex !== '') || method === undefined) return fromValue(value);
  const numeric = String(Number(target)) === target ? target : tsString(target);
  if (source === 'LATENCY') return call(`IcmpAssertionBuilder.latency(${tsString(property)}).${method}(${numeric})`, 'IcmpAssertionBuilder');
  if (source === 'JSON_RESPONSE') return call(`IcmpAssertionBuilder.jsonResponse(${property === '' ? '' : tsString(property)}).${method}(${numeric})`, 'IcmpAssertionBuilder');
  return fromValue(value);
}
