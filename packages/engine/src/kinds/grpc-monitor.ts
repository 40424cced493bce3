import { GRPC_HEALTH_STATUSES, GrpcCheckCreate } from '@vigil/schema';
import { commonCheckProps, SIMPLE_CHECK_KEYS } from '../import/checks.js';
import { ObjectBuilder, call, fromValue, literal, tsString, type Code } from '../import/code.js';
import { baselineOf, differs, remoteView } from '../import/context.js';
import { defineAdapter } from './define.js';
import { withoutDoubleCheck } from './monitor-import.js';
import type { MapInput, MappedResource, RemoteObject } from './types.js';

export const grpcMonitorAdapter = defineAdapter({
  kind: 'grpc-monitor',
  isCheck: true,
  schemaFor: () => GrpcCheckCreate,
  endpoints: { list: 'checks.list', create: 'checks.createGrpc', update: 'checks.updateGrpc', remove: 'checks.delete' },
  listQuery: { checkType: 'GRPC' },
  sendsAutoAssignAlerts: true,
  setFields: ['tags', 'locations', 'privateLocations'],
  importing: { order: 61, placement: { file: 'with-group' }, slugFallback: 'monitor', map: mapGrpcMonitor },
});

function mapGrpcMonitor(remote: RemoteObject, { adapter, inherited, context }: MapInput): MappedResource {
  const view = remoteView(adapter, remote);
  const request = view.request as Record<string, unknown> & { url: string; port: number; grpcConfig: Record<string, unknown> };
  const baseline = baselineOf(adapter, { name: 'x', request: { url: 'x', port: 1, grpcConfig: {} } });
  const props = new ObjectBuilder().set('name', literal(String(view.name)));
  const extraKeys = commonCheckProps(props, withoutDoubleCheck(view, 'GrpcMonitor', context), baseline, inherited, context);
  const defaults = baseline.request as Record<string, unknown>;
  const requestCode = new ObjectBuilder().set('url', literal(request.url)).set('port', literal(request.port));
  for (const key of ['ipFamily', 'skipSSL', 'timeout'] as const) {
    if (request[key] !== undefined && request[key] !== null && differs(request[key], defaults[key])) requestCode.set(key, fromValue(request[key]));
  }
  // Only what is set: a mode's construct refuses the other mode's fields, even empty ones.
  const config = Object.fromEntries(Object.entries(request.grpcConfig ?? {}).filter(([, value]) => value !== null && value !== undefined && value !== ''));
  requestCode.set('grpcConfig', fromValue(config));
  if (differs(request.assertions, defaults.assertions)) {
    requestCode.set('assertions', { type: 'array', items: (Array.isArray(request.assertions) ? request.assertions : []).map(grpcAssertionCode) });
  }
  props.set('request', requestCode.build());
  for (const key of ['degradedResponseTime', 'maxResponseTime', ...SIMPLE_CHECK_KEYS] as const) {
    if (key in baseline && view[key] !== undefined && differs(view[key], baseline[key])) props.set(key, fromValue(view[key]));
  }
  return { construct: 'GrpcMonitor', props: props.build(), extraKeys };
}

const NUMERIC: Record<string, string> = { EQUALS: 'equals', NOT_EQUALS: 'notEquals', LESS_THAN: 'lessThan', GREATER_THAN: 'greaterThan' };
const GENERAL: Record<string, string> = {
  ...NUMERIC, HAS_KEY: 'hasKey', NOT_HAS_KEY: 'notHasKey', HAS_VALUE: 'hasValue', NOT_HAS_VALUE: 'notHasValue', IS_EMPTY: 'isEmpty', NOT_EMPTY: 'notEmpty',
  CONTAINS: 'contains', NOT_CONTAINS: 'notContains', IS_NULL: 'isNull', NOT_NULL: 'notNull',
};
const NO_TARGET = new Set(['IS_EMPTY', 'NOT_EMPTY', 'IS_NULL', 'NOT_NULL']);
const BUILDERS: Record<string, string> = { GRPC_RESPONSE: 'responseMessage', TEXT_BODY: 'textBody', GRPC_METADATA: 'responseMetadata' };
const HEALTH_LABELS = Object.fromEntries(Object.entries(GRPC_HEALTH_STATUSES).map(([label, value]) => [String(value), label]));

/** `GrpcAssertionBuilder.statusCode().equals(0)` when a builder yields exactly this assertion; plain data otherwise. */
function grpcAssertionCode(value: unknown): Code {
  const { source, comparison, property, target, regex } = value as { source: string; comparison: string; property: string; target: string; regex: string | null };
  const code = (text: string) => call(`GrpcAssertionBuilder.${text}`, 'GrpcAssertionBuilder');
  if (regex !== null && regex !== '') return fromValue(value);
  const numeric = String(Number(target)) === target;
  if ((source === 'RESPONSE_TIME' || source === 'GRPC_STATUS_CODE') && property === '' && NUMERIC[comparison] && numeric) {
    return code(`${source === 'RESPONSE_TIME' ? 'responseTime' : 'statusCode'}().${NUMERIC[comparison]}(${target})`);
  }
  if (source === 'GRPC_HEALTHCHECK_STATUS' && property === '' && (comparison === 'EQUALS' || comparison === 'NOT_EQUALS') && HEALTH_LABELS[target]) {
    return code(`healthCheckStatus().${NUMERIC[comparison]}(${tsString(HEALTH_LABELS[target]!)})`);
  }
  const builder = BUILDERS[source];
  const method = GENERAL[comparison];
  if (builder === undefined || method === undefined) return fromValue(value);
  // Number targets of lessThan/greaterThan come back as numbers; the rest as the string they are.
  const argument = NO_TARGET.has(comparison) ? '' : (comparison === 'LESS_THAN' || comparison === 'GREATER_THAN') ? (numeric ? target : undefined) : tsString(target);
  if (argument === undefined || (NO_TARGET.has(comparison) && target !== '')) return fromValue(value);
  return code(`${builder}(${property === '' ? '' : tsString(property)}).${method}(${argument})`);
}
