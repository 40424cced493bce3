import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DashboardCreate } from '@vigil/schema';
import { afterAll, describe, expect, it } from 'vitest';
import { load, markerLocation, problems, specOf } from './__fixtures__/load.js';
import { Dashboard, type DashboardProps } from './dashboard.js';
import type { Diagnostic } from './types.js';

const base: DashboardProps = { customUrl: 'acme-status', header: 'Acme status' };
type Expected = Pick<Diagnostic, 'severity' | 'path' | 'message' | 'hint'>;
const error = (path: string, message: string, hint?: string): Expected => ({ severity: 'error', path, message, ...(hint ? { hint } : {}) });
const URL_HINT = 'Use an absolute http or https URL, e.g. "https://example.com/logo.png".';
const CSS_HINT = "For example `customCSS: { entrypoint: './dashboard.css' }`.";

/** A project directory with a CSS file in it, and another directory outside it. */
const root = mkdtempSync(path.join(tmpdir(), 'vigil-dashboard-'));
const outside = mkdtempSync(path.join(tmpdir(), 'vigil-dashboard-outside-'));
writeFileSync(path.join(root, 'dashboard.css'), '.header { color: teal; }\n');
writeFileSync(path.join(outside, 'secret.css'), 'secret');
symlinkSync(path.join(outside, 'secret.css'), path.join(root, 'linked.css'));
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

const rules: Array<[string, Partial<DashboardProps>, Expected[]]> = [
  ['accepts a custom domain instead of a URL', { customUrl: undefined, customDomain: 'status.example.com' }, []],
  ['accepts every prop', { tags: ['prod'], useTagsAndOperator: true, logo: 'https://example.com/logo.png', width: '960PX', refreshRate: 600, paginationRate: 30, checksPerPage: 20, isPrivate: true }, []],
  [
    'rejects a dashboard with neither customUrl nor customDomain',
    { customUrl: undefined },
    [error('customUrl', '"customUrl" or "customDomain" is required', 'Serve the dashboard at a subdomain with customUrl: "acme-status", or at a domain of yours with customDomain: "status.example.com".')],
  ],
  [
    'rejects a customUrl that is a whole host name',
    { customUrl: 'status.acme.com' },
    [
      error(
        'customUrl',
        '"customUrl" must be a subdomain name: 1 to 63 letters, digits or dashes, not starting or ending with a dash, got "status.acme.com"',
        'customUrl is the subdomain alone, e.g. "acme-status"; put a whole host name such as "status.example.com" in customDomain.',
      ),
    ],
  ],
  [
    'rejects a customDomain with a scheme',
    { customDomain: 'https://status.example.com' },
    [error('customDomain', '"customDomain" must be a domain name such as "status.example.com", got "https://status.example.com"', 'customDomain is a host name alone, e.g. "status.example.com", without scheme or path.')],
  ],
  ['rejects a javascript: link', { link: 'javascript:alert(1)' }, [error('link', '"link" must be an http or https URL (or ""), got "javascript:alert(1)"', URL_HINT)]],
  ['rejects a relative logo', { logo: '/logo.png' }, [error('logo', '"logo" must be an http or https URL (or ""), got "/logo.png"', URL_HINT)]],
  ['rejects a refreshRate Checkly does not offer', { refreshRate: 120 as never }, [error('refreshRate', '"refreshRate" must be one of [60, 300, 600]')]],
  ['rejects checksPerPage 0', { checksPerPage: 0 }, [error('checksPerPage', '"checksPerPage" must be greater than or equal to 1')]],
  ['rejects an unknown width', { width: 'HALF' as never }, [error('width', '"width" must be one of [FULL, 960PX]')]],
  ['rejects a tag that is not a string', { tags: ['prod', 1 as never] }, [error('tags[1]', '"tags[1]" must be a string')]],
  ['rejects customCSS with both entrypoint and content', { customCSS: { entrypoint: './a.css', content: 'b' } as never }, [error('customCSS', '"customCSS" must have exactly one of "entrypoint" (a CSS file) or "content" (the CSS itself)', CSS_HINT)]],
  ['rejects customCSS as a plain string', { customCSS: '.a {}' as never }, [error('customCSS', '"customCSS" must have exactly one of "entrypoint" (a CSS file) or "content" (the CSS itself)', CSS_HINT)]],
  [
    'rejects a CSS file that does not exist',
    { customCSS: { entrypoint: path.join(root, 'missing.css') } },
    [error('customCSS.entrypoint', `"customCSS.entrypoint" file not found: ${path.join(root, 'missing.css')}`, 'The file is resolved relative to the file being loaded (the monitor or check file), as in Checkly.')],
  ],
  [
    'rejects a CSS file outside the project root',
    { customCSS: { entrypoint: path.join(outside, 'secret.css') } },
    [
      error(
        'customCSS.entrypoint',
        `"customCSS.entrypoint" (${path.join(outside, 'secret.css')}) is outside the project root, so it cannot be uploaded with the dashboard`,
        `Keep the CSS file inside the project root (${root}), or pass the CSS itself as { content }.`,
      ),
    ],
  ],
  [
    'rejects a link in the project pointing outside it',
    { customCSS: { entrypoint: path.join(root, 'linked.css') } },
    [
      error(
        'customCSS.entrypoint',
        `"customCSS.entrypoint" (${path.join(root, 'linked.css')} -> ${path.join(outside, 'secret.css')}) is outside the project root, so it cannot be uploaded with the dashboard`,
        `Keep the CSS file inside the project root (${root}), or pass the CSS itself as { content }.`,
      ),
    ],
  ],
  [
    'reports every problem at once',
    { customUrl: undefined, checksPerPage: 21, link: 'ftp://example.com' },
    [
      error('customUrl', '"customUrl" or "customDomain" is required', 'Serve the dashboard at a subdomain with customUrl: "acme-status", or at a domain of yours with customDomain: "status.example.com".'),
      error('link', '"link" must be an http or https URL (or ""), got "ftp://example.com"', URL_HINT),
      error('checksPerPage', '"checksPerPage" must be less than or equal to 20'),
    ],
  ],
];

describe('Dashboard rules', () => {
  it.each(rules)('%s', async (_name, props, expected) => {
    const project = await load(() => {
      new Dashboard('status', { ...base, ...props }); // @at:rule
    }, { root });
    const source = markerLocation(import.meta.url, 'rule');
    expect(project.validate()).toEqual(expected.map((e) => ({ ...e, address: 'dashboard.status', source })));
  });

  it('warns about a prop it does not know, naming the one meant', async () => {
    const project = await load(() => {
      new Dashboard('status', { ...base, refreshrate: 60 } as never); // @at:unknown
    });
    expect(project.validate()).toEqual([
      {
        severity: 'warning',
        address: 'dashboard.status',
        path: 'refreshrate',
        message: '"refreshrate" is not a prop of Dashboard',
        hint: 'Did you mean "refreshRate"?',
        source: markerLocation(import.meta.url, 'unknown'),
      },
    ]);
    expect(specOf(project, 'dashboard.status').payload).not.toHaveProperty('refreshrate');
  });

  it('reports a customUrl or customDomain that an earlier dashboard of the project has, in any case', async () => {
    const project = await load(() => {
      new Dashboard('main', { customUrl: 'acme-status', customDomain: 'status.acme.com' });
      new Dashboard('copy', { customUrl: 'Acme-Status', customDomain: 'STATUS.acme.com' });
    });
    expect(problems(project)).toEqual([
      { ...error('customUrl', '"customUrl" "Acme-Status" is already the customUrl of Dashboard "main"', 'A customUrl names one dashboard across the service; give each dashboard its own.'), address: 'dashboard.copy' },
      { ...error('customDomain', '"customDomain" "STATUS.acme.com" is already the customDomain of Dashboard "main"', 'A customDomain names one dashboard across the service; give each dashboard its own.'), address: 'dashboard.copy' },
    ]);
  });
});

describe('Dashboard payload', () => {
  it("synthesises the create body of POST /v1/dashboards with the real service's defaults", async () => {
    const project = await load(() => {
      new Dashboard('status', { customUrl: 'acme-status' });
    });
    const { payload } = specOf(project, 'dashboard.status');
    expect(payload).toEqual(DashboardCreate.parse({ customUrl: 'acme-status', header: '' }));
    expect(payload).toMatchObject({ header: '', customDomain: null, refreshRate: 60, checksPerPage: 15, tags: [], customCSS: '', showP95: true });
  });

  it("sends every prop Checkly's construct has", async () => {
    const props: DashboardProps = {
      customDomain: 'status.acme.com', header: 'Acme', description: 'All services', tags: ['prod', 'api'], useTagsAndOperator: true,
      logo: 'https://acme.com/logo.png', favicon: 'https://acme.com/favicon.ico', link: 'https://acme.com', width: '960PX',
      refreshRate: 300, paginate: false, paginationRate: 30, checksPerPage: 5, hideTags: true, enableIncidents: true,
      expandChecks: true, showHeader: false, isPrivate: true, showP95: false, showP99: false,
    };
    const project = await load(() => {
      new Dashboard('status', { ...props, customCSS: { content: '.a {}' } });
    });
    expect(specOf(project, 'dashboard.status').payload).toEqual({
      ...props, customUrl: null, customCSS: '.a {}', sortByStatus: false, showCheckRunLinks: false, showGroupNames: true,
    });
  });

  it('reads the CSS of a file in the project', async () => {
    const project = await load(() => {
      new Dashboard('status', { ...base, customCSS: { entrypoint: path.join(root, 'dashboard.css') } });
    }, { root });
    expect(specOf(project, 'dashboard.status').payload.customCSS).toBe('.header { color: teal; }\n');
  });

  it('resolves a relative CSS file from the file that creates the dashboard, as Checkly does', async () => {
    const project = await load(() => {
      new Dashboard('status', { ...base, customCSS: { entrypoint: './dashboard.css' } });
    }, { root });
    expect(problems(project)).toEqual([
      {
        ...error('customCSS.entrypoint', `"customCSS.entrypoint" file not found: ${path.join(import.meta.dirname, 'dashboard.css')}`, 'The file is resolved relative to the file being loaded (the monitor or check file), as in Checkly.'),
        address: 'dashboard.status',
      },
    ]);
  });

  it('sends inline CSS as it is', async () => {
    const project = await load(() => {
      new Dashboard('status', { ...base, customCSS: { content: 'body { margin: 0 }' } });
    });
    expect(specOf(project, 'dashboard.status').payload.customCSS).toBe('body { margin: 0 }');
  });
});
