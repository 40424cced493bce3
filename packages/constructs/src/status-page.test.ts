import { StatusPageCreate } from '@vigil/schema';
import { describe, expect, it } from 'vitest';
import { load, markerLocation, problems, specOf } from './__fixtures__/load.js';
import { StatusPageService } from './status-page-service.js';
import { StatusPage, type StatusPageProps } from './status-page.js';
import type { Diagnostic } from './types.js';

const SERVICE_ID = '0193a0b2-0000-7000-8000-000000000001';
type Expected = Pick<Diagnostic, 'severity' | 'path' | 'message' | 'hint'>;
const error = (path: string, message: string, hint?: string): Expected => ({ severity: 'error', path, message, ...(hint ? { hint } : {}) });
const URL_HINT = 'Use an absolute http or https URL, e.g. "https://example.com/logo.png".';

const rules: Array<[string, (web: StatusPageService) => Partial<StatusPageProps>, Expected[]]> = [
  ['accepts every prop', () => ({ customDomain: 'status.acme.com', logo: 'https://acme.com/logo.png', redirectTo: 'https://acme.com', favicon: 'https://acme.com/f.ico', defaultTheme: 'DARK' }), []],
  ['accepts a service by fromId and by ref()', (web) => ({ cards: [{ name: 'Core', services: [web.ref() as never, StatusPageService.fromId(SERVICE_ID)] }] }), []],
  [
    'rejects a url that is a whole host name',
    () => ({ url: 'status.acme.com' }),
    [
      error(
        'url',
        '"url" must be a subdomain name: 1 to 63 letters, digits or dashes, not starting or ending with a dash, got "status.acme.com"',
        'url is the subdomain alone, e.g. "acme-status"; put a whole host name such as "status.example.com" in customDomain.',
      ),
    ],
  ],
  ['rejects a missing url', () => ({ url: undefined as never }), [error('url', '"url" is required', 'url is the subdomain alone, e.g. "acme-status"; put a whole host name such as "status.example.com" in customDomain.')]],
  ['rejects a javascript: redirectTo', () => ({ redirectTo: 'javascript:alert(1)' }), [error('redirectTo', '"redirectTo" must be an http or https URL, got "javascript:alert(1)"', URL_HINT)]],
  ['rejects an unknown theme', () => ({ defaultTheme: 'SEPIA' as never }), [error('defaultTheme', '"defaultTheme" must be one of [AUTO, DARK, LIGHT]')]],
  ['rejects cards that are not a list', () => ({ cards: { name: 'x' } as never }), [error('cards', '"cards" must be an array')]],
  ['rejects a card without a name', () => ({ cards: [{ services: [] } as never] }), [error('cards[0].name', '"cards[0].name" is required')]],
  [
    'rejects a service given by its name',
    () => ({ cards: [{ name: 'Core', services: ['Web' as never] }] }),
    [
      error(
        'cards[0].services[0]',
        '"cards[0].services[0]" must be a StatusPageService construct or a fromId reference, got the string "Web"',
        'Pass the construct object itself (for example `group: apiGroup`), or X.fromId(id) for a resource Vigil does not manage.',
      ),
    ],
  ],
  [
    'rejects a fromId that is not a UUID',
    () => ({ cards: [{ name: 'Core', services: [StatusPageService.fromId('web')] }] }),
    [
      error(
        'cards[0].services[0]',
        '"cards[0].services[0]": StatusPageService.fromId("web") needs the resource\'s UUID',
        'fromId takes the id the monitoring service gave the resource (see its URL in the web app or `vigil state show`).',
      ),
    ],
  ],
  [
    'rejects a service listed twice on one card',
    (web) => ({ cards: [{ name: 'Core', services: [web, web] }] }),
    [error('cards[0].services[1]', '"cards[0].services[1]" lists the same service a second time on this card', 'A card shows each service once; remove the repeated entry.')],
  ],
];

describe('StatusPage rules', () => {
  it.each(rules)('%s', async (_name, props, expected) => {
    const project = await load(() => {
      const web = new StatusPageService('web', { name: 'Web' });
      new StatusPage('status', { name: 'Acme status', url: 'acme-status', cards: [{ name: 'Core', services: [web] }], ...props(web) }); // @at:rule
    });
    const source = markerLocation(import.meta.url, 'rule');
    expect(project.validate()).toEqual(expected.map((e) => ({ ...e, address: 'status-page.status', source })));
  });

  it('warns about a prop it does not know, on the page and on a card, naming the one meant', async () => {
    const project = await load(() => {
      new StatusPage('status', { name: 'Acme', url: 'acme', cards: [{ name: 'Core', service: [] } as never], defaulttheme: 'DARK' } as never); // @at:unknown
    });
    const source = markerLocation(import.meta.url, 'unknown');
    expect(project.validate()).toEqual([
      { severity: 'warning', address: 'status-page.status', path: 'defaulttheme', message: '"defaulttheme" is not a prop of StatusPage', hint: 'Did you mean "defaultTheme"?', source },
      { severity: 'warning', address: 'status-page.status', path: 'cards[0].service', message: '"cards[0].service" is not a prop of a status page card', hint: 'Did you mean "services"?', source },
    ]);
  });

  it('reports a url or customDomain that an earlier status page of the project has, in any case', async () => {
    const project = await load(() => {
      new StatusPage('main', { name: 'Main', url: 'acme', customDomain: 'status.acme.com', cards: [] });
      new StatusPage('copy', { name: 'Copy', url: 'ACME', customDomain: 'Status.Acme.com', cards: [] });
    });
    expect(problems(project)).toEqual([
      { ...error('url', '"url" "ACME" is already the url of StatusPage "main"', 'A url names one status page across the service; give each page its own.'), address: 'status-page.copy' },
      { ...error('customDomain', '"customDomain" "Status.Acme.com" is already the customDomain of StatusPage "main"', 'A customDomain names one status page across the service; give each page its own.'), address: 'status-page.copy' },
    ]);
  });
});

describe('StatusPage payload', () => {
  it('sends cards with their services by reference, in order, and depends on the services it shows', async () => {
    const project = await load(() => {
      const web = new StatusPageService('web', { name: 'Web' });
      const db = new StatusPageService('db', { name: 'Database' });
      new StatusPage('status', { name: 'Acme', url: 'Acme-Status', cards: [{ name: 'Core', services: [db, web] }, { name: 'Other', services: [StatusPageService.fromId(SERVICE_ID)] }, { name: 'Empty' }] });
    });
    const spec = specOf(project, 'status-page.status');
    expect(spec.payload).toEqual({
      ...StatusPageCreate.parse({ name: 'Acme', url: 'acme-status', cards: [] }),
      cards: [
        { name: 'Core', services: [{ id: { $ref: 'status-page-service.db' } }, { id: { $ref: 'status-page-service.web' } }] },
        { name: 'Other', services: [{ id: SERVICE_ID }] },
        { name: 'Empty', services: [] },
      ],
    });
    expect(spec.refs).toEqual([
      { path: 'cards[0].services[0].id', address: 'status-page-service.db' },
      { path: 'cards[0].services[1].id', address: 'status-page-service.web' },
    ]);
    expect(spec.externalRefs).toEqual([{ path: 'cards[1].services[0].id', kind: 'status-page-service', remoteId: SERVICE_ID }]);
  });

  it("sends every prop of Checkly's construct, and the service's own extras", async () => {
    const props = {
      customDomain: 'status.acme.com', logo: 'https://acme.com/logo.png', logoDark: 'https://acme.com/dark.png', redirectTo: 'https://acme.com',
      favicon: 'https://acme.com/favicon.ico', defaultTheme: 'LIGHT', description: 'All of Acme',
    } as const;
    const project = await load(() => {
      new StatusPage('status', { name: 'Acme', url: 'acme', cards: [], ...props });
    });
    expect(specOf(project, 'status-page.status').payload).toEqual({ name: 'Acme', url: 'acme', cards: [], themeColors: null, ...props });
  });
});
