/**
 * The outbound network policy: CIDRs the runner must never connect to, so a shared service cannot
 * be used to reach its own host's link-local and cloud metadata endpoints (SSRF). One matcher for
 * every place that dials: the HTTP exchange of API checks (checked after DNS resolution and for
 * literal IPs, on every redirect hop), the script workers (./network-guard.ts), and later executors.
 * Imports only Node built-ins, so the script worker can load it too.
 *
 * Matching uses Node's `net.BlockList`, which also matches IPv4-mapped IPv6 addresses
 * (::ffff:169.254.169.254) against IPv4 rules.
 *
 * An unspecified address (`0.0.0.0` and the rest of 0.0.0.0/8, `::`, `::ffff:0.0.0.0`) is not a
 * place on the network, yet Linux connects a socket aimed at it to this host's own loopback. So it
 * is matched as loopback too: otherwise `http://0/`, `[::]` or `0.0.0.0` reach services on
 * 127.0.0.1 that a rule denying 127.0.0.0/8 or ::1 was written to protect.
 */
import dns from 'node:dns';
import net, { type LookupFunction } from 'node:net';

/**
 * What `vigil server` denies unless told otherwise (docs/local-service.md, "Network policy"):
 * IPv4 and IPv6 link-local (the metadata services of AWS, GCP, Azure, Oracle, DigitalOcean and
 * OpenStack live at 169.254.169.254, the ECS task endpoint at 169.254.170.2), the IPv6 metadata
 * address of AWS (fd00:ec2::254), Alibaba Cloud's metadata address (100.100.100.200) and Azure's
 * host platform address (168.63.129.16, WireServer).
 */
export const DEFAULT_SERVICE_DENY_NETWORKS: readonly string[] = [
  '169.254.0.0/16',
  'fe80::/10',
  'fd00:ec2::254/128',
  '100.100.100.200/32',
  '168.63.129.16/32',
];

/** Error code of a connection the policy refused (on the error the runner reports). */
export const NETWORK_POLICY_CODE = 'ERR_VIGIL_NETWORK_POLICY';

export class NetworkPolicyRefusal extends Error {
  readonly code = NETWORK_POLICY_CODE;
  constructor(
    readonly address: string,
    readonly rule: string,
  ) {
    super(`connection to ${address} refused by the service's network policy (--deny-network ${rule})`);
    this.name = 'NetworkPolicyRefusal';
  }
}

/** Addresses the kernel treats as "this host": a connection to one of them lands on loopback. */
const UNSPECIFIED = new net.BlockList();
UNSPECIFIED.addSubnet('0.0.0.0', 8, 'ipv4');
UNSPECIFIED.addAddress('::', 'ipv6');
/** The loopback addresses an unspecified address is matched as (IPv4 and IPv6, as Linux may use either). */
const LOOPBACK_EQUIVALENTS: ReadonlyArray<{ address: string; type: 'ipv4' | 'ipv6' }> = [
  { address: '127.0.0.1', type: 'ipv4' },
  { address: '::1', type: 'ipv6' },
];

/** True for 0.0.0.0/8, `::` and their IPv4-mapped forms (BlockList matches `::ffff:0.0.0.0` against the IPv4 rule). */
export function isUnspecifiedAddress(address: string): boolean {
  const bare = unbracket(address);
  const family = net.isIP(bare);
  return family !== 0 && UNSPECIFIED.check(bare, family === 4 ? 'ipv4' : 'ipv6');
}

interface Rule {
  /** Canonical text, `address/prefix`, as error messages name it. */
  text: string;
  list: net.BlockList;
}

export interface NetworkPolicy {
  /** The rules in canonical form (`169.254.0.0/16`), in the order given. */
  readonly rules: readonly string[];
  /** The first rule denying this IP address, or null when it may be dialled (and for anything not an IP). */
  deniedBy(address: string): string | null;
  /** The refusal for this IP address, or null when it may be dialled. */
  refusal(address: string): NetworkPolicyRefusal | null;
}

/**
 * Parses CIDRs (`10.0.0.0/8`, `fe80::/10`; a bare address means that one address). Throws an Error
 * naming the first malformed entry; callers turn it into their own usage error.
 */
export function parseNetworkPolicy(cidrs: readonly string[]): NetworkPolicy {
  const rules = cidrs.map(parseRule);
  const deniedBy = (address: string): string | null => {
    const bare = unbracket(address);
    const family = net.isIP(bare);
    if (family === 0) return null;
    const type: 'ipv4' | 'ipv6' = family === 4 ? 'ipv4' : 'ipv6';
    const candidates = isUnspecifiedAddress(bare) ? [{ address: bare, type }, ...LOOPBACK_EQUIVALENTS] : [{ address: bare, type }];
    return rules.find((rule) => candidates.some((candidate) => rule.list.check(candidate.address, candidate.type)))?.text ?? null;
  };
  return {
    rules: rules.map((rule) => rule.text),
    deniedBy,
    refusal(address) {
      const rule = deniedBy(address);
      return rule === null ? null : new NetworkPolicyRefusal(unbracket(address), rule);
    },
  };
}

function parseRule(cidr: string): Rule {
  const text = cidr.trim();
  const slash = text.indexOf('/');
  const address = slash < 0 ? text : text.slice(0, slash);
  const family = net.isIP(address);
  if (family === 0) throw new Error(`"${cidr}" is not a CIDR: "${address}" is not an IPv4 or IPv6 address (expected e.g. 169.254.0.0/16 or fe80::/10)`);
  const bits = family === 4 ? 32 : 128;
  const prefixText = slash < 0 ? String(bits) : text.slice(slash + 1);
  const prefix = Number(prefixText);
  if (!/^\d{1,3}$/.test(prefixText) || prefix > bits) {
    throw new Error(`"${cidr}" is not a CIDR: the prefix length must be a whole number from 0 to ${bits} for an IPv${family} address`);
  }
  const list = new net.BlockList();
  list.addSubnet(address, prefix, family === 4 ? 'ipv4' : 'ipv6');
  return { text: `${address}/${prefix}`, list };
}

/** `[::1]` (a URL's host) → `::1`. */
function unbracket(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

type LookupAddress = { address: string; family: number };

/**
 * A `lookup` for `net.connect`/undici that resolves every address of the name and drops the
 * denied ones: the connection goes to the first allowed address, or fails with the refusal of the
 * first denied one when none is allowed, before any socket is opened.
 */
export function guardLookup(policy: NetworkPolicy, lookup: LookupFunction = dns.lookup as LookupFunction): LookupFunction {
  return (hostname, options, callback) => {
    // dgram and older callers pass the family as a bare number (`lookup(name, 4, cb)`).
    const normalised: dns.LookupOptions = typeof options === 'number' ? { family: options } : { ...(options as dns.LookupOptions) };
    const wantsAll = normalised.all === true;
    const reply = callback as (error: NodeJS.ErrnoException | null, address?: string | LookupAddress[], family?: number) => void;
    lookup(hostname, { ...normalised, all: true }, ((error: NodeJS.ErrnoException | null, addresses: LookupAddress[] | string, family?: number) => {
      if (error) return reply(error);
      const all: LookupAddress[] = typeof addresses === 'string' ? [{ address: addresses, family: family ?? net.isIP(addresses) }] : addresses;
      const allowed = all.filter((entry) => policy.deniedBy(entry.address) === null);
      const first = allowed[0];
      if (first === undefined) {
        const denied = all[0];
        return reply(denied ? policy.refusal(denied.address) : Object.assign(new Error(`no address found for ${hostname}`), { code: 'ENOTFOUND' }));
      }
      return wantsAll ? reply(null, allowed) : reply(null, first.address, first.family);
    }) as Parameters<LookupFunction>[2]);
  };
}
