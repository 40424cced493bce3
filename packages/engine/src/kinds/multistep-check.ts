import { MultiStepCheckCreate } from '@vigil/schema';
import { commonCheckProps, SIMPLE_CHECK_KEYS, variables } from '../import/checks.js';
import { ObjectBuilder, fromValue, literal } from '../import/code.js';
import { baselineOf, differs, remoteView, type MapContext } from '../import/context.js';
import { defineAdapter } from './define.js';
import type { MapInput, MappedResource, Payload, RemoteObject } from './types.js';

export const multiStepCheckAdapter = defineAdapter({
  kind: 'multistep-check',
  isCheck: true,
  schemaFor: () => MultiStepCheckCreate,
  endpoints: { list: 'checks.list', create: 'checks.createMultiStep', update: 'checks.updateMultiStep', remove: 'checks.delete' },
  listQuery: { checkType: 'MULTI_STEP' },
  sendsAutoAssignAlerts: true,
  setFields: ['tags', 'locations', 'privateLocations'],
  importing: { order: 51, placement: { file: 'with-group' }, slugFallback: 'check', map: mapMultiStepCheck },
});

/**
 * A multi-step check's view with `retryStrategy.onlyOn` left out, with a warning when it had one: the
 * service may hold it, but only request-based checks can tell a network error, so `MultiStepCheck`
 * refuses it and code that kept it would not load.
 */
function withoutOnlyOn(view: Payload, context: MapContext): Payload {
  const strategy = view.retryStrategy as { onlyOn?: unknown } | null | undefined;
  if (!strategy || !Array.isArray(strategy.onlyOn) || strategy.onlyOn.length === 0) return view;
  context.warn(`retries only on ${strategy.onlyOn.join(', ')} (retryStrategy.onlyOn), which a MultiStepCheck cannot express; the code retries on any failure, so the next plan clears onlyOn`);
  return { ...view, retryStrategy: { ...strategy, onlyOn: [] } };
}

function mapMultiStepCheck(remote: RemoteObject, { adapter, inherited, context }: MapInput): MappedResource {
  const view = remoteView(adapter, remote);
  const baseline = baselineOf(adapter, { name: 'x', script: 'x' });
  const props = new ObjectBuilder().set('name', literal(String(view.name)));
  const extraKeys = commonCheckProps(props, withoutOnlyOn(view, context), baseline, inherited, context);
  props.set('code', new ObjectBuilder().set('content', literal(String(view.script))).build());
  if (differs(view.scriptPath, null)) {
    context.warn(`was uploaded from ${String(view.scriptPath)}; the code inlines the script, so the next plan clears scriptPath`);
  }
  // The config's variables reach a check that sets none; one that has none of its own says so (`[]`).
  if (differs(view.environmentVariables, inherited.environmentVariables ?? baseline.environmentVariables)) {
    props.set('environmentVariables', variables(view.environmentVariables ?? [], context));
  }
  if (differs(view.dependencies, baseline.dependencies)) props.set('dependencies', fromValue(view.dependencies));
  for (const key of SIMPLE_CHECK_KEYS) {
    if (key in baseline && view[key] !== undefined && differs(view[key], baseline[key])) props.set(key, fromValue(view[key]));
  }
  return { construct: 'MultiStepCheck', props: props.build(), extraKeys };
}
