import { describe, expect, it } from 'vitest';
import { Dashboard, DashboardCreate, DashboardGetQuery, DashboardUpdate } from './dashboards.js';
import { ENDPOINTS } from './endpoints.js';
import { buildOpenApiDocument } from './openapi.js';
import { expectAccepted, expectRejected } from './test-support.js';

const dashboard = (extra: Record<string, unknown> = {}) => ({ header: 'Acme status', customUrl: 'acme-status', ...extra });

describe('DashboardCreate', () => {
  it("fills in the real document's defaults, and null for the nullable fields it gives none", () => {
    expect(expectAccepted(DashboardCreate, { header: 'Acme status' })).toEqual({
      header: 'Acme status',
      customUrl: null,
      customDomain: null,
      logo: null,
      favicon: null,
      link: null,
      description: null,
      width: 'FULL',
      refreshRate: 60,
      paginate: true,
      paginationRate: 60,
      sortByStatus: false,
      checksPerPage: 15,
      useTagsAndOperator: false,
      hideTags: false,
      enableIncidents: false,
      expandChecks: false,
      tags: [],
      showHeader: true,
      showCheckRunLinks: false,
      showGroupNames: true,
      customCSS: '',
      isPrivate: false,
      showP95: true,
      showP99: true,
    });
  });

  it.each([
    ['an empty header', dashboard({ header: '' })],
    ['a custom domain instead of a URL', { header: 'x', customDomain: 'status.example.com' }],
    ['empty logo, favicon and link', dashboard({ logo: '', favicon: '', link: '' })],
    ['http and https URLs', dashboard({ logo: 'https://cdn.example.com/logo.png', favicon: 'http://example.com/favicon.ico', link: 'https://example.com' })],
    ['a 63-character subdomain', dashboard({ customUrl: 'a'.repeat(63) })],
    ['checksPerPage 1', dashboard({ checksPerPage: 1 })],
    ['checksPerPage 20', dashboard({ checksPerPage: 20 })],
    ['every refresh and pagination rate Checkly offers', dashboard({ refreshRate: 600, paginationRate: 30 })],
    ['a narrow page', dashboard({ width: '960PX' })],
    ['null where the document allows it', dashboard({ checksPerPage: null, useTagsAndOperator: null, customCSS: null, description: null })],
  ])('accepts %s', (_name, input) => {
    expectAccepted(DashboardCreate, input);
  });

  it('drops the properties it does not implement (the document leaves the object open)', () => {
    const parsed = expectAccepted(DashboardCreate, dashboard({ keys: [], projectBindings: {}, colour: 'red' }));
    for (const dropped of ['keys', 'projectBindings', 'colour']) expect(parsed).not.toHaveProperty(dropped);
  });

  it.each<[string, unknown, string[], string]>([
    ['a missing header', { customUrl: 'acme' }, ['header'], '"header" is required'],
    ['a header that is not a string', dashboard({ header: 42 }), ['header'], '"header" must be a string'],
    [
      'a customUrl with a dot',
      dashboard({ customUrl: 'status.acme' }),
      ['customUrl'],
      '"customUrl" must be a subdomain name: 1 to 63 letters, digits or dashes, not starting or ending with a dash, got "status.acme"',
    ],
    [
      'a customUrl starting with a dash',
      dashboard({ customUrl: '-acme' }),
      ['customUrl'],
      '"customUrl" must be a subdomain name: 1 to 63 letters, digits or dashes, not starting or ending with a dash, got "-acme"',
    ],
    [
      'a 64-character customUrl',
      dashboard({ customUrl: 'a'.repeat(64) }),
      ['customUrl'],
      `"customUrl" must be a subdomain name: 1 to 63 letters, digits or dashes, not starting or ending with a dash, got "${'a'.repeat(64)}"`,
    ],
    ['a customDomain without a dot', { header: 'x', customDomain: 'localhost' }, ['customDomain'], '"customDomain" must be a domain name such as "status.example.com", got "localhost"'],
    ['a customDomain with a scheme', { header: 'x', customDomain: 'https://status.example.com' }, ['customDomain'], '"customDomain" must be a domain name such as "status.example.com", got "https://status.example.com"'],
    ['a javascript: link', dashboard({ link: 'javascript:alert(1)' }), ['link'], '"link" must be an http or https URL (or ""), got "javascript:alert(1)"'],
    ['a logo that is not a URL', dashboard({ logo: 'logo.png' }), ['logo'], '"logo" must be an http or https URL (or ""), got "logo.png"'],
    ['a data: favicon', dashboard({ favicon: 'data:image/png;base64,AAAA' }), ['favicon'], '"favicon" must be an http or https URL (or ""), got "data:image/png;base64,AAAA"'],
    ['an unknown width', dashboard({ width: 'HALF' }), ['width'], '"width" must be one of [FULL, 960PX]'],
    ['a refreshRate Checkly does not offer', dashboard({ refreshRate: 120 }), ['refreshRate'], '"refreshRate" must be one of [60, 300, 600]'],
    ['a paginationRate Checkly does not offer', dashboard({ paginationRate: 10 }), ['paginationRate'], '"paginationRate" must be one of [30, 60, 300]'],
    ['checksPerPage 0', dashboard({ checksPerPage: 0 }), ['checksPerPage'], '"checksPerPage" must be greater than or equal to 1'],
    ['checksPerPage 21', dashboard({ checksPerPage: 21 }), ['checksPerPage'], '"checksPerPage" must be less than or equal to 20'],
    ['a fractional checksPerPage', dashboard({ checksPerPage: 2.5 }), ['checksPerPage'], '"checksPerPage" must be an integer'],
    ['a tag that is not a string', dashboard({ tags: ['prod', 7] }), ['tags.1'], '"tags[1]" must be a string'],
    ['more than 100 tags', dashboard({ tags: Array.from({ length: 101 }, (_, i) => `t${i}`) }), ['tags'], '"tags" must contain less than or equal to 100 items'],
    ['isPrivate as a string', dashboard({ isPrivate: 'yes' }), ['isPrivate'], '"isPrivate" must be a boolean'],
  ])('rejects %s', (_name, input, keys, message) => {
    expectRejected(DashboardCreate, input, { keys, message });
  });

  it('lists every problem of one body', () => {
    expectRejected(DashboardCreate, { customUrl: 'a b', refreshRate: 1 }, {
      keys: ['customUrl', 'header', 'refreshRate'],
      message: '"customUrl" must be a subdomain name: 1 to 63 letters, digits or dashes, not starting or ending with a dash, got "a b". "header" is required. "refreshRate" must be one of [60, 300, 600]',
    });
  });
});

describe('DashboardUpdate', () => {
  it('fills nothing (a PUT merges) and still checks what is sent', () => {
    expect(expectAccepted(DashboardUpdate, { tags: [] })).toEqual({ tags: [] });
    expect(expectAccepted(DashboardUpdate, { customUrl: null })).toEqual({ customUrl: null });
    expectRejected(DashboardUpdate, { customUrl: 'a_b' }, {
      keys: ['customUrl'],
      message: '"customUrl" must be a subdomain name: 1 to 63 letters, digits or dashes, not starting or ending with a dash, got "a_b"',
    });
  });
});

describe('Dashboard (response)', () => {
  it('reads a dashboard of another service with values this one would refuse, and defaults what it leaves out', () => {
    const parsed = expectAccepted(Dashboard, { id: 3, dashboardId: 'abc', created_at: '2026-01-01T00:00:00.000Z', refreshRate: 120, logo: 'data:x' });
    expect(parsed).toMatchObject({ id: 3, dashboardId: 'abc', refreshRate: 120, logo: 'data:x', header: '', tags: [], showP95: true });
  });
});

describe('dashboard endpoints', () => {
  it('take `type` on a get, to name the dashboard by its customUrl or customDomain', () => {
    expect(expectAccepted(DashboardGetQuery, { type: 'customUrl' })).toEqual({ type: 'customUrl' });
    expectRejected(DashboardGetQuery, { type: 'name' }, { keys: ['type'], message: '"type" must be one of [customUrl, customDomain]' });
    expect(ENDPOINTS['dashboards.get'].path).toBe('/v1/dashboards/{dashboardId}');
  });

  it('document the 409 of a taken customUrl on create and update', () => {
    const paths = buildOpenApiDocument().paths as Record<string, Record<string, { responses: Record<string, { description: string }> }>>;
    expect(paths['/v1/dashboards']!['post']!.responses['409']!.description).toBe('customUrl or customDomain already taken by another dashboard');
    expect(paths['/v1/dashboards/{dashboardId}']!['put']!.responses['409']).toBeDefined();
    expect(paths['/v1/dashboards/{dashboardId}']!['delete']!.responses['409']).toBeUndefined();
  });
});
