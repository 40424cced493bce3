/** The hub refuses periods it could not keep, naming the bad value. */
import { describe, expect, it } from 'vitest';
import { AgentHub } from './hub.js';

// The constructor checks its options before it uses the ports: none are needed to see a refusal.
const noPorts = { agentLeases: undefined, agentPresence: undefined } as never;

describe('agent hub options', () => {
  it('refuses a lease period outside 1 s to 60 s', () => {
    expect(() => new AgentHub({ ports: noPorts, leaseMs: 999 })).toThrow(new RangeError('the agent lease must be from 1 s to 60 s, not 999 ms'));
    expect(() => new AgentHub({ ports: noPorts, leaseMs: 60_001 })).toThrow(new RangeError('the agent lease must be from 1 s to 60 s, not 60001 ms'));
  });

  it('refuses a sweep period that is not a whole number of milliseconds of at least 1', () => {
    expect(() => new AgentHub({ ports: noPorts, sweepEveryMs: 0 })).toThrow(new RangeError('the agent sweep period must be a whole number of milliseconds of at least 1, not 0'));
    expect(() => new AgentHub({ ports: noPorts, sweepEveryMs: 2.5 })).toThrow(new RangeError('the agent sweep period must be a whole number of milliseconds of at least 1, not 2.5'));
  });
});
