/**
 * `url` props that are not absolute http(s) URLs used to validate and plan (a check of
 * `example.com/x` only fails when it runs); now each is an error at the construct's file:line,
 * naming the field, with `{{NAME}}` placeholders accepted — except a webhook's, which the service
 * stores as any text (projects keep placeholders there), so it is a warning. Hints name no
 * internal spec sections.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LOCATIONS } from '@vigil/schema';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { vigil } from '../support/cli.js';

let root: string;

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'vigil-urls-'));
  await mkdir(path.join(root, 'checks'));
  await writeFile(
    path.join(root, 'vigil.config.ts'),
    "import { defineConfig } from 'vigil';\nexport default defineConfig({ projectName: 'shop', logicalId: 'shop', checks: { locations: ['mars-1' as never] } });\n",
  );
  await writeFile(
    path.join(root, 'checks', 'urls.monitor.ts'),
    [
      "import { ApiCheck, CheckGroupV2, SlackAlertChannel, WebhookAlertChannel } from 'vigil/constructs';",
      "new ApiCheck('bare', { name: 'Bare', locations: ['eu-west-1'], request: { url: 'example.com/orders' } });",
      "new ApiCheck('ftp', { name: 'Ftp', locations: ['eu-west-1'], request: { url: 'ftp://example.com/' } });",
      "new ApiCheck('templated', { name: 'Templated', locations: ['eu-west-1'], request: { url: '{{BASE_URL}}/orders' } });",
      "new ApiCheck('placeholders', { name: 'Placeholders', locations: ['eu-west-1'], request: { url: 'https://{{HOST}}:{{PORT}}/orders' } });",
      "new CheckGroupV2('group', { name: 'Group', locations: ['eu-west-1'], apiCheckDefaults: { url: 'api.example.com' } });",
      "new WebhookAlertChannel('hook', { name: 'Hook', url: '/hooks/alerts' });",
      "new SlackAlertChannel('slack', { url: 'hooks.slack.com/services/T0' });",
      '',
    ].join('\n'),
  );
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('url values', () => {
  it('that are not absolute http(s) URLs are errors at file:line naming the field (a webhook URL only a warning); placeholders pass', async () => {
    const result = await vigil(['validate'], { cwd: root });
    const placeholders = '{{NAME}} placeholders are allowed, e.g. "{{BASE_URL}}/health".';
    expect(result).toEqual({
      code: 1,
      signal: null,
      stdout: [
        'checks/urls.monitor.ts:2:1  error  "request.url" must be an absolute http:// or https:// URL, got "example.com/orders"  (api-check.bare.request.url)',
        `  hint: Did you mean "https://example.com/orders"? ${placeholders}`,
        'checks/urls.monitor.ts:3:1  error  "request.url" must be an absolute http:// or https:// URL, got "ftp://example.com/"  (api-check.ftp.request.url)',
        `  hint: ${placeholders}`,
        'checks/urls.monitor.ts:6:1  error  "apiCheckDefaults.url" must be an absolute http:// or https:// URL, got "api.example.com"  (check-group.group.apiCheckDefaults.url)',
        `  hint: Did you mean "https://api.example.com"? ${placeholders}`,
        'checks/urls.monitor.ts:7:1  warning  "url" is not an absolute http:// or https:// URL (got "/hooks/alerts"): the service stores it, but every notification to it will fail  (alert-channel.hook.url)',
        "  hint: Set the receiver's URL before relying on this channel.",
        'checks/urls.monitor.ts:8:1  error  "url" must be an absolute http:// or https:// URL, got "hooks.slack.com/services/T0"  (alert-channel.slack.url)',
        `  hint: Did you mean "https://hooks.slack.com/services/T0"? ${placeholders}`,
        `vigil.config.ts:2:16  error  vigil.config: "checks.locations[0]" must be one of [${LOCATIONS.join(', ')}]`,
        '  hint: Use data-center locations such as "eu-west-1" or "us-east-1".',
        '5 errors, 1 warning',
        '',
      ].join('\n'),
      stderr: '',
    });
    expect(result.stdout).not.toContain('§');
  });
});
