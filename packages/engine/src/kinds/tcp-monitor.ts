import { TcpCheckCreate } from '@vigil/schema';
import { GENERAL_METHODS, NUMERIC_METHODS } from '../import/builders.js';
import { commonCheckProps, SIMPLE_CHECK_KEYS } from '../import/checks.js';
import { ObjectBuilder, call, fromValue, literal, tsString, type Code } from '../import/code.js';
import { baselineOf, differs, remoteView } from '../import/context.js';
import { defineAdapter } from './define.js';
import { withoutDoubleCheck } from './monitor-import.js';
import type { MapInput, MappedResource, RemoteObject } from './types.js';

export const tcpMonitorAdapter = defineAdapter({
  kind: 'tcp-monitor',
  isCheck: true,
  schemaFor: () => TcpCheckCreate,
  endpoints: { list: 'checks.list', create: 'checks.createTcp', update: 'checks.updateTcp', remove: 'checks.delete' },
  listQuery: { checkType: 'TCP' },
  sendsAutoAssignAlerts: true,
  setFields: ['tags', 'locations', 'privateLocations'],
  importing: { order: 53, placement: { file: 'with-group' }, slugFallback: 'monitor', map: mapTcpMonitor },
});

function mapTcpMonitor(remote: RemoteObject, { adapter, inherited, context }: MapInput): MappedResource {
  const view = remoteView(adapter, remote);
  const request = view.request as Record<string, unknown> & { hostname: string; port: number };
  const baseline = baselineOf(adapter, { name: 'x', request: { hostname: 'x', port: 1 } });
  const props = new ObjectBuilder().set('name', literal(String(view.name)));
  const extraKeys = commonCheckProps(props, withoutDoubleCheck(view, 'TcpMonitor', context), baseline, inherited, context);

  const defaults = baseline.request as Record<string, unknown>;
  const requestCode = new ObjectBuilder().set('hostname', literal(request.hostname)).set('port', literal(request.port));
  for (const key of ['data', 'ipFamily'] as const) {
    if (request[key] !== undefined && differs(request[key], defaults[key])) requestCode.set(key, fromValue(request[key]));
  }
  if (differs(request.assertions, defaults.assertions)) {
    requestCode.set('assertions', { type: 'array', items: (Array.isArray(request.assertions) ? request.assertions : []).map(tcpAssertionCode) });
  }
  props.set('request', requestCode.build());

  for (const key of SIMPLE_CHECK_KEYS) {
    if (key in baseline && view[key] !== undefined && differs(view[key], baseline[key])) props.set(key, fromValue(view[key]));
  }
  return { construct: 'TcpMonitor', props: props.build(), extraKeys };
}

/** `TcpAssertionBuilder.responseData().contains('220')` when a builder yields exactly this assertion; plain data otherwise. */
function tcpAssertionCode(value: unknown): Code {
  const { source, comparison, property, target, regex } = value as { source: string; comparison: string; property: string; target: string; regex: string | null };
  if (regex !== null) return fromValue(value);
  if (source === 'RESPONSE_TIME') {
    const method = NUMERIC_METHODS[comparison];
    if (method && property === '' && target !== '' && String(Number(target)) === target) {
      return call(`TcpAssertionBuilder.responseTime().${method}(${target})`, 'TcpAssertionBuilder');
    }
    return fromValue(value);
  }
  const general = GENERAL_METHODS[comparison];
  if (source !== 'RESPONSE_DATA' || !general || (!general.takesTarget && target !== '')) return fromValue(value);
  const argument = property === '' ? '' : tsString(property);
  return call(`TcpAssertionBuilder.responseData(${argument}).${general.method}(${general.takesTarget ? tsString(target) : ''})`, 'TcpAssertionBuilder');
}
