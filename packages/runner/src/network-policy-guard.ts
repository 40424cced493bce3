/**
 * The network policy inside a child process that runs user code (the script workers): every TCP
 * connection Node opens goes through `net.Socket.prototype.connect` (net.connect, http, https, tls,
 * http2 and the global `fetch` alike), so that one method is replaced, before any user code loads,
 * by one that refuses denied literal IPs and resolves names through the policy's lookup.
 *
 * UDP goes through the same policy: a `dgram` socket's `send` and `connect` resolve their
 * destination through the policy's lookup first (binding, which is local, is left alone); name
 * servers a script picks for `dns.resolve*` are checked when they are set.
 *
 * On its own this is a guardrail, not a sandbox: code that spawns another program (`curl`), loads a
 * native addon or reaches Node's internal bindings (`process.binding('tcp_wrap')`) opens sockets
 * this never sees. The script sandbox closes those doors with Node's permission model (no child
 * processes, no workers, no addons, no bindings); see ./scripts/sandbox.ts and docs/sandbox.md.
 */
import dgram from 'node:dgram';
import dns from 'node:dns';
import net, { type LookupFunction } from 'node:net';
import { guardLookup, type NetworkPolicy } from './network-policy.js';

/** The argument that hands a child its rules (one per rule; the rules are not secret). */
export const DENY_NETWORK_ARG = '--vigil-deny-network=';

export function denyNetworkArgs(policy: NetworkPolicy): string[] {
  return policy.rules.map((rule) => `${DENY_NETWORK_ARG}${rule}`);
}

export function denyNetworksFromArgv(argv: readonly string[]): string[] {
  return argv.filter((arg) => arg.startsWith(DENY_NETWORK_ARG)).map((arg) => arg.slice(DENY_NETWORK_ARG.length));
}

type ConnectOptions = net.TcpSocketConnectOpts & { path?: string };

/** `connect(options, cb)`, `connect(port, host?, cb?)`, `connect(path, cb?)` and net's own pre-normalised `[options, cb]`. */
function normalise(args: unknown[]): { options: ConnectOptions; callback: unknown } | null {
  const [first, second, third] = args;
  if (Array.isArray(first)) return normalise(first);
  if (typeof first === 'object' && first !== null) return { options: { ...(first as ConnectOptions) }, callback: second };
  if (typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first))) {
    const host = typeof second === 'string' ? second : undefined;
    return { options: { port: Number(first), ...(host !== undefined ? { host } : {}) }, callback: host !== undefined ? third : second };
  }
  return null;
}

/** `1.2.3.4`, `1.2.3.4:53`, `::1`, `[::1]:53` → the address part. */
function nameServerHost(server: string): string {
  if (server.startsWith('[')) return server.slice(1, server.indexOf(']'));
  return server.split(':').length === 2 ? server.slice(0, server.indexOf(':')) : server;
}

function lockDown(target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, writable: false, configurable: false, enumerable: true });
}

/** Name servers a script chooses for `dns.resolve*` must be ones the policy allows: c-ares talks UDP to them directly. */
function guardNameServers(policy: NetworkPolicy): void {
  type SetServers = (this: unknown, servers: readonly string[]) => void;
  const guarded = (original: SetServers): SetServers =>
    function setServers(this: unknown, servers: readonly string[]) {
      for (const server of servers) {
        const refusal = policy.refusal(nameServerHost(String(server)));
        if (refusal) throw refusal;
      }
      return original.call(this, servers);
    };
  lockDown(dns, 'setServers', guarded(dns.setServers as SetServers));
  lockDown(dns.promises, 'setServers', guarded(dns.promises.setServers as SetServers));
  for (const Resolver of [dns.Resolver, dns.promises.Resolver]) {
    lockDown(Resolver.prototype, 'setServers', guarded(Resolver.prototype.setServers as SetServers));
  }
}

/**
 * `send(msg[, offset, length][, port][, address][, callback])` and `connect(port[, address][, callback])`:
 * the destination is the one string after the message (a message may itself be a string), absent
 * meaning loopback as dgram's own default. It is resolved through the policy and handed on as an IP.
 */
function guardDatagrams(policy: NetworkPolicy, lookup: LookupFunction): void {
  type Method = (this: dgram.Socket, ...args: unknown[]) => unknown;
  // send's callback takes the error; connect's is a 'connect' listener, so its refusal is an 'error' event.
  const guarded = (original: Method, firstDestinationArg: number, callbackTakesError: boolean): Method =>
    function (this: dgram.Socket, ...args: unknown[]) {
      const family = (this as unknown as { type?: string }).type === 'udp6' ? 6 : 4;
      const index = args.findIndex((arg, position) => position >= firstDestinationArg && typeof arg === 'string');
      const destination = index >= 0 ? (args[index] as string) : family === 6 ? '::1' : '127.0.0.1';
      const callback = args.findLast((arg) => typeof arg === 'function') as ((error: Error) => void) | undefined;
      const fail = (error: Error) => process.nextTick(() => (callback && callbackTakesError ? callback(error) : this.emit('error', error)));
      lookup(destination, { family }, ((error: Error | null, address: string) => {
        if (error) return fail(error);
        if (index >= 0) args[index] = address;
        original.apply(this, args);
      }) as Parameters<LookupFunction>[2]);
    };
  lockDown(dgram.Socket.prototype, 'send', guarded(dgram.Socket.prototype.send as Method, 1, true));
  lockDown(dgram.Socket.prototype, 'connect', guarded(dgram.Socket.prototype.connect as Method, 1, false));
}

/** Installs the guard for this process; a no-op for an empty policy. Cannot be undone by user code. */
export function installSocketGuard(policy: NetworkPolicy): void {
  if (policy.rules.length === 0) return;
  const original = net.Socket.prototype.connect as (this: net.Socket, ...args: unknown[]) => net.Socket;
  const lookup = guardLookup(policy);
  guardDatagrams(policy, lookup);
  guardNameServers(policy);
  function connect(this: net.Socket, ...args: unknown[]): net.Socket {
    const normalised = normalise(args);
    // Unix sockets and named pipes are not network addresses.
    if (normalised === null || typeof normalised.options.path === 'string') return original.apply(this, args);
    const { options, callback } = normalised;
    const host = options.host ?? 'localhost';
    const refusal = policy.refusal(host);
    if (refusal) {
      // As a failed connect would: asynchronously, as an 'error' on the socket.
      process.nextTick(() => this.destroy(refusal));
      return this;
    }
    const own = options.lookup;
    options.lookup = own === undefined || own === dns.lookup ? lookup : guardLookup(policy, own as LookupFunction);
    return original.call(this, options, ...(typeof callback === 'function' ? [callback] : []));
  }
  Object.defineProperty(net.Socket.prototype, 'connect', { value: connect, writable: false, configurable: false, enumerable: false });
}
