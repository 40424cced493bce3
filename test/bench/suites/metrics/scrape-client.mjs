/**
 * The metrics suite's scraper in a process of its own (`metrics.ts` forks it), as Prometheus
 * scrapes the service from outside: reading 22 MiB on the service's own event loop would count
 * the client's work as the server's. Told over IPC where to scrape, it answers each `scrape`
 * message with the time from the request to the last byte, to the first byte, the size, and
 * whether the body holds the line the message names (the freshness check).
 * It asks for gzip as Prometheus does (`Accept-Encoding: gzip`, scrape/scrape.go); a gzipped body
 * is timed as it arrives and decoded after the clock stopped (Prometheus' Go reader reads
 * concatenated members as one stream, as gunzipSync does), its size on the wire told apart.
 */
import http from 'node:http';
import { gunzipSync } from 'node:zlib';

let target;
let agent;

function scrape(line) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    let firstByteAt;
    const request = http.get({ host: '127.0.0.1', port: target.port, path: '/metrics', agent, headers: { authorization: `Bearer ${target.token}`, 'accept-encoding': 'gzip' } }, (response) => {
      const chunks = [];
      response.on('data', (chunk) => {
        firstByteAt ??= process.hrtime.bigint();
        chunks.push(chunk);
      });
      response.on('end', () => {
        const ended = process.hrtime.bigint();
        firstByteAt ??= ended;
        // Decoded and searched after the clock stopped: the scraper's decoding is not timed.
        const sent = Buffer.concat(chunks);
        const body = response.headers['content-encoding'] === 'gzip' ? gunzipSync(sent) : sent;
        resolve({
          status: response.statusCode ?? 0,
          ms: Number(ended - started) / 1e6,
          firstByteMs: Number(firstByteAt - started) / 1e6,
          bytes: body.length,
          sentBytes: sent.length,
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
