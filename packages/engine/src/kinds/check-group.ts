import { CheckGroupCreate } from '@vigil/schema';
import { alertEscalationCode, retryStrategyCode } from '../import/builders.js';
import { assertions, basicAuth, keyValues, subscriptions, variables } from '../import/checks.js';
import { ObjectBuilder, fromValue, literal, type Code } from '../import/code.js';
import { baselineOf, differs, remoteView } from '../import/context.js';
import { defineAdapter } from './define.js';
import type { MapInput, MappedResource, RemoteObject } from './types.js';

export const checkGroupAdapter = defineAdapter({
  kind: 'check-group',
  schemaFor: () => CheckGroupCreate,
  endpoints: { list: 'checkGroups.list', create: 'checkGroups.create', update: 'checkGroups.update', remove: 'checkGroups.delete' },
  sendsAutoAssignAlerts: true,
  setFields: ['tags', 'locations', 'privateLocations'],
  importing: { order: 40, placement: { file: 'own' }, slugFallback: 'group', variableSuffix: 'Group', fromIdClass: 'CheckGroup', map: mapCheckGroup },
});

/** A group, with the props the service stores on it; its checks keep their own settings. */
function mapCheckGroup(remote: RemoteObject, { adapter, inherited, context }: MapInput): MappedResource {
  const view = remoteView(adapter, remote);
  const baseline = baselineOf(adapter, { name: 'x' });
  const props = new ObjectBuilder().set('name', literal(String(view.name)));
  const set = (key: string, code: Code) => props.set(key, code);
  for (const key of ['activated', 'muted', 'tags', 'locations', 'privateLocations', 'concurrency', 'runtimeId', 'runParallel', 'setupSnippetId', 'tearDownSnippetId', 'localSetupScript', 'localTearDownScript'] as const) {
    if (view[key] !== undefined && differs(view[key], baseline[key])) set(key, fromValue(view[key]));
  }
  const extraKeys: string[] = [];
  if (view.browserCheckDefaults !== undefined) {
    set('browserCheckDefaults', fromValue(view.browserCheckDefaults));
    extraKeys.push('browserCheckDefaults');
  }
  const checkDefaults = view.apiCheckDefaults as Record<string, unknown> & { basicAuth: { username: string; password: string } };
  const defaultDefaults = baseline.apiCheckDefaults as Record<string, unknown>;
  if (differs(checkDefaults, defaultDefaults)) {
    const code = new ObjectBuilder();
    if (checkDefaults.url !== '') code.set('url', literal(String(checkDefaults.url)));
    for (const key of ['headers', 'queryParameters'] as const) if (differs(checkDefaults[key], [])) code.set(key, keyValues(checkDefaults[key]));
    if (differs(checkDefaults.assertions, [])) code.set('assertions', assertions(checkDefaults.assertions));
    const auth = checkDefaults.basicAuth;
    if (auth.username !== '' || auth.password !== '') code.set('basicAuth', basicAuth(auth, 'apiCheckDefaults.basicAuth.password', context));
    set('apiCheckDefaults', code.build());
  }
  if (differs(view.environmentVariables, baseline.environmentVariables)) set('environmentVariables', variables(view.environmentVariables, context));
  const channels = Array.isArray(view.alertChannelSubscriptions) ? view.alertChannelSubscriptions : [];
  if (channels.length > 0) set('alertChannels', subscriptions(view, context));
  if (view.useGlobalAlertSettings === false) set('alertEscalationPolicy', alertEscalationCode(view.alertSettings));
  // null (the v2 default) lets each check keep its own settings; true imposes the account's.
  else if (view.useGlobalAlertSettings === true) set('alertEscalationPolicy', literal('global'));
  else if (differs(view.alertSettings, baseline.alertSettings)) {
    context.warn('keeps alert settings while using the global ones; the code cannot express that and would reset them');
  }
  if (differs(view.retryStrategy, baseline.retryStrategy)) set('retryStrategy', retryStrategyCode(view.retryStrategy));
  return { construct: 'CheckGroup', props: props.build(), extraKeys };
}
