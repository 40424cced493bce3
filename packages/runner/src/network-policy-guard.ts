/**
 * The network policy inside a child process that runs user code (the script workers): every TCP
 * connection Node opens goes through `net.Socket.prototype.connect` (net.connect, http, https, tls,
 * http2 and the global `fetch` alike), so that one method is replaced, before any user code loads,
 * by one that refuses denied literal IPs and resolves names through the policy's lookup.
 *
 * A guardrail, not a sandbox: code that spawns another program (`curl`), loads a native addon or
 * reaches Node's internal bindings (`process.binding('tcp_wrap')`) opens sockets this never sees,
 * and UDP (`dgram`) is not covered. docs/local-service.md ("Network policy") says so.
 */
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

/** Installs the guard for this process; a no-op for an empty policy. Cannot be undone by user code. */
export function installSocketGuard(policy: NetworkPolicy): void {
  if (policy.rules.length === 0) return;
  const original = net.Socket.prototype.connect as (this: net.Socket, ...args: unknown[]) => net.Socket;
  const lookup = guardLookup(policy);
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
