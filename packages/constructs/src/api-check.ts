import { ApiCheckCreate, MAX_RESPONSE_TIME_DEFAULT, type BodyType, type HttpMethod, type IpFamily } from '@vigil/schema';
import type { z } from 'zod';
import type { Assertion } from './assertion.js';
import type { BuildContext } from './build-context.js';
import { CHECK_PROP_KEYS, buildCheckFields, checkPropPath, markSecretVariables, type CheckProps, type EnvironmentVariable } from './check.js';
import { checkResponseTimes } from './check-rules.js';
import { Construct } from './construct.js';
import { checkHttpUrl } from './http-url.js';
import { formatPath, type PathSegment } from './path.js';
import { reportUnknownProps, type PropKeys } from './unknown-props.js';
import { ScriptSlots, type ScriptBundleRequest, type ScriptField, type ScriptOwner, type ScriptSource } from './script.js';

/** A header or query parameter. */
export interface KeyValue {
  /** Header or parameter name. */
  key: string;
  /** Its value. */
  value: string;
  /** Hides the value in the service's UI. Default false. */
  locked?: boolean;
}

/** HTTP basic authentication of the request. */
export interface BasicAuth {
  /** User name sent with every request. */
  username: string;
  /** Secret: plans and state only keep its hash. */
  password: string;
}

/** The HTTP request an API check sends (the API's request of an API check). */
export interface Request {
  /** The URL to request (at most 2048 characters). */
  url: string;
  /** `GET`, `POST`, `PUT`, `HEAD`, `DELETE` or `PATCH`. Default `GET`. */
  method?: HttpMethod;
  /** Follow redirects. Default true. */
  followRedirects?: boolean;
  /** Skip TLS certificate verification. Default false. */
  skipSSL?: boolean;
  /** `IPv4` or `IPv6`. Default `IPv4`. */
  ipFamily?: IpFamily;
  /** Request body. Default empty. */
  body?: string;
  /** `JSON`, `FORM`, `RAW`, `GRAPHQL` or `NONE`. Default `NONE`. */
  bodyType?: BodyType;
  /** Request headers. */
  headers?: KeyValue[];
  /** Query parameters added to the URL. */
  queryParameters?: KeyValue[];
  /** What the response must satisfy; build them with `AssertionBuilder`. */
  assertions?: Assertion[];
  /** HTTP basic authentication. */
  basicAuth?: BasicAuth;
}

export interface ApiCheckProps extends CheckProps {
  /** The HTTP request the check sends, and its assertions. Required. */
  request: Request;
  /**
   * Response time in milliseconds (0..30000) above which the check counts as degraded; at most
   * `maxResponseTime`. Default 5000.
   */
  degradedResponseTime?: number | null;
  /** Response time in milliseconds (0..30000) above which the check fails. Default 20000. */
  maxResponseTime?: number | null;
  /** Node.js code run before the request: a file to bundle (`{ entrypoint }`) or the code (`{ content }`). */
  setupScript?: ScriptSource;
  /** Node.js code run after the request: a file to bundle (`{ entrypoint }`) or the code (`{ content }`). */
  tearDownScript?: ScriptSource;
  /** Node.js code run in the setup phase, given inline; prefer `setupScript`. */
  localSetupScript?: string | null;
  /** Node.js code run in the teardown phase, given inline; prefer `tearDownScript`. */
  localTearDownScript?: string | null;
  /**
   * Variables the setup and teardown scripts read from `process.env`. When omitted, the config's
   * `checks.environmentVariables`; a list of its own replaces the config's, as in Checkly.
   */
  environmentVariables?: EnvironmentVariable[] | null;
  /** Id of a snippet on the service to run in the setup phase. */
  setupSnippetId?: number | null;
  /** Id of a snippet on the service to run in the teardown phase. */
  tearDownSnippetId?: number | null;
}

const API_CHECK_PROP_KEYS: PropKeys<ApiCheckProps> = {
  ...CHECK_PROP_KEYS,
  request: true,
  degradedResponseTime: true,
  maxResponseTime: true,
  setupScript: true,
  tearDownScript: true,
  localSetupScript: true,
  localTearDownScript: true,
  environmentVariables: true,
  setupSnippetId: true,
  tearDownSnippetId: true,
};

const REQUEST_KEYS: PropKeys<Request> = {
  url: true,
  method: true,
  followRedirects: true,
  skipSSL: true,
  ipFamily: true,
  body: true,
  bodyType: true,
  headers: true,
  queryParameters: true,
  assertions: true,
  basicAuth: true,
};

/**
 * An API check: requests a URL on a schedule from the chosen locations and asserts on the response.
 *
 * ```ts
 * new ApiCheck('orders-api', {
 *   name: 'Orders API',
 *   request: { url: 'https://api.example.com/orders', method: 'GET', assertions: [AssertionBuilder.statusCode().equals(200)] },
 *   frequency: Frequency.EVERY_5M,
 * })
 * ```
 */
export class ApiCheck extends Construct implements ScriptOwner {
  readonly props: ApiCheckProps;
  readonly #scripts: ScriptSlots;

  /**
   * @param logicalId unique (per kind) name of the check in this project
   * @param props the check's request, schedule and alerting
   */
  constructor(logicalId: string, props: ApiCheckProps) {
    super('api-check', logicalId, props);
    this.props = props;
    this.#scripts = new ScriptSlots((file) => this.resolveUserPath(file));
    this.#scripts.add('localSetupScript', props.setupScript, 'setupScript');
    this.#scripts.add('localTearDownScript', props.tearDownScript, 'tearDownScript');
  }

  /** The setup script's source, for the loader. */
  get setupScript(): ScriptSource | undefined {
    return this.props.setupScript;
  }

  /** The teardown script's source, for the loader. */
  get tearDownScript(): ScriptSource | undefined {
    return this.props.tearDownScript;
  }

  scriptEntrypoints(): ScriptBundleRequest[] {
    return this.#scripts.entrypoints();
  }

  setBundledScript(field: ScriptField, code: string): void {
    this.#scripts.setBundled(field, code);
    this.invalidate();
  }

  protected payloadSchema(): z.ZodType {
    return ApiCheckCreate;
  }

  protected override knownProps(): Readonly<Record<string, true>> {
    return API_CHECK_PROP_KEYS;
  }

  protected buildPayload(context: BuildContext): Record<string, unknown> {
    const { props } = this;
    const payload = buildCheckFields(context, props, 'API');
    payload.request = props.request;
    checkHttpUrl(context, props.request?.url, 'request.url', ['request', 'url']);
    reportUnknownProps(context, props.request, REQUEST_KEYS, { owner: 'the request', base: 'request' });
    const password = props.request?.basicAuth?.password;
    if (typeof password === 'string') context.secret(['request', 'basicAuth', 'password']);
    payload.degradedResponseTime = props.degradedResponseTime;
    payload.maxResponseTime = props.maxResponseTime;
    checkResponseTimes(context, props, MAX_RESPONSE_TIME_DEFAULT);
    const variables = props.environmentVariables ?? context.checkDefaults.environmentVariables;
    payload.environmentVariables = variables;
    markSecretVariables(context, variables);
    payload.setupSnippetId = props.setupSnippetId;
    payload.tearDownSnippetId = props.tearDownSnippetId;
    payload.localSetupScript = this.#scripts.resolveWithInline(context, 'localSetupScript', props.localSetupScript);
    payload.localTearDownScript = this.#scripts.resolveWithInline(context, 'localTearDownScript', props.localTearDownScript);
    return payload;
  }

  protected override propPath(payloadPath: PathSegment[]): string {
    const [head] = payloadPath;
    if (head === 'localSetupScript' || head === 'localTearDownScript') return this.#scripts.propPathOf(head) ?? head;
    return head === 'request' ? formatPath(payloadPath) : checkPropPath(payloadPath);
  }
}
