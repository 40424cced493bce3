import { describe, expect, it } from 'vitest';
import { ENDPOINTS } from './endpoints.js';
import { buildOpenApiDocument } from './openapi.js';
import { StatusPage, StatusPageCreate, StatusPageUpdate } from './status-page.js';
import { expectAccepted, expectRejected } from './test-support.js';

const SERVICE = '0193a0b2-0000-7000-8000-000000000001';
const page = (extra: Record<string, unknown> = {}) => ({ name: 'Acme status', url: 'acme-status', cards: [{ name: 'API', services: [{ id: SERVICE }] }], ...extra });
const colors = (value: string) => ({
  bodyBackgroundColor: value, headerBackgroundColor: '#FFF', headerFontColor: '#000', titleFontColor: '#000', bodyFontColor: '#000', bodyFontColorMuted: '#333',
  navigationFontColor: '#000', linkFontColor: '#00F', cardBackgroundColor: '#FFF', borderColor: '#EEE', primaryButtonBackgroundColor: '#00F', primaryButtonFontColor: '#FFF',
});

describe('StatusPageCreate', () => {
  it("fills in the real document's defaults, and null for the nullable fields it gives none", () => {
    expect(expectAccepted(StatusPageCreate, { name: 'Acme status', url: 'acme-status', cards: [{ name: 'API' }] })).toEqual({
      name: 'Acme status', url: 'acme-status', cards: [{ name: 'API', services: [] }],
      description: null, customDomain: null, themeColors: null, logo: null, logoDark: null, redirectTo: null, favicon: null, defaultTheme: 'AUTO',
    });
  });

  it('lower-cases url and customDomain, as the document converts them', () => {
    expect(expectAccepted(StatusPageCreate, page({ url: 'Acme-Status', customDomain: 'Status.Example.COM' }))).toMatchObject({ url: 'acme-status', customDomain: 'status.example.com' });
  });

  it('drops unknown properties and a card\'s statusPageId, since the document leaves the objects open', () => {
    const parsed = expectAccepted(StatusPageCreate, page({ version: 3, cards: [{ name: 'API', statusPageId: 'x', services: [{ id: SERVICE, name: 'ignored' }] }] }));
    expect(parsed).not.toHaveProperty('version');
    expect(parsed.cards).toEqual([{ name: 'API', services: [{ id: SERVICE }] }]);
  });

  it('takes theme colours in upper-case hex', () => {
    expect(expectAccepted(StatusPageCreate, page({ themeColors: { light: colors('#FAFAFA'), dark: colors('#111') } })).themeColors?.dark.bodyBackgroundColor).toBe('#111');
  });

  it.each([
    ['a missing url', { name: 'x', cards: [] }, ['url'], '"url" is required'],
    ['missing cards', { name: 'x', url: 'x' }, ['cards'], '"cards" is required'],
    ['an empty name', page({ name: '' }), ['name'], '"name" is not allowed to be empty'],
    ['a url that is a whole host name', page({ url: 'status.acme.com' }), ['url'], '"url" must be a subdomain name: 1 to 63 letters, digits or dashes, not starting or ending with a dash, got "status.acme.com"'],
    ['a customDomain with a scheme', page({ customDomain: 'https://status.acme.com' }), ['customDomain'], '"customDomain" must be a domain name such as "status.example.com", got "https://status.acme.com"'],
    ['a javascript: redirectTo', page({ redirectTo: 'javascript:alert(1)' }), ['redirectTo'], '"redirectTo" must be an http or https URL, got "javascript:alert(1)"'],
    ['an empty logo', page({ logo: '' }), ['logo'], '"logo" must be an http or https URL, got ""'],
    ['an unknown theme', page({ defaultTheme: 'SEPIA' }), ['defaultTheme'], '"defaultTheme" must be one of [AUTO, DARK, LIGHT]'],
    ['a description over 500 characters', page({ description: 'x'.repeat(501) }), ['description'], '"description" length must be less than or equal to 500 characters long'],
    ['a card without a name', page({ cards: [{ services: [] }] }), ['cards.0.name'], '"cards[0].name" is required'],
    ['a service without an id', page({ cards: [{ name: 'API', services: [{ name: 'Web' }] }] }), ['cards.0.services.0.id'], '"cards[0].services[0].id" is required'],
    ['a lower-case colour', page({ themeColors: { light: colors('#fafafa'), dark: colors('#111') } }), ['themeColors.light.bodyBackgroundColor'], '"themeColors.light.bodyBackgroundColor" must be a colour in upper-case hex such as "#1A2B3C" or "#FFF", got "#fafafa"'],
  ])('rejects %s', (_name, input, keys, message) => {
    expectRejected(StatusPageCreate, input, { keys, message });
  });
});

describe('StatusPageUpdate', () => {
  it('requires name, url and cards as the document does, and fills nothing else (the rest merges)', () => {
    expect(expectAccepted(StatusPageUpdate, page())).toEqual({ name: 'Acme status', url: 'acme-status', cards: [{ name: 'API', services: [{ id: SERVICE }] }] });
    expectRejected(StatusPageUpdate, { name: 'x' }, { keys: ['url', 'cards'], message: '"url" is required. "cards" is required' });
  });
});

describe('StatusPage (response)', () => {
  it('reads a page of another service that leaves fields out', () => {
    expect(expectAccepted(StatusPage, { id: 'p1', name: 'Old', url: 'old' })).toMatchObject({ id: 'p1', cards: [], defaultTheme: 'AUTO', isPrivate: false, logo: null });
  });
});

describe('status page endpoints', () => {
  it('take the statusPageId in their path and document the 409 of a taken url on create and update', () => {
    expect(ENDPOINTS['statusPages.get'].path).toBe('/v1/status-pages/{statusPageId}');
    const paths = buildOpenApiDocument().paths as Record<string, Record<string, { responses: Record<string, { description: string }> }>>;
    expect(paths['/v1/status-pages']!['post']!.responses['409']!.description).toBe('url or customDomain already taken by another status page');
    expect(paths['/v1/status-pages/{statusPageId}']!['put']!.responses['409']).toBeDefined();
    expect(paths['/v1/status-pages/services/{id}']!['delete']!.responses['409']!.description).toBe('Service still used by a check or shown on a status page');
  });
});
