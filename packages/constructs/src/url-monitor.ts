import { URL_MAX_RESPONSE_TIME_DEFAULT, URL_RESPONSE_TIME_MAX, UrlCheckCreate, type IpFamily } from '@vigil/schema';
import type { z } from 'zod';
import type { BuildContext } from './build-context.js';
import { CHECK_PROP_KEYS, buildCheckFields, checkPropPath, type CheckProps } from './check.js';
import { checkResponseTimes } from './check-rules.js';
import { Construct } from './construct.js';
import { checkHttpUrl } from './http-url.js';
import { formatPath, type PathSegment } from './path.js';
import { reportUnknownProps, type PropKeys } from './unknown-props.js';
import type { UrlAssertion } from './url-assertion.js';

/** The page a URL monitor requests (the real API's `ChecksV1UrlRequest`); always a GET. */
export interface UrlRequest {
  /** The http:// or https:// URL to request (at most 2048 characters). Required. */
  url: string | URL;
  /** `IPv4` or `IPv6`: the address family the host name is resolved to. Default `IPv4`. */
  ipFamily?: IpFamily;
  /** Follow 3xx redirects (up to 10 hops); when false, a redirect is the final response. Default true. */
  followRedirects?: boolean;
  /** Accept any TLS certificate (self-signed, expired, wrong host). Default false. */
  skipSSL?: boolean;
  /**
   * Status code assertions, built with `UrlAssertionBuilder`. Without any, a status ≥ 400 fails the
   * run (for other assertions, use an `ApiCheck`).
   */
  assertions?: UrlAssertion[];
}

/** The props of a URL monitor: those of a check without `doubleCheck` (retries are a `retryStrategy`). */
export interface UrlMonitorProps extends Omit<CheckProps, 'doubleCheck'> {
  /** The page to request and its assertions. Required. */
  request: UrlRequest;
  /**
   * Response time in milliseconds (0..30000) above which the monitor counts as degraded; at most
   * `maxResponseTime`. Default 3000.
   */
  degradedResponseTime?: number | null;
  /** Response time in milliseconds (0..30000) after which the run stops and fails. Default 5000. */
  maxResponseTime?: number | null;
}

const { doubleCheck: _doubleCheck, ...MONITOR_PROP_KEYS } = CHECK_PROP_KEYS;

const URL_MONITOR_PROP_KEYS: PropKeys<UrlMonitorProps> = {
  ...MONITOR_PROP_KEYS,
  request: true,
  degradedResponseTime: true,
  maxResponseTime: true,
};

const REQUEST_KEYS: PropKeys<UrlRequest> & { method: true } = {
  url: true,
  ipFamily: true,
  followRedirects: true,
  skipSSL: true,
  assertions: true,
  // Checkly's synthesised payload carries `method: 'GET'`; a request copied from one still loads.
  method: true,
};

/**
 * A URL monitor: requests a page with a GET on a schedule and checks its status code and response
 * time. For other methods, headers, bodies or body assertions, use an `ApiCheck`.
 *
 * ```ts
 * new UrlMonitor('homepage', {
 *   name: 'Homepage is up',
 *   request: { url: 'https://example.com', assertions: [UrlAssertionBuilder.statusCode().equals(200)] },
 *   frequency: Frequency.EVERY_5M,
 * })
 * ```
 */
export class UrlMonitor extends Construct {
  readonly props: UrlMonitorProps;

  /**
   * @param logicalId unique (per kind) name of the monitor in this project
   * @param props the monitor's page, schedule and alerting
   */
  constructor(logicalId: string, props: UrlMonitorProps) {
    super('url-monitor', logicalId, props);
    this.props = props;
  }

  protected payloadSchema(): z.ZodType {
    return UrlCheckCreate;
  }

  protected override knownProps(): Readonly<Record<string, true>> {
    // doubleCheck is known so it gets the "not supported" error below, not "not a prop".
    return { ...URL_MONITOR_PROP_KEYS, doubleCheck: true };
  }

  protected buildPayload(context: BuildContext): Record<string, unknown> {
    const { props } = this;
    // Checkly's monitors refuse doubleCheck outright ("unsupported"), rather than deprecate it.
    if ((props as { doubleCheck?: unknown }).doubleCheck !== undefined) {
      context.error(
        'doubleCheck',
        '"doubleCheck" is not supported by UrlMonitor',
        'Use retryStrategy instead, e.g. RetryStrategyBuilder.fixedStrategy({ maxRetries: 1 }), or RetryStrategyBuilder.noRetries().',
      );
    }
    const payload = buildCheckFields(context, { ...props, doubleCheck: undefined }, 'URL');
    // Checkly's Monitor base always sends doubleCheck: false; the service's default (true) would retry once.
    payload.doubleCheck = false;
    payload.checkType = 'URL';
    const request = props.request;
    if (typeof request === 'object' && request !== null) {
      const url = request.url instanceof URL ? request.url.href : request.url;
      payload.request = { ...request, url, method: 'GET' };
      const method = (request as { method?: unknown }).method;
      if (method !== undefined && method !== 'GET') {
        context.error('request.method', `"request.method" must be GET: a URL monitor only sends GET requests, got ${JSON.stringify(method)}`, 'Leave out method, or use an ApiCheck for other methods.');
      }
      checkHttpUrl(context, url, 'request.url', ['request', 'url']);
    } else {
      payload.request = request;
    }
    reportUnknownProps(context, request, REQUEST_KEYS, { owner: 'the request', base: 'request' });
    payload.degradedResponseTime = props.degradedResponseTime;
    payload.maxResponseTime = props.maxResponseTime;
    if (isWithin(props.degradedResponseTime) && isWithin(props.maxResponseTime ?? URL_MAX_RESPONSE_TIME_DEFAULT)) {
      checkResponseTimes(context, props, URL_MAX_RESPONSE_TIME_DEFAULT);
    }
    return payload;
  }

  protected override fieldHint(payloadPath: PathSegment[]): string | undefined {
    const [head, second] = payloadPath;
    if (head === 'degradedResponseTime' || head === 'maxResponseTime') return `A URL monitor's response-time limits are milliseconds between 0 and ${URL_RESPONSE_TIME_MAX}.`;
    if (head === 'request' && second === 'assertions') return 'Build assertions with UrlAssertionBuilder, e.g. UrlAssertionBuilder.statusCode().equals(200); for other assertions use an ApiCheck.';
    return super.fieldHint(payloadPath);
  }

  protected override propPath(payloadPath: PathSegment[]): string {
    return payloadPath[0] === 'request' ? formatPath(payloadPath) : checkPropPath(payloadPath);
  }
}

function isWithin(value: unknown): boolean {
  return typeof value === 'number' && value >= 0 && value <= URL_RESPONSE_TIME_MAX;
}
