/**
 * A DNS responder on loopback for tests (the runner's and the e2e suite's): answers queries over
 * UDP and TCP on one port from a small zone, NXDOMAIN for names it does not know, and counts what
 * it was asked. Built with dns-packet, the library the DNS executor reads answers with.
 */
import dgram from 'node:dgram';
import net from 'node:net';
import * as dnsPacket from 'dns-packet';

export interface ZoneRecord {
  name: string;
  /** `A`, `AAAA`, `CNAME`, `MX`, `NS`, `TXT`, `SOA`, or `HTTPS` (data: the raw SVCB rdata). */
  type: string;
  ttl?: number;
  data: unknown;
}

export interface DnsResponderOptions {
  records: ZoneRecord[];
  /** Names answered with this response code instead (e.g. `{ 'broken.test': 'SERVFAIL' }`). */
  rcodes?: Record<string, 'NOERROR' | 'FORMERR' | 'SERVFAIL' | 'NXDOMAIN' | 'NOTIMP' | 'REFUSED'>;
  /** Wait this long before answering. */
  delayMs?: number;
}

export interface DnsResponder {
  host: '127.0.0.1';
  /** The same port for UDP and TCP. */
  port: number;
  /** Questions received, in order: `udp A example.test`. */
  readonly asked: string[];
  close(): Promise<void>;
}

const RCODES = { NOERROR: 0, FORMERR: 1, SERVFAIL: 2, NXDOMAIN: 3, NOTIMP: 4, REFUSED: 5 } as const;

/** The SVCB rdata of `1 . alpn="h3,h2"`, for HTTPS records in tests. */
export function httpsRecordData(alpn: readonly string[]): Buffer {
  const ids = Buffer.concat(alpn.map((id) => Buffer.concat([Buffer.from([id.length]), Buffer.from(id, 'latin1')])));
  const param = Buffer.alloc(4);
  param.writeUInt16BE(1, 0);
  param.writeUInt16BE(ids.length, 2);
  return Buffer.concat([Buffer.from([0, 1, 0]), param, ids]);
}

export async function startDnsResponder(options: DnsResponderOptions): Promise<DnsResponder> {
  const asked: string[] = [];
  const answer = (message: Buffer, transport: 'udp' | 'tcp'): Buffer | null => {
    let query: dnsPacket.Packet;
    try {
      query = dnsPacket.decode(message);
    } catch {
      return null;
    }
    const question = query.questions?.[0];
    if (question === undefined) return null;
    const type = question.type === ('UNKNOWN_65' as string) ? 'HTTPS' : question.type;
    asked.push(`${transport} ${type} ${question.name}`);
    const known = options.records.filter((record) => record.name === question.name);
    const rcode = options.rcodes?.[question.name] ?? (known.length === 0 ? 'NXDOMAIN' : 'NOERROR');
    const answers = rcode !== 'NOERROR' ? [] : known.filter((record) => record.type === type).map((record) => ({
      name: record.name,
      type: (record.type === 'HTTPS' ? 'UNKNOWN_65' : record.type) as dnsPacket.RecordType,
      ttl: record.ttl ?? 300,
      class: 'IN' as const,
      data: record.data,
    }));
    return dnsPacket.encode({
      type: 'response',
      id: query.id ?? 0,
      flags: dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE | RCODES[rcode],
      questions: query.questions ?? [],
      answers: answers as dnsPacket.Answer[],
    });
  };
  // Replies held back by delayMs are cancelled on close: sending on a closed socket throws
  // ERR_SOCKET_DGRAM_NOT_RUNNING outside any test, which fails the whole run.
  let closed = false;
  const pending = new Set<NodeJS.Timeout>();
  const later = (send: () => void) => {
    if (!options.delayMs) return send();
    const timer = setTimeout(() => {
      pending.delete(timer);
      if (!closed) send();
    }, options.delayMs);
    pending.add(timer);
  };
  // Anything that goes wrong on the responder's side fails close(), so a test sees it.
  const failures: Error[] = [];
  const fail = (error: Error | null) => {
    if (error) failures.push(error);
  };

  const bindUdp = async (): Promise<dgram.Socket> => {
    const socket = dgram.createSocket('udp4');
    socket.on('error', fail);
    socket.on('message', (message, remote) => {
      const reply = answer(message, 'udp');
      if (reply) later(() => socket.send(reply, remote.port, remote.address, fail));
    });
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
    return socket;
  };
  const sockets = new Set<net.Socket>();
  const tcp = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    // A client that gave up (a timed-out lookup, a closed test) resets its connection: that is the
    // client's business, not a fault of the responder.
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'ECONNRESET' && error.code !== 'EPIPE') fail(error);
    });
    let received = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      while (received.length >= 2 && received.length >= 2 + received.readUInt16BE(0)) {
        const reply = answer(received.subarray(2, 2 + received.readUInt16BE(0)), 'tcp');
        received = received.subarray(2 + received.readUInt16BE(0));
        if (reply) {
          const length = Buffer.alloc(2);
          length.writeUInt16BE(reply.length);
          later(() => {
            if (!socket.destroyed) socket.write(Buffer.concat([length, reply]));
          });
        }
      }
    });
  });

  // UDP first on a free port, then TCP on the same number; another process may hold that TCP port, so try again.
  for (let attempt = 0; ; attempt += 1) {
    const udp = await bindUdp();
    const port = udp.address().port;
    const listening = await new Promise<boolean>((resolve) => {
      tcp.once('error', () => resolve(false));
      tcp.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (listening) {
      return {
        host: '127.0.0.1',
        port,
        asked,
        close: async () => {
          closed = true;
          for (const timer of pending) clearTimeout(timer);
          pending.clear();
          for (const socket of sockets) socket.destroy();
          await Promise.all([new Promise<void>((resolve) => udp.close(() => resolve())), new Promise<void>((resolve) => tcp.close(() => resolve()))]);
          if (failures.length > 0) throw new AggregateError(failures, `the DNS responder failed: ${failures.map((error) => error.message).join('; ')}`);
        },
      };
    }
    if (attempt >= 5) throw new Error('no loopback port free for both UDP and TCP');
    await new Promise<void>((resolve) => udp.close(() => resolve()));
  }
}
