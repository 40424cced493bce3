/**
 * `GET /dashboard/checks/{id}/results/{resultId}`: one stored result in full: its outcome, every
 * assertion with the value it saw, the request and the response, timing phases, the job log, and
 * links to browser screenshots and traces when the result names any. Everything in a result came
 * from the monitored server or the user's script, so all of it goes through the escaping template,
 * and only http(s) URLs become links.
 */
import { MONITOR_RESULT_FIELDS } from '@vigil/schema';
import type { Hono } from 'hono';
import type { AppEnv } from '../http/types.js';
import { webUrl } from '../public-pages/escape.js';
import { MAX_RESULT_ID_LENGTH } from '../store/port-rules.js';
import { checkOf, type CheckPageDeps } from './check-page.js';
import { html, ms, timeTag, type SafeHtml } from './html.js';
import { messagePage, renderPage } from './layout.js';
import { page, signedIn } from './web.js';

type Doc = Record<string, unknown>;

const asDoc = (value: unknown): Doc | undefined => (value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Doc) : undefined);

/** A value for display: strings as they are, anything else as JSON. */
function shown(value: unknown): string {
  if (value === undefined) return '(absent)';
  if (typeof value === 'string') return value;
  return JSON.stringify(value, null, 2) ?? String(value);
}

function headerTable(headers: unknown, caption: string): SafeHtml {
  const entries = Object.entries(asDoc(headers) ?? {});
  if (entries.length === 0) return html`<p class="meta">No ${caption.toLowerCase()}.</p>`;
  return html`<div class="scroll"><table><caption>${caption}</caption><tbody>${entries.map(([name, value]) => html`<tr><th scope="row">${name}</th><td>${shown(value)}</td></tr>`)}</tbody></table></div>`;
}

function assertionTable(assertions: unknown): SafeHtml {
  if (!Array.isArray(assertions) || assertions.length === 0) return html`<p class="empty">No assertions.</p>`;
  const rows = assertions.map((raw) => {
    const assertion = asDoc(raw) ?? {};
    const outcome = assertion['error'] ? html`<span class="failed">Error: ${String(assertion['error'])}</span>` : assertion['passed'] === false ? html`<span class="failed">Failed</span>` : assertion['passed'] === true ? html`<span class="passed">Passed</span>` : html`<span class="meta">Not evaluated</span>`;
    return html`<tr><td>${String(assertion['source'] ?? '')}${assertion['property'] ? html` <code>${String(assertion['property'])}</code>` : ''}</td>
<td>${String(assertion['comparison'] ?? '')}</td><td><code>${shown(assertion['target'])}</code></td><td><code>${shown(assertion['actual'])}</code></td><td>${outcome}</td></tr>`;
  });
  return html`<div class="scroll"><table><thead><tr><th scope="col">Source</th><th scope="col">Comparison</th><th scope="col">Expected</th><th scope="col">Actual</th><th scope="col">Outcome</th></tr></thead><tbody>${rows}</tbody></table></div>`;
}

function phaseList(phases: unknown): SafeHtml {
  const entries = Object.entries(asDoc(phases) ?? {}).filter(([, value]) => typeof value === 'number');
  if (entries.length === 0) return html`<p class="empty">No timing phases recorded.</p>`;
  return html`<dl class="facts">${entries.map(([name, value]) => html`<dt>${name}</dt><dd>${ms(value as number)}</dd>`)}</dl>`;
}

function jobLog(log: unknown): SafeHtml {
  if (log === undefined || log === null || (Array.isArray(log) && log.length === 0)) return html`<p class="empty">No log.</p>`;
  const lines = Array.isArray(log)
    ? log.map((entry) => {
        const line = asDoc(entry);
        if (!line) return shown(entry);
        const text = line['msg'] ?? line['message'] ?? line['text'];
        return typeof text === 'string' ? [line['time'] ?? line['timestamp'], line['level'], text].filter((part) => part !== undefined && part !== null).join('  ') : shown(entry);
      })
    : [shown(log)];
  return html`<pre>${lines.join('\n')}</pre>`;
}

/** http(s) URLs under keys that name screenshots, traces or videos, found up to a few levels down. */
export function artifactLinks(value: unknown, depth = 0, key = ''): Array<{ label: string; url: URL }> {
  if (depth > 5 || value === null || value === undefined) return [];
  if (typeof value === 'string') {
    const url = /screenshot|trace|video|asset/i.test(key) ? webUrl(value) : undefined;
    return url ? [{ label: key, url }] : [];
  }
  if (Array.isArray(value)) return value.flatMap((item) => artifactLinks(item, depth + 1, key));
  if (typeof value === 'object') return Object.entries(value as Doc).flatMap(([name, inner]) => artifactLinks(inner, depth + 1, /screenshot|trace|video|asset/i.test(key) ? key : name));
  return [];
}

function resultBody(result: Doc): SafeHtml {
  const api = asDoc(result['apiCheckResult']);
  const sections: SafeHtml[] = [];
  if (api) {
    const request = asDoc(api['request']) ?? {};
    const response = asDoc(api['response']) ?? {};
    sections.push(html`<section aria-labelledby="assertions-title"><h2 id="assertions-title">Assertions</h2>${assertionTable(api['assertions'])}</section>`);
    if (api['requestError']) sections.push(html`<p class="notice" role="status">Request error: ${String(api['requestError'])}</p>`);
    sections.push(html`<section aria-labelledby="request-title"><h2 id="request-title">Request</h2>
<p><code>${String(request['method'] ?? '')} ${String(request['url'] ?? '')}</code></p>${headerTable(request['headers'], 'Request headers')}
${request['data'] ? html`<h3>Body</h3><pre>${shown(request['data'])}</pre>` : ''}</section>`);
    sections.push(html`<section aria-labelledby="response-title"><h2 id="response-title">Response</h2>
<p>Status <strong>${String(response['status'] ?? '—')}</strong> ${String(response['statusText'] ?? '')}</p>${headerTable(response['headers'], 'Response headers')}
<h3>Body${response['bodyTruncated'] === true ? ' (first part only)' : ''}</h3><pre>${shown(response['body'] ?? '')}</pre></section>`);
    sections.push(html`<section aria-labelledby="phases-title"><h2 id="phases-title">Timing phases</h2>${phaseList(response['timingPhases'])}</section>`);
    sections.push(html`<section aria-labelledby="log-title"><h2 id="log-title">Job log</h2>${jobLog(api['jobLog'])}</section>`);
  }
  for (const field of MONITOR_RESULT_FIELDS) {
    const monitor = asDoc(result[field]);
    if (!monitor) continue;
    const { assertions, ...details } = monitor;
    sections.push(html`<section aria-labelledby="monitor-title"><h2 id="monitor-title">Assertions</h2>${assertionTable(assertions)}
<h3>Details</h3><pre>${shown(details)}</pre></section>`);
  }
  for (const field of ['browserCheckResult', 'multiStepCheckResult'] as const) {
    const run = asDoc(result[field]);
    if (!run) continue;
    const links = artifactLinks(run);
    const errors = Array.isArray(run['errors']) ? run['errors'] : [];
    sections.push(html`<section aria-labelledby="${field}-title"><h2 id="${field}-title">${field === 'browserCheckResult' ? 'Browser run' : 'Multi-step run'}</h2>
${errors.length > 0 ? html`<h3>Errors</h3><pre>${errors.map((error) => shown(error)).join('\n')}</pre>` : ''}
<h3>Screenshots and traces</h3>${links.length === 0 ? html`<p class="empty">None recorded.</p>` : html`<ul>${links.map((link) => html`<li><a href="${link.url.href}" rel="noreferrer noopener">${link.label}: ${link.url.pathname.split('/').pop() || link.url.href}</a></li>`)}</ul>`}
<h3>Job log</h3>${jobLog(run['jobLog'] ?? run['logs'])}</section>`);
  }
  return html`${sections}`;
}

export function registerResultPage(app: Hono<AppEnv>, deps: CheckPageDeps): void {
  const { ports } = deps;
  app.get('/dashboard/checks/:id/results/:resultId', async (c) => {
    const who = signedIn(c, deps);
    if (who instanceof Response) return who;
    const accountId = who.session.accountId;
    const checkId = c.req.param('id');
    const resultId = c.req.param('resultId');
    const check = await checkOf(ports, accountId, checkId);
    // An id longer than any stored one is a result not found, not a read the port refuses.
    const result = check && resultId.length <= MAX_RESULT_ID_LENGTH ? ((await ports.checkResults.find(accountId, checkId, resultId)) as Doc | undefined) : undefined;
    if (!check || !result) return page(c, messagePage('Result not found', 'This check has no such result.', who.viewer), 404);
    const name = String(check['name'] ?? checkId);
    const failed = result['hasFailures'] === true || result['hasErrors'] === true;
    const body = html`<p><a href="/dashboard/checks/${encodeURIComponent(checkId)}">← ${name}</a></p>
<h1>Result of ${name}</h1>
<div class="card"><dl class="facts">
<dt>Outcome</dt><dd>${failed ? html`<span class="failed">Failed</span>` : result['isDegraded'] === true ? 'Degraded' : html`<span class="passed">Passed</span>`}</dd>
<dt>Started</dt><dd>${timeTag(String(result['startedAt'] ?? result['created_at'] ?? ''))}</dd>
<dt>Stopped</dt><dd>${timeTag(String(result['stoppedAt'] ?? ''))}</dd>
<dt>Response time</dt><dd>${ms(typeof result['responseTime'] === 'number' ? result['responseTime'] : null)}</dd>
<dt>Location</dt><dd>${String(result['runLocation'] ?? '')}</dd>
<dt>Type</dt><dd>${String(result['resultType'] ?? '')}, attempt${result['attempts'] === 1 ? '' : 's'}: ${String(result['attempts'] ?? '')}</dd>
<dt>Result id</dt><dd><code>${String(result['id'] ?? '')}</code></dd>
</dl></div>
${resultBody(result)}`;
    return page(c, renderPage({ title: `Result of ${name}`, viewer: who.viewer, section: 'checks', body }));
  });
}
