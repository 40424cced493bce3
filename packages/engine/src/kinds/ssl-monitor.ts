import { SslCheckCreate, sslPropertyGrammar } from '@vigil/schema';
import { commonCheckProps, SIMPLE_CHECK_KEYS } from '../import/checks.js';
import { ObjectBuilder, call, fromValue, literal, tsString, type Code } from '../import/code.js';
import { baselineOf, differs, remoteView } from '../import/context.js';
import { defineAdapter } from './define.js';
import { withoutDoubleCheck } from './monitor-import.js';
import type { MapInput, MappedResource, RemoteObject } from './types.js';

export const sslMonitorAdapter = defineAdapter({
  kind: 'ssl-monitor',
  isCheck: true,
  schemaFor: () => SslCheckCreate,
  endpoints: { list: 'checks.list', create: 'checks.createSsl', update: 'checks.updateSsl', remove: 'checks.delete' },
  listQuery: { checkType: 'SSL' },
  sendsAutoAssignAlerts: true,
  setFields: ['tags', 'locations', 'privateLocations'],
  importing: { order: 58, placement: { file: 'with-group' }, slugFallback: 'monitor', map: mapSslMonitor },
});

/** Wire `sslConfig` keys that sit on Checkly's request, and the one its construct names differently. */
const ON_REQUEST = ['port', 'ipFamily'] as const;
const CONFIG_KEYS = ['serverName', 'skipChainValidation', 'alertDaysBeforeExpiry', 'clientCertificateMode', 'securityBaseline'] as const;

function mapSslMonitor(remote: RemoteObject, { adapter, inherited, context }: MapInput): MappedResource {
  const view = remoteView(adapter, remote);
  const request = view.request as { sslConfig: Record<string, unknown> & { hostname: string }; sslClientCertificateId?: string | null; assertions?: unknown[] };
  const baseline = baselineOf(adapter, { name: 'x', request: { sslConfig: { hostname: 'x' } } });
  const props = new ObjectBuilder().set('name', literal(String(view.name)));
  const extraKeys = commonCheckProps(props, withoutDoubleCheck(view, 'SslMonitor', context), baseline, inherited, context);

  const defaults = baseline.request as { sslConfig: Record<string, unknown>; assertions: unknown[] };
  const wire = request.sslConfig;
  const requestCode = new ObjectBuilder().set('hostname', literal(wire.hostname));
  for (const key of ON_REQUEST) {
    if (wire[key] !== undefined && differs(wire[key], defaults.sslConfig[key])) requestCode.set(key, fromValue(wire[key]));
  }
  const config = new ObjectBuilder();
  for (const key of CONFIG_KEYS) {
    if (wire[key] !== undefined && wire[key] !== null && differs(wire[key], defaults.sslConfig[key])) config.set(key, fromValue(wire[key]));
  }
  if (differs(wire.handshakeTimeoutMs, defaults.sslConfig.handshakeTimeoutMs)) config.set('handshakeTimeout', fromValue(wire.handshakeTimeoutMs));
  if (typeof request.sslClientCertificateId === 'string') config.set('sslClientCertificateId', literal(request.sslClientCertificateId));
  requestCode.set('sslConfig', config.build());
  if (differs(request.assertions, defaults.assertions)) {
    requestCode.set('assertions', { type: 'array', items: (Array.isArray(request.assertions) ? request.assertions : []).map(sslAssertionCode) });
  }
  props.set('request', requestCode.build());

  for (const key of SIMPLE_CHECK_KEYS) {
    if (key in baseline && view[key] !== undefined && differs(view[key], baseline[key])) props.set(key, fromValue(view[key]));
  }
  return { construct: 'SslMonitor', props: props.build(), extraKeys };
}

const METHODS: Record<string, { method: string; takesTarget: boolean }> = {
  EQUALS: { method: 'equals', takesTarget: true },
  NOT_EQUALS: { method: 'notEquals', takesTarget: true },
  GREATER_THAN: { method: 'greaterThan', takesTarget: true },
  LESS_THAN: { method: 'lessThan', takesTarget: true },
  CONTAINS: { method: 'contains', takesTarget: true },
  NOT_CONTAINS: { method: 'notContains', takesTarget: true },
  IS_EMPTY: { method: 'isEmpty', takesTarget: false },
  NOT_EMPTY: { method: 'notEmpty', takesTarget: false },
};

const OPENERS: Record<string, string> = { CERTIFICATE: 'certificate', CONNECTION: 'connection', RESPONSE_TIME: 'responseTime', JSON_RESPONSE: 'jsonResponse', TEXT_RESPONSE: 'textResponse' };

/** `SslAssertionBuilder.certificate('daysUntilExpiry').greaterThan(14)` when a builder yields exactly this assertion; plain data otherwise. */
function sslAssertionCode(value: unknown): Code {
  const { source, comparison, property, target, regex } = value as { source: string; comparison: string; property: string; target: string; regex: string | null };
  const method = METHODS[comparison];
  const opener = OPENERS[source];
  if ((regex !== null && regex !== '') || method === undefined || opener === undefined || (!method.takesTarget && target !== '')) return fromValue(value);
  const grammar = sslPropertyGrammar(source);
  if (source === 'RESPONSE_TIME' && property !== '') return fromValue(value);
  const type = grammar?.[property]?.type ?? (source === 'RESPONSE_TIME' ? 'number' : 'string');
  let argument = tsString(target);
  if (type === 'number' && String(Number(target)) === target) argument = target;
  if (type === 'boolean' && (target === 'true' || target === 'false')) argument = target;
  const open = property === '' ? '' : tsString(property);
  return call(`SslAssertionBuilder.${opener}(${open}).${method.method}(${method.takesTarget ? argument : ''})`, 'SslAssertionBuilder');
}
