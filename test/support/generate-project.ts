/**
 * Writes a realistic monitor project of any size to a directory: `files` monitor files, each with a
 * check group and `checksPerFile` API checks in it (every fifth one subscribed to a shared alert
 * channel). Used by the apply crash suite and the benchmarks, so both measure the same shape.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

export interface GeneratedProject {
  readonly root: string;
  readonly configPath: string;
  /** Addresses of every resource, for assertions. */
  readonly addresses: readonly string[];
  /** Names of every check, unique, for counting remote duplicates. */
  readonly checkNames: readonly string[];
}

export interface GenerateOptions {
  readonly root: string;
  readonly files: number;
  readonly checksPerFile: number;
  /** Changes every check's `frequency`, to produce an update of everything. */
  readonly frequency?: number;
  /** Extra text for the config's `checks` defaults. */
  readonly projectName?: string;
}

export async function generateProject(options: GenerateOptions): Promise<GeneratedProject> {
  const { root, files, checksPerFile } = options;
  await mkdir(path.join(root, 'monitors'), { recursive: true });
  const configPath = path.join(root, 'vigil.config.ts');
  await writeFile(
    configPath,
    [
      "import { defineConfig } from 'vigil';",
      '',
      'export default defineConfig({',
      `  projectName: ${JSON.stringify(options.projectName ?? 'generated')},`,
      "  logicalId: 'generated',",
      "  checks: { locations: ['eu-west-1', 'us-east-1'], tags: ['generated'] },",
      '});',
      '',
    ].join('\n'),
  );
  await writeFile(
    path.join(root, 'monitors', 'channels.ts'),
    [
      "import { EmailAlertChannel } from 'vigil/constructs';",
      '',
      "export const oncall = new EmailAlertChannel('oncall', { address: 'oncall@example.com' });",
      '',
    ].join('\n'),
  );
  const addresses: string[] = ['alert-channel.oncall'];
  const checkNames: string[] = [];
  for (let file = 0; file < files; file += 1) {
    const lines = [
      "import { ApiCheck, AssertionBuilder, CheckGroup } from 'vigil/constructs';",
      "import { oncall } from './channels';",
      '',
      `const group = new CheckGroup('group-${file}', { name: 'Group ${file}', concurrency: 2, tags: ['team-${file % 7}'] });`,
      '',
    ];
    addresses.push(`check-group.group-${file}`);
    for (let check = 0; check < checksPerFile; check += 1) {
      const id = `check-${file}-${check}`;
      const name = `Check ${file}/${check}`;
      addresses.push(`api-check.${id}`);
      checkNames.push(name);
      lines.push(
        `new ApiCheck('${id}', {`,
        `  name: '${name}',`,
        '  group,',
        `  frequency: ${options.frequency ?? 10},`,
        check % 5 === 0 ? '  alertChannels: [oncall],' : '',
        `  request: { url: 'https://example.com/${file}/${check}', assertions: [AssertionBuilder.statusCode().equals(200)] },`,
        '});',
      );
    }
    await writeFile(path.join(root, 'monitors', `team-${file}.monitor.ts`), `${lines.filter((line) => line !== '').join('\n')}\n`);
  }
  return { root, configPath, addresses, checkNames };
}
