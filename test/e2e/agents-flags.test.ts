/**
 * `vigil agent` and the agent flags of `vigil server`: every bad value is refused before anything
 * starts (exit 2, the rule named), and an agent whose key the server does not have stops at once
 * with exit 1 and the server's answer.
 */
import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startVigilServer, vigil } from '../support/cli.js';

const KEY = 'eu-west-1-agent-key-flags';
let service: Awaited<ReturnType<typeof startVigilServer>> | undefined;

afterAll(() => {
  service?.child.kill('SIGKILL');
});

const agent = (args: string[], env: Record<string, string> = {}) => vigil(['agent', ...args], { cwd: tmpdir(), env: { VIGIL_AGENT_KEY: '', ...env } });

describe('vigil agent flags', () => {
  it.each([
    [['--server', 'http://127.0.0.1:1', '--location', 'eu-west-1'], {}, 'an agent key is needed: --key KEY or VIGIL_AGENT_KEY'],
    [['--server', 'ftp://example', '--location', 'eu-west-1', '--key', KEY], {}, '--server must be an http(s) URL, got "ftp://example"'],
    [['--server', 'http://user:pw@127.0.0.1:1', '--location', 'eu-west-1', '--key', KEY], {}, '--server must not carry credentials: give the key with --key or VIGIL_AGENT_KEY'],
    [['--server', 'http://127.0.0.1:1', '--location', 'eu west', '--key', KEY], {}, '--location must be 1 to 64 characters, without "@" or white space, got "eu west"'],
    [['--server', 'http://127.0.0.1:1', '--key', KEY], {}, 'which location does this agent run? --location LOCATION or --private-location SLUG'],
    [['--server', 'http://127.0.0.1:1', '--location', 'eu-west-1', '--private-location', 'office-dc', '--key', KEY], {}, 'give either --location or --private-location, not both'],
    [
      ['--server', 'http://127.0.0.1:1', '--private-location', 'eu-west-1', '--key', KEY],
      {},
      '--private-location must be a private location\'s slugName: 1 to 30 letters, digits or dashes, and not a data-center location name such as "eu-west-1", got "eu-west-1"',
    ],
    [['--server', 'http://127.0.0.1:1', '--location', 'eu-west-1', '--concurrency', '0'], { VIGIL_AGENT_KEY: KEY }, '--concurrency must be a whole number from 1 to 1000, got "0"'],
    [['--server', 'http://127.0.0.1:1', '--location', 'eu-west-1', '--drain', 'soon'], { VIGIL_AGENT_KEY: KEY }, '--drain must be a number of seconds from 0 to 3600, got "soon"'],
    [['--server', 'http://127.0.0.1:1', '--location', 'eu-west-1', '--id', 'a b'], { VIGIL_AGENT_KEY: KEY }, '--id must be 1 to 100 letters, digits, ".", "_", ":" or "-", got "a b"'],
  ])('vigil agent %j exits 2: %s', async (args, env, message) => {
    const result = await agent(args, env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
    expect(result.stderr).not.toContain(KEY);
  }, 60_000);

  it('stops with exit 1 and the server’s answer when its key is refused', async () => {
    service = await startVigilServer(['--data', ':memory:', '--agent-key', `eu-west-1=${KEY}`]);
    const refused = await agent(['--server', service.url, '--location', 'eu-west-1', '--id', 'agent-x'], { VIGIL_AGENT_KEY: 'not-the-right-key-0123' });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('vigil agent agent-x (eu-west-1): the server refused this agent (401): Bad Token');
    const elsewhere = await agent(['--server', service.url, '--location', 'us-east-1', '--id', 'agent-y'], { VIGIL_AGENT_KEY: KEY });
    expect(elsewhere.code).toBe(1);
    expect(elsewhere.stderr).toContain('vigil agent agent-y (us-east-1): the server refused this agent (403): this agent key is for location eu-west-1, not us-east-1');
  }, 60_000);
});

describe('vigil server agent flags', () => {
  const missing = path.join(tmpdir(), 'vigil-no-such-agent-keys');
  const badFile = path.join(tmpdir(), `vigil-bad-agent-keys-${process.pid}`);
  afterAll(() => rm(badFile, { force: true }));

  it.each([
    [['--agent-lease', '90s'], '--agent-lease must be a duration from 1s to 60s (e.g. 30s or 1500ms), got "90s"'],
    [['--agent-lease', '500ms'], '--agent-lease must be a duration from 1s to 60s (e.g. 30s or 1500ms), got "500ms"'],
    [['--local-locations', ' , '], '--local-locations must list locations, or be none'],
    [['--agent-key', `eu-west-1=${KEY}`, '--no-scheduler'], '--agent-key, --agent-keys-file, --local-locations and --agent-lease need the scheduler: drop --no-scheduler'],
    [['--agent-key', 'eu-west-1=short'], '--agent-key: the key of location eu-west-1 is shorter than 16 characters'],
    [['--agent-keys-file', missing], `--agent-keys-file ${missing}: no such file`],
    [['--agent-keys-file', badFile], `${badFile}:2: expected LOCATION=KEY`],
  ])('vigil server %j exits 2: %s', async (args, message) => {
    await writeFile(badFile, `eu-west-1=${KEY}\nno equals sign\n`);
    const result = await vigil(['server', '--port', '0', '--data', ':memory:', ...args], { cwd: tmpdir() });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(message);
  }, 60_000);
});
