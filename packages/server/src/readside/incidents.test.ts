import { describe, expect, it } from 'vitest';
import { addIncidentUpdate, createIncident, updateIncident, type IdsAndClock } from './incidents.js';

function env(): IdsAndClock {
  let n = 0;
  return { newId: () => `id-${++n}`, now: new Date('2026-03-18T12:00:00.000Z') };
}

const opened = () =>
  createIncident(
    { name: 'API down', severity: 'MAJOR', serviceIds: ['s1'], initialUpdates: [{ description: 'Looking into it' }] },
    env(),
  );

describe('incidents', () => {
  it('opens INVESTIGATING by default with the first update', () => {
    const incident = opened();
    expect(incident).toMatchObject({ lastUpdateStatus: 'INVESTIGATING', serviceIds: ['s1'] });
    expect(incident.incidentUpdates).toEqual([{
      id: 'id-1',
      description: 'Looking into it',
      status: 'INVESTIGATING',
      publicIncidentUpdateDate: '2026-03-18T12:00:00.000Z',
      notifySubscribers: false,
      created_at: '2026-03-18T12:00:00.000Z',
    }]);
  });

  it('takes its status from the last initial update', () => {
    const incident = createIncident(
      {
        name: 'x',
        severity: 'MINOR',
        serviceIds: [],
        lastUpdateStatus: 'INVESTIGATING',
        initialUpdates: [{ description: 'd', status: 'IDENTIFIED' }, { description: 'e', status: 'MONITORING' }],
      },
      env(),
    );
    expect(incident.lastUpdateStatus).toBe('MONITORING');
    expect(incident.incidentUpdates.map((u) => u.status)).toEqual(['IDENTIFIED', 'MONITORING']);
  });

  it('without updates takes lastUpdateStatus as given', () => {
    const incident = createIncident(
      { name: 'x', severity: 'MINOR', serviceIds: [], lastUpdateStatus: 'MONITORING', initialUpdates: [] },
      env(),
    );
    expect(incident).toMatchObject({ lastUpdateStatus: 'MONITORING', incidentUpdates: [] });
  });

  it.each([
    ['IDENTIFIED', 'IDENTIFIED'],
    ['RESOLVED', 'RESOLVED'],
    [undefined, 'INVESTIGATING'],
  ] as const)('an update with status %s moves lastUpdateStatus to %s', (status, expected) => {
    const { incident, update } = addIncidentUpdate(opened(), { description: 'news', status }, env());
    expect(incident.lastUpdateStatus).toBe(expected);
    expect(update.status).toBe(expected);
    expect(incident.incidentUpdates).toHaveLength(2);
  });

  it('reopens a resolved incident when a non-RESOLVED update arrives', () => {
    const resolved = addIncidentUpdate(opened(), { description: 'fixed', status: 'RESOLVED' }, env()).incident;
    const reopened = addIncidentUpdate(resolved, { description: 'back again', status: 'INVESTIGATING' }, env()).incident;
    expect(reopened.lastUpdateStatus).toBe('INVESTIGATING');
    const stillResolved = addIncidentUpdate(resolved, { description: 'postmortem' }, env()).incident;
    expect(stillResolved.lastUpdateStatus).toBe('RESOLVED');
  });

  it('PUT merges: omitted fields keep their value', () => {
    const incident = opened();
    const updated = updateIncident(incident, { severity: 'CRITICAL' }, new Date('2026-03-18T13:00:00.000Z'));
    expect(updated).toMatchObject({ name: 'API down', severity: 'CRITICAL', serviceIds: ['s1'], updated_at: '2026-03-18T13:00:00.000Z' });
    expect(updateIncident(incident, { lastUpdateStatus: 'MONITORING', serviceIds: [] }, new Date()).lastUpdateStatus).toBe('MONITORING');
  });
});
