/**
 * autocannon in a process of its own, one per measured run: `node load-generator.mjs '<json>'` prints
 * autocannon's result as JSON. A fresh client per run keeps one run's client-side state (histograms,
 * garbage, a JIT warmed for another endpoint) out of the next, as the service gets its own process.
 * (With one in-process client, list p99 climbed run after run, 15 → 30 ms, at flat server CPU per
 * request; fresh clients still varied 14–39 ms, so the machine's own variance was most of it.)
 * Options are autocannon's, plus `listPages: {path, pages, headers}`, which walks `page=1..pages`
 * round-robin (a function cannot cross the process boundary).
 */
import { createRequire } from 'node:module';

const autocannon = createRequire(import.meta.url)('autocannon');
const { listPages, ...options } = JSON.parse(process.argv[2]);
if (listPages) {
  let next = 0;
  options.requests = [
    {
      method: 'GET',
      path: `${listPages.path}&page=1`,
      headers: listPages.headers,
      setupRequest: (request) => ({ ...request, path: `${listPages.path}&page=${(next++ % listPages.pages) + 1}` }),
    },
  ];
}
const result = await autocannon(options);
process.stdout.write(`${JSON.stringify({ requests: { average: result.requests.average }, latency: { p99: result.latency.p99 }, non2xx: result.non2xx, errors: result.errors, '2xx': result['2xx'] })}\n`);
