import path from 'node:path';
import { BrowserCheck, type Construct, type Diagnostic, type Project, type SourceLocation, type VigilConfig } from '@vigil/constructs';
import { checkMatchPatterns, reachesOutsideRoot } from './discover.js';
import { addSpecFileChecks } from './test-match.js';

/** Structural view of a group that may carry `browserChecks` (it may come from another package copy). */
interface GroupWithBrowserChecks {
  readonly kind: string;
  readonly address: string;
  readonly source: SourceLocation;
  readonly loadedFrom?: string | undefined;
  readonly props?: { browserChecks?: { testMatch?: unknown } };
}

/**
 * `browserChecks.testMatch`: one BrowserCheck per matching spec file, as Checkly's CLI does. First
 * each group's (globs relative to the file that was loading when it was made; the checks join the group and are named by the
 * match), then the config's `checks.browserChecks` (globs relative to the root; named after the
 * file), which skips files a check already runs. Logical id: the file's path from the root.
 */
export async function addBrowserSpecChecks(
  project: Project,
  root: string,
  config: VigilConfig,
  exclude: readonly string[],
  configSource: SourceLocation | undefined,
): Promise<Diagnostic[]> {
  const diagnostics: Diagnostic[] = [];
  for (const construct of project.constructs()) {
    const group = construct as unknown as GroupWithBrowserChecks;
    const testMatch = group.kind === 'check-group' ? group.props?.browserChecks?.testMatch : undefined;
    if (testMatch === undefined) continue;
    // From the file being loaded when the group was made (Checkly's rule), not a helper's.
    const groupDir = path.dirname(path.resolve(root, group.loadedFrom ?? group.source.file));
    const fromRoot = path.relative(root, groupDir).split(path.sep).join('/');
    const patterns: string[] = [];
    for (const pattern of checkMatchPatterns(testMatch)) {
      const rooted = path.posix.normalize(fromRoot === '' ? pattern : `${fromRoot}/${pattern}`);
      if (reachesOutsideRoot(pattern) || reachesOutsideRoot(rooted)) {
        diagnostics.push({
          severity: 'error',
          message: `browserChecks.testMatch pattern "${pattern}" reaches outside the project root ${root}`,
          hint: "A group's patterns are relative to the group's file and stay inside the project root.",
          address: group.address,
          path: 'browserChecks.testMatch',
          source: group.source,
        });
        continue;
      }
      patterns.push(rooted);
    }
    diagnostics.push(
      ...(await addSpecFileChecks({
        project,
        root,
        testMatch: patterns,
        option: 'browserChecks.testMatch',
        ignoreDirectoriesMatch: config.checks?.ignoreDirectoriesMatch,
        exclude,
        kind: 'browser-check',
        create: (logicalId, file) =>
          new BrowserCheck(logicalId, {
            name: path.relative(groupDir, file).split(path.sep).join('/'),
            group: construct as never,
            code: { entrypoint: file },
          }) as Construct,
        configSource,
      })),
    );
  }
  diagnostics.push(
    ...(await addSpecFileChecks({
      project,
      root,
      testMatch: config.checks?.browserChecks?.testMatch,
      option: 'checks.browserChecks.testMatch',
      ignoreDirectoriesMatch: config.checks?.ignoreDirectoriesMatch,
      exclude,
      kind: 'browser-check',
      create: (logicalId, file) => new BrowserCheck(logicalId, { name: path.basename(file), code: { entrypoint: file } }),
      configSource,
    })),
  );
  return diagnostics;
}
