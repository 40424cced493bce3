/**
 * Loaded with `--import` (through NODE_OPTIONS) into the Playwright processes of a multi-step run,
 * before the spec: installs the network policy named in VIGIL_DENY_NETWORKS (comma-separated
 * CIDRs; not secret) with ./network-policy-guard.ts. Playwright forks its workers with the
 * environment it got, so they load it too. The CLI bundle ships it as dist/network-policy-preload.mjs.
 */
import { installSocketGuard } from './network-policy-guard.js';
import { parseNetworkPolicy } from './network-policy.js';

installSocketGuard(parseNetworkPolicy((process.env.VIGIL_DENY_NETWORKS ?? '').split(',').filter((rule) => rule !== '')));
