import { DnsCheckCreate } from '@vigil/schema';
import { GENERAL_METHODS, NUMERIC_METHODS } from '../import/builders.js';
import { commonCheckProps, SIMPLE_CHECK_KEYS } from '../import/checks.js';
import { ObjectBuilder, call, fromValue, literal, tsString, type Code } from '../import/code.js';
import { baselineOf, differs, remoteView } from '../import/context.js';
import { defineAdapter } from './define.js';
import type { MapInput, MappedResource, RemoteObject } from './types.js';

export const dnsMonitorAdapter = defineAdapter({
  kind: 'dns-monitor',
  isCheck: true,
  schemaFor: () => DnsCheckCreate,
  endpoints: { list: 'checks.list', create: 'checks.createDns', update: 'checks.updateDns', remove: 'checks.delete' },
  listQuery: { checkType: 'DNS' },
  sendsAutoAssignAlerts: true,
  setFields: ['tags', 'locations', 'privateLocations'],
  importing: { order: 55, placement: { file: 'with-group' }, slugFallback: 'monitor', map: mapDnsMonitor },
});

function mapDnsMonitor(remote: RemoteObject, { adapter, inherited, context }: MapInput): MappedResource {
  const view = remoteView(adapter, remote);
  const request = view.request as Record<string, unknown> & { recordType: string; query: string };
  const baseline = baselineOf(adapter, { name: 'x', request: { recordType: 'A', query: 'x' } });
  const props = new ObjectBuilder().set('name', literal(String(view.name)));
  const extraKeys = commonCheckProps(props, view, baseline, inherited, context);

  const defaults = baseline.request as Record<string, unknown>;
  const requestCode = new ObjectBuilder().set('recordType', literal(request.recordType)).set('query', literal(request.query));
  for (const key of ['nameServer', 'port', 'protocol'] as const) {
    if (request[key] !== undefined && differs(request[key], defaults[key])) requestCode.set(key, fromValue(request[key]));
  }
  if (differs(request.assertions, defaults.assertions)) {
    requestCode.set('assertions', { type: 'array', items: (Array.isArray(request.assertions) ? request.assertions : []).map(dnsAssertionCode) });
  }
  props.set('request', requestCode.build());

  for (const key of SIMPLE_CHECK_KEYS) {
    if (key in baseline && view[key] !== undefined && differs(view[key], baseline[key])) props.set(key, fromValue(view[key]));
  }
  return { construct: 'DnsMonitor', props: props.build(), extraKeys };
}

const GENERAL_SOURCES: Readonly<Record<string, string>> = { RESPONSE_CODE: 'responseCode', TEXT_ANSWER: 'textAnswer', JSON_ANSWER: 'jsonAnswer' };

/** `DnsAssertionBuilder.responseCode().equals('NOERROR')` when a builder yields exactly this assertion; plain data otherwise. */
function dnsAssertionCode(value: unknown): Code {
  const { source, comparison, property, target, regex } = value as { source: string; comparison: string; property: string; target: string; regex: string | null };
  if (regex !== null) return fromValue(value);
  if (source === 'RESPONSE_TIME') {
    const method = NUMERIC_METHODS[comparison];
    if (method && property === '' && target !== '' && String(Number(target)) === target) {
      return call(`DnsAssertionBuilder.responseTime().${method}(${target})`, 'DnsAssertionBuilder');
    }
    return fromValue(value);
  }
  const sourceMethod = GENERAL_SOURCES[source];
  const general = GENERAL_METHODS[comparison];
  // responseCode() takes no argument, so a response-code assertion with a property is data.
  if (!sourceMethod || !general || (source === 'RESPONSE_CODE' && property !== '') || (!general.takesTarget && target !== '')) return fromValue(value);
  const argument = property === '' ? '' : tsString(property);
  return call(`DnsAssertionBuilder.${sourceMethod}(${argument}).${general.method}(${general.takesTarget ? tsString(target) : ''})`, 'DnsAssertionBuilder');
}
