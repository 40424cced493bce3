import { describe, expect, it } from 'vitest';
import { componentStatus, pageStatus, serviceState, type ServiceFacts } from './states.js';

const none: ServiceFacts = { openIncidents: [], inMaintenance: false, checkDegraded: false };

describe('a service state', () => {
  it.each([
    ['nothing going on', none, 'operational', 'operational'],
    ['a CRITICAL open incident', { ...none, openIncidents: [{ severity: 'CRITICAL' }] }, 'outage', 'major_outage'],
    ['a MAJOR open incident', { ...none, openIncidents: [{ severity: 'MAJOR' }] }, 'outage', 'partial_outage'],
    ['a MEDIUM open incident', { ...none, openIncidents: [{ severity: 'MEDIUM' }] }, 'degraded', 'degraded_performance'],
    ['a MINOR and a CRITICAL incident: the worst wins', { ...none, openIncidents: [{ severity: 'MINOR' }, { severity: 'CRITICAL' }] }, 'outage', 'major_outage'],
    ['an active maintenance window', { ...none, inMaintenance: true }, 'maintenance', 'under_maintenance'],
    ['a degraded linked check', { ...none, checkDegraded: true }, 'degraded', 'degraded_performance'],
    ['maintenance and a degraded check: maintenance explains the slowness', { ...none, inMaintenance: true, checkDegraded: true }, 'maintenance', 'under_maintenance'],
    ['a MINOR incident during maintenance: the owner\'s word first', { ...none, inMaintenance: true, openIncidents: [{ severity: 'MINOR' }] }, 'degraded', 'degraded_performance'],
  ] as const)('%s → %s (%s)', (_name, facts, state, component) => {
    expect(serviceState(facts)).toBe(state);
    expect(componentStatus(serviceState(facts), facts)).toBe(component);
  });
});

describe('the page status', () => {
  it.each([
    [[], 'none', 'All Systems Operational'],
    [['operational', 'under_maintenance'], 'none', 'Service Under Maintenance'],
    [['degraded_performance', 'under_maintenance'], 'minor', 'Minor Service Outage'],
    [['partial_outage', 'degraded_performance'], 'major', 'Partial System Outage'],
    [['operational', 'major_outage', 'partial_outage'], 'critical', 'Major System Outage'],
  ] as const)('%j → %s', (components, indicator, description) => {
    expect(pageStatus(components)).toEqual({ indicator, description });
  });
});
