/**
 * The network policy for Chromium. A browser opens its connections itself, out of reach of the
 * socket guard Node processes of a run load (../network-policy-guard.ts), so under a policy the
 * browser of a browser check, a multi-step check or a Playwright check suite sends all its traffic
 * through this forward proxy (Playwright's `launchOptions.proxy`): it runs in Playwright's own process,
 * which loaded the guard, so every connection it opens for the browser is refused or allowed by the
 * same rules. Playwright proxies loopback too (it adds `<-loopback>` to Chromium's bypass list).
 *
 * A refused connection is printed to stderr as the guard words it, so the run's result can say why
 * the page failed to load (Chromium itself only reports a failed tunnel).
 *
 * Loaded by the generated playwright.config.mjs of a browser or multi-step run (run-spec.ts), and as the first
 * `globalSetup` of a Playwright check suite (../executors/playwright.ts, the default export here);
 * the CLI bundle ships it as dist/browser-policy-proxy.mjs.
 */
import http from 'node:http';
import net from 'node:net';
import type { FailureKind } from '../types.js';

export interface PolicyProxy {
  /** `http://127.0.0.1:PORT`, for Playwright's `use.proxy.server`. */
  url: string;
}

/** The line a refused connection is reported with; {@link policyRefusal} looks for it. */
export const REFUSED_MARKER = 'vigil browser proxy:';

/** Chromium switches that would send a page around the proxy (`--no-proxy-server`, a `--proxy-server` of the check's own, ...): dropped from the launch arguments. */
export const CHROMIUM_PROXY_SWITCH = /^--(no-)?proxy|^--winhttp-proxy/;

/** Where a suite's global setup leaves the proxy's URL for the config its workers load (set by no one else: the runner drops it from the check's variables). */
export const POLICY_PROXY_ENV = 'VIGIL_POLICY_PROXY';

/** The first connection the policy proxy refused, as it reported it (in Playwright's output, or a test's log). */
function policyRefusal(output: string, jobLog: ReadonlyArray<{ msg: string }>): string | undefined {
  const lines = [...output.split('\n'), ...jobLog.map((line) => line.msg)];
  const line = lines.find((candidate) => candidate.includes(REFUSED_MARKER));
  return line?.slice(line.indexOf(REFUSED_MARKER) + REFUSED_MARKER.length).trim();
}

type Failure = { kind: FailureKind; message: string };

/**
 * A run's failure, with the refusal the proxy reported put ahead of it: Chromium itself only says
 * its tunnel failed or the response was empty.
 */
export function explainRefusal(failure: Failure | null, output: string, jobLog: ReadonlyArray<{ msg: string }>): Failure | null {
  const refusal = failure === null ? undefined : policyRefusal(output, jobLog);
  return failure !== null && refusal !== undefined ? { kind: 'NETWORK_ERROR', message: `${refusal} — ${failure.message}` } : failure;
}

function report(error: Error): void {
  if (/network policy/.test(error.message)) process.stderr.write(`${REFUSED_MARKER} ${error.message}\n`);
}

/** `host:port` of a CONNECT request; `[v6]:port` too. */
function target(authority: string): { host: string; port: number } | null {
  const match = /^\[?([^\]]+?)\]?:(\d+)$/.exec(authority);
  return match ? { host: match[1]!, port: Number(match[2]) } : null;
}

export async function startPolicyProxy(): Promise<PolicyProxy> {
  const server = http.createServer((request, response) => {
    let url: URL;
    try {
      url = new URL(request.url ?? '');
    } catch {
      response.writeHead(400).end('vigil browser proxy: only absolute URLs are proxied');
      return;
    }
    const upstream = http.request(
      { host: url.hostname.replace(/^\[|\]$/g, ''), port: url.port || 80, method: request.method, path: `${url.pathname}${url.search}`, headers: request.headers },
      (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.statusMessage, answer.headers);
        answer.pipe(response);
      },
    );
    upstream.on('error', (error) => {
      report(error);
      // No response at all, so the page load fails as it would without a proxy (a 502 page would load).
      request.socket.destroy();
    });
    request.pipe(upstream);
  });
  server.on('connect', (request, client, head) => {
    const destination = target(request.url ?? '');
    if (destination === null) {
      client.end('HTTP/1.1 400 Bad Request\r\n\r\n');
      return;
    }
    const upstream = net.connect(destination.port, destination.host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on('error', (error) => {
      report(error);
      client.destroy();
    });
    client.on('error', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  // Serves the browser until Playwright's process ends; keeps nothing else alive.
  server.unref();
  const { port } = server.address() as net.AddressInfo;
  return { url: `http://127.0.0.1:${port}` };
}

interface SuiteConfig {
  projects?: Array<{ use?: Record<string, unknown> }>;
}

/**
 * A Playwright check suite's first global setup: starts the proxy in Playwright's main process (a
 * config cannot wait for it: it may be a CommonJS TypeScript file) before any worker is forked, and
 * hands its URL to the workers through the environment they inherit; the suite's generated config
 * makes it every browser's `launchOptions.proxy` there. The projects of the config this process
 * already loaded get it too, for a global setup of the suite's own that launches with them.
 */
export default async function startSuitePolicyProxy(config: SuiteConfig): Promise<void> {
  const { url } = await startPolicyProxy();
  process.env[POLICY_PROXY_ENV] = url;
  for (const project of config.projects ?? []) {
    const { proxy: _replaced, ...use } = project.use ?? {};
    const launchOptions = typeof use.launchOptions === 'object' && use.launchOptions !== null ? (use.launchOptions as Record<string, unknown>) : {};
    project.use = { ...use, launchOptions: { ...launchOptions, proxy: { server: url } } };
  }
}
