/**
 * The URL executor: one try of a URL monitor, which is a GET with status-code assertions and no
 * scripts. It is run by the API executor (same HTTP exchange, timings, redirects, network policy,
 * TLS handling and pass/fail rule), given the URL request as the API request it is a subset of.
 */
import { URL_MAX_RESPONSE_TIME_DEFAULT, UrlRequest } from '@vigil/schema';
import type { Executor, ExecutorContext, TryResult, WireCheck } from '../types.js';
import { apiExecutor } from './api.js';

export const urlExecutor: Executor = { checkType: 'URL', run: runUrlMonitor };

async function runUrlMonitor(check: WireCheck, context: ExecutorContext): Promise<TryResult> {
  const parsed = UrlRequest.safeParse(check.request);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return fault(`this URL monitor's request does not parse: ${issue ? `${['request', ...issue.path].join('.')}: ${issue.message}` : 'invalid'}`);
  }
  // Scripts are an API check's; a URL monitor has none, whatever the payload carries.
  const { localSetupScript: _setup, localTearDownScript: _tearDown, ...rest } = check;
  return apiExecutor.run(
    {
      ...rest,
      checkType: 'API',
      maxResponseTime: typeof check.maxResponseTime === 'number' ? check.maxResponseTime : URL_MAX_RESPONSE_TIME_DEFAULT,
      request: parsed.data,
    },
    context,
  );
}

function fault(message: string): TryResult {
  const now = new Date().toISOString();
  return {
    hasFailures: true,
    hasErrors: true,
    isDegraded: null,
    overMaxResponseTime: null,
    responseTime: 0,
    startedAt: now,
    stoppedAt: now,
    apiCheckResult: null,
    multiStepCheckResult: null,
    failure: { kind: 'RUNNER', message },
  };
}
