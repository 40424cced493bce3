/**
 * Agent keys: one or more secret keys per location, given to `vigil server` as `LOCATION=KEY`. An
 * agent presenting a key runs that location's jobs and nothing else; a key never reads the API
 * (account keys do that), and an account key is never an agent key.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { AgentLocation } from '@vigil/schema';

/** Shorter keys are refused: a key is the only thing between the network and a location's jobs. */
export const MIN_AGENT_KEY_LENGTH = 16;

export interface AgentKey {
  readonly location: string;
  readonly key: string;
}

export class AgentKeyError extends Error {
  override readonly name = 'AgentKeyError';
}

/**
 * One `LOCATION=KEY` spec. `where` names its origin in the error (the flag, or file:line), never the
 * key itself: the message may reach a terminal or a log.
 */
export function parseAgentKey(spec: string, where: string): AgentKey {
  const at = spec.indexOf('=');
  if (at <= 0) throw new AgentKeyError(`${where}: expected LOCATION=KEY`);
  const location = spec.slice(0, at).trim();
  const key = spec.slice(at + 1).trim();
  if (!AgentLocation.safeParse(location).success) throw new AgentKeyError(`${where}: location "${location}" must be 1 to 64 characters, without "@" or white space`);
  if (key.length < MIN_AGENT_KEY_LENGTH) throw new AgentKeyError(`${where}: the key of location ${location} is shorter than ${MIN_AGENT_KEY_LENGTH} characters`);
  if (/\s/.test(key)) throw new AgentKeyError(`${where}: the key of location ${location} contains white space`);
  return { location, key };
}

/** A keys file: one `LOCATION=KEY` a line; blank lines and lines starting with `#` are skipped. */
export function parseAgentKeysFile(text: string, file: string): AgentKey[] {
  return text.split(/\r?\n/).flatMap((line, index) => {
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) return [];
    return [parseAgentKey(trimmed, `${file}:${index + 1}`)];
  });
}

const digest = (key: string) => createHash('sha256').update(key).digest();

/** Which location a presented key is for, compared in constant time. */
export class AgentKeyRing {
  readonly #keys: Array<{ location: string; digest: Buffer }>;

  constructor(keys: readonly AgentKey[]) {
    const seen = new Map<string, string>();
    for (const { location, key } of keys) {
      const other = seen.get(key);
      if (other !== undefined && other !== location) throw new AgentKeyError(`one key is given for two locations (${other} and ${location}); give each location its own`);
      seen.set(key, location);
    }
    this.#keys = keys.map(({ location, key }) => ({ location, digest: digest(key) }));
  }

  get size(): number {
    return this.#keys.length;
  }

  /** The locations that have at least one key. */
  locations(): string[] {
    return [...new Set(this.#keys.map((entry) => entry.location))];
  }

  locationOf(presented: string): string | undefined {
    const candidate = digest(presented);
    let found: string | undefined;
    // Every key is compared, so the time taken says nothing about which one matched.
    for (const entry of this.#keys) if (timingSafeEqual(entry.digest, candidate)) found ??= entry.location;
    return found;
  }
}

/**
 * Keys given as flags plus those of a keys file, the file read again when it changes (looked at
 * most once a second), so a key removed from it is refused from the next request on without a
 * restart. A file that stops parsing keeps the keys read before, and says why through `warn`.
 */
export function agentKeySource(options: { keys: readonly AgentKey[]; file?: string; warn: (message: string) => void; readFile: (file: string) => { text: string; stamp: string } }): () => AgentKeyRing {
  const { file } = options;
  const build = (fromFile: readonly AgentKey[]) => new AgentKeyRing([...options.keys, ...fromFile]);
  if (file === undefined) {
    const ring = build([]);
    return () => ring;
  }
  const first = options.readFile(file);
  let stamp = first.stamp;
  let ring = build(parseAgentKeysFile(first.text, file));
  let lookedAt = Date.now();
  return () => {
    const now = Date.now();
    if (now - lookedAt < 1000) return ring;
    lookedAt = now;
    try {
      const current = options.readFile(file);
      if (current.stamp === stamp) return ring;
      stamp = current.stamp;
      ring = build(parseAgentKeysFile(current.text, file));
    } catch (error) {
      options.warn(`vigil server: keeping the agent keys read before: ${(error as Error).message}`);
    }
    return ring;
  };
}
