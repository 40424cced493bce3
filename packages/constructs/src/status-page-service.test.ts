import { StatusPageServiceCreate } from '@vigil/schema';
import { describe, expect, it } from 'vitest';
import { load, markerLocation, specOf } from './__fixtures__/load.js';
import { ApiCheck } from './api-check.js';
import { isExternalRef } from './ref.js';
import { StatusPageService } from './status-page-service.js';

describe('StatusPageService', () => {
  it('sends its name', async () => {
    const project = await load(() => {
      new StatusPageService('payments', { name: 'Payments' });
    });
    const { payload } = specOf(project, 'status-page-service.payments');
    expect(payload).toEqual({ name: 'Payments' });
    expect(StatusPageServiceCreate.parse(payload)).toEqual(payload);
  });

  it('rejects an empty name', async () => {
    const project = await load(() => {
      new StatusPageService('payments', { name: '' }); // @at:empty
    });
    expect(project.validate()).toEqual([
      { severity: 'error', address: 'status-page-service.payments', path: 'name', message: '"name" is not allowed to be empty', source: markerLocation(import.meta.url, 'empty') },
    ]);
  });

  it('fills the incident defaults of a trigger that names only service, severity and name', async () => {
    const project = await load(() => {
      const service = new StatusPageService('payments', { name: 'Payments' });
      new ApiCheck('home', { name: 'Home', request: { url: 'https://example.com/' }, triggerIncident: { service, severity: 'CRITICAL', name: 'Down' } });
    });
    expect(specOf(project, 'api-check.home').payload.triggerIncident).toEqual({
      serviceId: { $ref: 'status-page-service.payments' },
      severity: 'CRITICAL',
      name: 'Down',
      description: '',
      notifySubscribers: false,
    });
  });

  it('warns about an unknown prop, listing the known ones', async () => {
    const project = await load(() => {
      new StatusPageService('payments', { name: 'Payments', colour: 'green' } as never); // @at:unknown
    });
    expect(project.validate()).toEqual([
      {
        severity: 'warning',
        address: 'status-page-service.payments',
        path: 'colour',
        message: '"colour" is not a prop of StatusPageService',
        hint: 'Known props: protect, name.',
        source: markerLocation(import.meta.url, 'unknown'),
      },
    ]);
  });

  it('lets a check trigger incidents on an unmanaged service through fromId, adding no dependency', async () => {
    const project = await load(() => {
      new ApiCheck('home', {
        name: 'Home',
        request: { url: 'https://example.com/' },
        triggerIncident: { service: StatusPageService.fromId('0b8e3c9a-4f6d-4c1e-9a57-3d2b1f0e6c42'), severity: 'MINOR', name: 'Slow', description: '', notifySubscribers: false },
      });
    });
    const { payload, refs } = specOf(project, 'api-check.home');
    expect(payload.triggerIncident).toEqual({ serviceId: '0b8e3c9a-4f6d-4c1e-9a57-3d2b1f0e6c42', severity: 'MINOR', name: 'Slow', description: '', notifySubscribers: false });
    expect(refs).toEqual([]);
    expect(isExternalRef(StatusPageService.fromId('0b8e3c9a-4f6d-4c1e-9a57-3d2b1f0e6c42'))).toBe(true);
  });
});
