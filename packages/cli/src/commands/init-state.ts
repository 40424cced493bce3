/**
 * What `vigil init --state BACKEND` writes about state: the config's `state` block, the .gitignore
 * header, and the next steps' note on what to commit (the local file, or nothing with a remote
 * backend) and how to move state later with `vigil state migrate`.
 */

/** A single-quoted TypeScript string literal, as the rest of the generated code is written. */
export function quoted(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** The state backends `vigil init --state` sets up; `local` writes no `state` block (it is the default). */
export const INIT_STATE_BACKENDS = ['local', 'service', 'http', 'postgres', 's3'] as const;
export type InitStateBackend = (typeof INIT_STATE_BACKENDS)[number];

/** With state on a remote backend, what Vigil keeps under .vigil/ is all local. */
export const REMOTE_GITIGNORE_ENTRIES: readonly string[] = ['.vigil/'];

export function gitignoreHeader(backend: InitStateBackend): string {
  return backend === 'local'
    ? '# vigil: local service data, load bundles, the state lock. Commit .vigil/state.json (and a .wal beside it): it is the state.'
    : `# vigil: state is kept on the ${backend} backend (vigil.config.ts), so nothing under .vigil/ is committed.`;
}

/** Lines of a .gitignore that keep `.vigil/state.json` out of git, whoever wrote them. */
const STATE_IGNORING_LINES = new Set(['.vigil', '.vigil/', '/.vigil', '/.vigil/', '.vigil/*', '/.vigil/*', '.vigil/state.json', '/.vigil/state.json', 'state.json', '*.json', '**/.vigil/']);

/** The config's `state` block for `backend`, with what the user must fill in or export said beside it. */
export function stateSource(backend: InitStateBackend, logicalId: string): string {
  switch (backend) {
    case 'local':
      return `  // State (what Vigil created) is .vigil/state.json: commit it. To share it without git, keep it on
  // a remote backend ('service', 'http', 'postgres' or 's3'; docs/state.md), e.g.
  // state: { backend: 'service' }, then run \`vigil state migrate --from local\` once.
`;
    case 'service':
      return `  // State lives on the service this project targets (VIGIL_API_URL, VIGIL_API_KEY): nothing to commit.
  state: { backend: 'service' },
`;
    case 'http':
      return `  // State lives on a server speaking Terraform's http backend protocol: put its address here, and
  // export VIGIL_STATE_HTTP_TOKEN (or VIGIL_STATE_HTTP_USERNAME and VIGIL_STATE_HTTP_PASSWORD).
  state: { backend: 'http', address: ${quoted(`https://tfstate.example.com/${logicalId}`)} },
`;
    case 'postgres':
      return `  // State lives in PostgreSQL: export VIGIL_STATE_PG_URL (postgres://user:password@host:5432/database).
  state: { backend: 'postgres' },
`;
    case 's3':
      return `  // State lives in an S3 bucket: name yours here, and export AWS_ACCESS_KEY_ID,
  // AWS_SECRET_ACCESS_KEY and AWS_REGION (or set region).
  state: { backend: 's3', bucket: 'my-vigil-state', key: ${quoted(`vigil/${logicalId}.json`)} },
`;
  }
}

/** The first line of `.gitignore` text that keeps the local state file out of git, if any (negations are not followed). */
export function stateIgnoredBy(text: string): string | undefined {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .find((line) => STATE_IGNORING_LINES.has(line));
}

/**
 * What the next steps say about state: where it is kept, what to commit (the local file, or nothing
 * with a remote backend), what to export, and how to move it later (`vigil state migrate`).
 */
export function stateNote(backend: InitStateBackend, ignoredBy: string | undefined): string[] {
  const migrate = 'set state in vigil.config.ts to a remote backend (service, http, postgres or s3) and run vigil state migrate --from local';
  if (backend === 'local' && ignoredBy !== undefined) {
    return [
      `Your .gitignore ignores .vigil/state.json ("${ignoredBy}"): then only this checkout knows what Vigil created, and an`,
      'apply from any other (a teammate, CI) would create everything again. Commit it (drop that line),',
      `or keep state where every checkout finds it: ${migrate}.`,
    ];
  }
  if (backend === 'local') {
    return [
      'Commit .vigil/state.json with your monitors (and a .vigil/state.json.wal beside it, if a killed apply left',
      `one): it is how Vigil knows what it created. To keep it out of git instead, ${migrate}.`,
    ];
  }
  const exports: Record<Exclude<InitStateBackend, 'local'>, string> = {
    service: 'it uses VIGIL_API_URL and VIGIL_API_KEY, as plan and apply do',
    http: "set its address in vigil.config.ts and export VIGIL_STATE_HTTP_TOKEN (or VIGIL_STATE_HTTP_USERNAME and VIGIL_STATE_HTTP_PASSWORD)",
    postgres: 'export VIGIL_STATE_PG_URL (postgres://user:password@host:5432/database)',
    s3: 'set bucket and key in vigil.config.ts and export AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_REGION',
  };
  return [
    `State is kept on the ${backend} backend, so nothing under .vigil/ is committed: ${exports[backend]}.`,
    'State applied elsewhere before moves there with vigil state migrate --from local (or --from another backend).',
  ];
}
