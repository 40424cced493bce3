/**
 * The metrics suite's scraper in a process of its own (`metrics.ts` forks it), as Prometheus
 * scrapes the service from outside: reading 22 MiB on the service's own event loop would count
 * the client's work as the server's. Told over IPC where to scrape, it answers each `scrape`
 * message with the time from the request to the last byte, to the first byte, the size, and
 * whether the body holds the line the message names (the freshness check).
 */
import http from 'node:http';

let target;
let agent;

function scrape(line) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    let firstByteAt;
    const request = http.get({ host: '127.0.0.1', port: target.port, path: '/metrics', agent, headers: { authorization: `Bearer ${target.token}` } }, (response) => {
      const chunks = [];
      response.on('data', (chunk) => {
        firstByteAt ??= process.hrtime.bigint();
        chunks.push(chunk);
      });
      response.on('end', () => {
        const ended = process.hrtime.bigint();
        firstByteAt ??= ended;
        // Searched in the bytes, after the clock stopped: the scraper's decoding is not timed.
        const body = Buffer.concat(chunks);
        resolve({
          status: response.statusCode ?? 0,
          ms: Number(ended - started) / 1e6,
          firstByteMs: Number(firstByteAt - started) / 1e6,
          bytes: body.length,
          head: body.toString('utf8', 0, 200),
          fresh: line === undefined ? true : body.indexOf(line) >= 0,
        });
      });
      response.on('error', reject);
    });
    request.on('error', reject);
  });
}

process.on('message', (message) => {
  if (message.kind === 'target') {
    target = message;
    agent?.destroy();
    agent = new http.Agent({ keepAlive: true });
    process.send({ kind: 'ready' });
  } else if (message.kind === 'scrape') {
    scrape(message.line).then((result) => process.send({ kind: 'scraped', ...result }), (error) => process.send({ kind: 'failed', message: String(error) }));
  } else if (message.kind === 'stop') {
    agent?.destroy();
    process.disconnect();
  }
});
