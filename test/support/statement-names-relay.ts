/**
 * A TCP relay in front of PostgreSQL that reads what clients send and records the name of every
 * statement they prepare: the frontend protocol's Parse message carries it, empty for the unnamed
 * statement. A pooler in transaction mode (PgBouncer) breaks on named statements, since the
 * connection that prepared one is not the next transaction's; this sees exactly what such a pooler
 * would be sent. Bytes go through unchanged in both directions. Test files only.
 */
import net from 'node:net';

/** The codes of the untyped requests a client may send before its startup message. */
const SSL_REQUEST = 80877103;
const GSS_ENCRYPTION_REQUEST = 80877104;

export interface StatementNamesRelay {
  /** `url` with its host and port replaced by the relay's. */
  readonly url: string;
  /** Each named Parse message's name, in the order sent (repeats kept: one per connection that prepared it). */
  readonly preparedNames: readonly string[];
  /** How many Parse messages went by, named or not. */
  parses(): number;
  close(): Promise<void>;
}

export async function startStatementNamesRelay(url: string): Promise<StatementNamesRelay> {
  const target = new URL(url);
  const preparedNames: string[] = [];
  let parses = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port), target.hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
    }
    client.pipe(upstream);
    upstream.pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    let pending = Buffer.alloc(0);
    let startup = true;
    client.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      for (;;) {
        if (startup) {
          if (pending.length < 8) return;
          const length = pending.readInt32BE(0);
          if (pending.length < length) return;
          const code = pending.readInt32BE(4);
          // After an SSL or GSS request the server answers one byte and the startup message follows.
          if (code !== SSL_REQUEST && code !== GSS_ENCRYPTION_REQUEST) startup = false;
          pending = pending.subarray(length);
          continue;
        }
        if (pending.length < 5) return;
        const length = pending.readInt32BE(1);
        if (pending.length < 1 + length) return;
        if (pending[0] === 0x50 /* 'P': Parse */) {
          parses += 1;
          const name = pending.subarray(5, pending.indexOf(0, 5)).toString('utf8');
          if (name !== '') preparedNames.push(name);
        }
        pending = pending.subarray(1 + length);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const relayed = new URL(url);
  relayed.hostname = '127.0.0.1';
  relayed.port = String((server.address() as net.AddressInfo).port);
  return {
    url: relayed.toString(),
    preparedNames,
    parses: () => parses,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
