import { describe, expect, it } from 'vitest';
import { AgentKeyRing, agentKeySource, parseAgentKey, parseAgentKeysFile } from './keys.js';

const KEY = 'a-long-enough-agent-key';

describe('agent keys', () => {
  it('reads LOCATION=KEY', () => {
    expect(parseAgentKey(` eu-west-1 = ${KEY} `, '--agent-key')).toEqual({ location: 'eu-west-1', key: KEY });
  });

  it.each([
    ['eu-west-1', '--agent-key: expected LOCATION=KEY'],
    [`=${KEY}`, '--agent-key: expected LOCATION=KEY'],
    [`eu@west=${KEY}`, '--agent-key: location "eu@west" must be 1 to 64 characters, without "@" or white space'],
    ['eu-west-1=short', '--agent-key: the key of location eu-west-1 is shorter than 16 characters'],
    ['eu-west-1=has space inside it', '--agent-key: the key of location eu-west-1 contains white space'],
  ])('refuses %j without showing the key', (spec, message) => {
    expect(() => parseAgentKey(spec, '--agent-key')).toThrow(message);
  });

  it('reads a keys file, skipping blank lines and comments, naming file:line on a bad line', () => {
    expect(parseAgentKeysFile(`# keys\n\neu-west-1=${KEY}\r\nus-east-1=${KEY}-2\n`, 'keys')).toEqual([
      { location: 'eu-west-1', key: KEY },
      { location: 'us-east-1', key: `${KEY}-2` },
    ]);
    expect(() => parseAgentKeysFile(`eu-west-1=${KEY}\nnonsense\n`, 'keys')).toThrow('keys:2: expected LOCATION=KEY');
  });

  it('finds the location of a key, several keys per location, and refuses one key for two locations', () => {
    const ring = new AgentKeyRing([
      { location: 'eu-west-1', key: KEY },
      { location: 'eu-west-1', key: `${KEY}-new` },
      { location: 'us-east-1', key: `${KEY}-us` },
    ]);
    expect(ring.locationOf(`${KEY}-new`)).toBe('eu-west-1');
    expect(ring.locationOf(`${KEY}-us`)).toBe('us-east-1');
    expect(ring.locationOf('not-a-key-at-all-here')).toBeUndefined();
    expect(ring.locations()).toEqual(['eu-west-1', 'us-east-1']);
    expect(() => new AgentKeyRing([{ location: 'eu-west-1', key: KEY }, { location: 'us-east-1', key: KEY }])).toThrow(
      'one key is given for two locations (eu-west-1 and us-east-1); give each location its own',
    );
  });

  it('reads a changed keys file again, so a removed key is refused, and keeps the old keys when the file breaks', async () => {
    let file = { text: `eu-west-1=${KEY}\n`, stamp: '1' };
    const warnings: string[] = [];
    const keys = agentKeySource({ keys: [], file: 'keys', warn: (message) => warnings.push(message), readFile: () => file });
    expect(keys().locationOf(KEY)).toBe('eu-west-1');
    file = { text: '# revoked\n', stamp: '2' };
    // The file is looked at again at most once a second.
    await new Promise((resolve) => setTimeout(resolve, 1050));
    expect(keys().locationOf(KEY)).toBeUndefined();
    file = { text: 'broken\n', stamp: '3' };
    await new Promise((resolve) => setTimeout(resolve, 1050));
    expect(keys().size).toBe(0);
    expect(warnings).toEqual(['vigil server: keeping the agent keys read before: keys:1: expected LOCATION=KEY']);
  });
});
