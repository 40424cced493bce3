import { describe, expect, it } from 'vitest';
import { IncidentCreate, IncidentStatusUpdateCreate, IncidentUpdate, StatusPageServiceCreate, StatusPageServiceUpdate } from './status-pages.js';
import { expectAccepted, expectRejected } from './test-support.js';

const incident = (extra: Record<string, unknown> = {}) => ({ name: 'Outage', severity: 'MAJOR', services: [{ id: 's1' }], ...extra });

describe('IncidentCreate', () => {
  it('starts INVESTIGATING with no status posts unless told otherwise', () => {
    expect(expectAccepted(IncidentCreate, incident())).toEqual({ ...incident(), lastUpdateStatus: 'INVESTIGATING', incidentUpdates: [] });
  });

  it('accepts a name of exactly 255 characters and full Service objects as references', () => {
    const parsed = expectAccepted(IncidentCreate, incident({ name: 'x'.repeat(255), services: [{ id: 's1', name: 'API', accountId: 'a' }] }));
    expect(parsed.services).toEqual([{ id: 's1' }]);
  });

  it.each<[string, unknown, string[], string]>([
    ['a 256-character name', incident({ name: 'x'.repeat(256) }), ['name'], '"name" length must be less than or equal to 255 characters long'],
    ['a missing severity', { name: 'x', services: [] }, ['severity'], '"severity" is required'],
    ['an unknown severity', incident({ severity: 'LOW' }), ['severity'], '"severity" must be one of [CRITICAL, MAJOR, MEDIUM, MINOR]'],
    ['an unknown status', incident({ lastUpdateStatus: 'DONE' }), ['lastUpdateStatus'], '"lastUpdateStatus" must be one of [INVESTIGATING, IDENTIFIED, MONITORING, RESOLVED]'],
    ['a service without id', incident({ services: [{ name: 'API' }] }), ['services.0.id'], '"services[0].id" is required'],
  ])('rejects %s', (_name, input, keys, message) => {
    expectRejected(IncidentCreate, input, { keys, message });
  });
});

describe('IncidentUpdate (PUT body of an incident)', () => {
  it('fills nothing and still limits the name', () => {
    expect(expectAccepted(IncidentUpdate, { lastUpdateStatus: 'RESOLVED' })).toEqual({ lastUpdateStatus: 'RESOLVED' });
    expectRejected(IncidentUpdate, { name: 'x'.repeat(256) }, { keys: ['name'], message: '"name" length must be less than or equal to 255 characters long' });
  });
});

describe('IncidentStatusUpdateCreate (the "incident update" resource)', () => {
  it('defaults notifySubscribers to false', () => {
    expect(expectAccepted(IncidentStatusUpdateCreate, { description: 'Fixed', status: 'RESOLVED' })).toEqual({
      description: 'Fixed',
      status: 'RESOLVED',
      notifySubscribers: false,
    });
  });

  it.each<[string, unknown, string[], string]>([
    ['a missing status', { description: 'x' }, ['status'], '"status" is required'],
    ['a bad publish date', { description: 'x', status: 'MONITORING', publicIncidentUpdateDate: '2025-01-01' }, ['publicIncidentUpdateDate'], '"publicIncidentUpdateDate" must be a valid ISO 8601 date-time'],
  ])('rejects %s', (_name, input, keys, message) => {
    expectRejected(IncidentStatusUpdateCreate, input, { keys, message });
  });
});

describe('StatusPageService bodies', () => {
  it('requires a name to create and to update (the real document requires it on PUT)', () => {
    expectRejected(StatusPageServiceCreate, {}, { keys: ['name'], message: '"name" is required' });
    expectRejected(StatusPageServiceUpdate, {}, { keys: ['name'], message: '"name" is required' });
    expect(expectAccepted(StatusPageServiceUpdate, { name: 'API' })).toEqual({ name: 'API' });
  });
});
