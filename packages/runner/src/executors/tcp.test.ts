import net, { type AddressInfo, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closedPort } from '../__fixtures__/targets.js';
import { createRunner } from '../runner.js';
import { QUIET_MS } from './tcp.js';
import type { RunContext, RunResult, WireCheck } from '../types.js';

const context: RunContext = { location: 'eu-west-1', variables: [], retries: 0 };
const runner = createRunner({ maxBodyBytes: 1024 });
const servers: net.Server[] = [];
const sockets = new Set<Socket>();
/** Ports of the loopback servers: echo, greeting, hanging, flooding. */
const port = { echo: 0, greet: 0, hang: 0, flood: 0 };

async function serve(onConnection: (socket: Socket) => void): Promise<number> {
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    onConnection(socket);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

beforeAll(async () => {
  port.echo = await serve((socket) => socket.on('data', (chunk) => socket.write(`ECHO ${chunk.toString('utf8')}`)));
  port.greet = await serve((socket) => socket.write('220 vigil test ready\r\n'));
  port.hang = await serve(() => undefined);
  port.flood = await serve((socket) => socket.write(Buffer.alloc(8 * 1024, 'x')));
});

afterAll(async () => {
  await runner.close();
  for (const socket of sockets) socket.destroy();
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
});

function tcpMonitor(request: Record<string, unknown>, extra: Record<string, unknown> = {}): WireCheck {
  return { checkType: 'TCP', name: 'probe', request: { hostname: '127.0.0.1', ...request }, ...extra };
}

async function run(check: WireCheck, runContext: RunContext = context): Promise<RunResult> {
  return (await runner.run(check, runContext)).final;
}

describe('TCP executor against loopback servers', () => {
  it('sends data, reads the answer and records the phases the tcp-checks analytics read', async () => {
    const result = await run(tcpMonitor({
      port: port.echo,
      data: 'PING\r\n',
      assertions: [
        { source: 'RESPONSE_DATA', comparison: 'CONTAINS', target: 'ECHO PING' },
        { source: 'RESPONSE_TIME', comparison: 'LESS_THAN', target: '2000' },
      ],
    }));
    expect(result.error).toBeNull();
    expect(result.hasFailures).toBe(false);
    const api = result.apiCheckResult!;
    expect(api.request).toMatchObject({ method: 'TCP', url: `tcp://127.0.0.1:${port.echo}`, data: 'PING\r\n' });
    expect(api.response.body).toBe('ECHO PING\r\n');
    expect(api.assertions.map((assertion) => [assertion.source, assertion.passed])).toEqual([['RESPONSE_DATA', true], ['RESPONSE_TIME', true]]);
    const phases = api.response.timingPhases;
    for (const name of ['dns', 'connection', 'data', 'total'] as const) expect(typeof phases[name]).toBe('number');
    expect(phases.total).toBeGreaterThanOrEqual(phases.connection!);
    // The quiet wait after the last byte is not the target's time.
    const elapsed = Date.parse(result.stoppedAt!) - Date.parse(result.startedAt!);
    expect(elapsed).toBeGreaterThanOrEqual(QUIET_MS);
    expect(result.responseTime).toBeLessThanOrEqual(elapsed - QUIET_MS + 5);
  });

  it('reads a greeting when it sends nothing but asserts on the answer', async () => {
    const result = await run(tcpMonitor({ port: port.greet, assertions: [{ source: 'RESPONSE_DATA', comparison: 'CONTAINS', target: '220' }] }));
    expect(result.error).toBeNull();
    expect(result.apiCheckResult!.response.body).toBe('220 vigil test ready\r\n');
  });

  it('passes on an open connection alone when there is nothing to send or assert on', async () => {
    const result = await run(tcpMonitor({ port: port.hang }, { maxResponseTime: 2000 }));
    expect(result).toMatchObject({ hasFailures: false, overMaxResponseTime: false });
  });

  it('runs a payload whose alert channels are not created yet, as vigil test sends it (their ids null)', async () => {
    const check = tcpMonitor({ port: port.hang }, { maxResponseTime: 2000, alertChannelSubscriptions: [{ alertChannelId: null, activated: true }], groupId: null });
    const result = await run(check);
    expect(result.hasErrors).toBe(false);
    expect(result.hasFailures).toBe(false);
  });

  it('fails a refused connection with the reason', async () => {
    const closed = await closedPort();
    const result = await run(tcpMonitor({ port: closed }));
    expect(result.hasFailures).toBe(true);
    expect(result.error).toBe(`could not connect to 127.0.0.1:${closed}: connection refused (ECONNREFUSED)`);
    expect(result.apiCheckResult!.requestError).toBe(result.error);
  });

  it('fails at maxResponseTime when the server never answers', async () => {
    const result = await run(tcpMonitor({ port: port.hang, data: 'HELLO' }, { maxResponseTime: 300 }));
    expect(result.error).toBe(`no answer from 127.0.0.1:${port.hang} within maxResponseTime (300 ms)`);
    expect(result.overMaxResponseTime).toBe(true);
    expect(result.responseTime).toBeGreaterThanOrEqual(300);
  });

  it('fails a response-data assertion that does not hold, naming the actual answer', async () => {
    const result = await run(tcpMonitor({ port: port.echo, data: 'PING', assertions: [{ source: 'RESPONSE_DATA', comparison: 'CONTAINS', target: 'PONG' }] }));
    expect(result.error).toBe('assertion failed: RESPONSE_DATA CONTAINS "PONG": actual "ECHO PING"');
  });

  it('stops reading at the read cap and marks the answer truncated', async () => {
    const result = await run(tcpMonitor({ port: port.flood, assertions: [{ source: 'RESPONSE_DATA', comparison: 'NOT_EMPTY' }] }));
    expect(result.error).toBeNull();
    expect(result.apiCheckResult!.response.body).toHaveLength(1024);
    expect(result.apiCheckResult!.response.bodyTruncated).toBe(true);
  });

  it('fills {{KEY}} in the host name and data from the variables, and redacts secrets from the result', async () => {
    const result = await run(
      tcpMonitor({ hostname: '{{HOST}}', port: port.echo, data: 'token {{TOKEN}}', assertions: [{ source: 'RESPONSE_DATA', comparison: 'CONTAINS', target: 'token' }] }),
      { ...context, variables: [{ key: 'HOST', value: 'localhost' }, { key: 'TOKEN', value: 's3cr3t-value', secret: true }] },
    );
    expect(result.error).toBeNull();
    expect(result.apiCheckResult!.request.url).toBe(`tcp://localhost:${port.echo}`);
    expect(JSON.stringify(result)).not.toContain('s3cr3t-value');
  });

  it('inverts the outcome with shouldFail', async () => {
    const closed = await closedPort();
    expect((await run(tcpMonitor({ port: closed }, { shouldFail: true }))).hasFailures).toBe(false);
    const open = await run(tcpMonitor({ port: port.echo }, { shouldFail: true }));
    expect(open.error).toBe(`shouldFail is set, so a failure was expected, but the connection to 127.0.0.1:${port.echo} and its assertions succeeded`);
  });

  it('refuses a denied address through the network policy, for a literal IP and for a name', async () => {
    const guarded = createRunner({ denyNetworks: ['127.0.0.0/8'] });
    try {
      const literal = (await guarded.run(tcpMonitor({ port: port.echo }), context)).final;
      expect(literal.error).toBe(`could not connect to 127.0.0.1:${port.echo}: connection to 127.0.0.1 refused by the service's network policy (--deny-network 127.0.0.0/8)`);
      const named = (await guarded.run(tcpMonitor({ hostname: 'localhost', port: port.echo, ipFamily: 'IPv4' }), context)).final;
      expect(named.error).toBe(`could not connect to localhost:${port.echo}: connection to 127.0.0.1 refused by the service's network policy (--deny-network 127.0.0.0/8)`);
    } finally {
      await guarded.close();
    }
  });

  it('reports a payload it cannot run as a runner fault', async () => {
    const result = await run({ checkType: 'TCP', name: 'probe', request: { hostname: '127.0.0.1' } });
    expect(result.hasErrors).toBe(true);
    expect(result.error).toBe('this TCP monitor\'s payload does not parse: request.port: Invalid input: expected number, received undefined');
  });
});
