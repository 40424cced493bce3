import type { MapContext } from '../import/context.js';
import type { Payload } from './types.js';

/**
 * A monitor's view without `doubleCheck: true`, with a warning when it had one: Checkly's monitors
 * (TcpMonitor, UrlMonitor) refuse `doubleCheck` and always send `false`, so code that kept it would
 * not load. Without a retry strategy the code then means "no retries", which the next plan applies.
 */
export function withoutDoubleCheck(view: Payload, construct: string, context: MapContext): Payload {
  if (view.doubleCheck !== true) return view;
  if (view.retryStrategy === null || view.retryStrategy === undefined) {
    context.warn(`retries once on failure (doubleCheck), which a ${construct} cannot express; the code has no retries, so the next plan sets doubleCheck to false (add a retryStrategy to keep retrying)`);
  }
  return { ...view, doubleCheck: false };
}
