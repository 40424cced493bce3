import { describe, expect, it } from 'vitest';
import { emptyState } from './document.js';
import { beginOperation, completeOperation, newJournalEntry, pendingOperations } from './journal.js';

const TARGET = { baseUrl: 'http://127.0.0.1:4010', accountId: 'acc-1' };
const NOW = new Date('2026-11-22T03:00:00.000Z');

describe('the apply journal', () => {
  it('builds an entry with a fresh id and the start time, leaving out what is not known', () => {
    const entry = newJournalEntry({ operation: 'create', address: 'api-check.home', kind: 'api-check', idempotencyKey: 'k1', name: 'Home', now: NOW });
    expect(entry).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      operation: 'create',
      address: 'api-check.home',
      kind: 'api-check',
      startedAt: '2026-11-22T03:00:00.000Z',
      idempotencyKey: 'k1',
      name: 'Home',
    });
    expect(Object.keys(newJournalEntry({ operation: 'delete', address: 'api-check.home', kind: 'api-check', remoteId: undefined }))).not.toContain('remoteId');
  });

  it('records an operation as pending without changing the given document', () => {
    const document = emptyState({ project: 'shop', target: TARGET });
    const entry = newJournalEntry({ operation: 'create', address: 'api-check.home', kind: 'api-check', now: NOW });
    const begun = beginOperation(document, entry);
    expect(begun.journal).toEqual([entry]);
    expect(document.journal).toEqual([]);
  });

  it('resolves a create by recording the new resource and dropping the entry', () => {
    const entry = newJournalEntry({ operation: 'create', address: 'api-check.home', kind: 'api-check', idempotencyKey: 'k1' });
    const begun = beginOperation(emptyState({ project: 'shop', target: TARGET }), entry);
    const done = completeOperation(begun, entry.id, (resources, resolved) => {
      resources[resolved.address] = { kind: resolved.kind, remoteId: 'c0ffee', applied: { name: 'Home' }, dependsOn: [] };
    });
    expect(done.journal).toEqual([]);
    expect(done.resources).toEqual({ 'api-check.home': { kind: 'api-check', remoteId: 'c0ffee', applied: { name: 'Home' }, dependsOn: [] } });
    expect(begun.resources).toEqual({});
    expect(begun.journal).toHaveLength(1);
  });

  it('resolves a delete by forgetting the resource', () => {
    const state = {
      ...emptyState({ project: 'shop', target: TARGET }),
      resources: { 'api-check.home': { kind: 'api-check' as const, remoteId: 1, applied: {}, dependsOn: [] } },
    };
    const entry = newJournalEntry({ operation: 'delete', address: 'api-check.home', kind: 'api-check', remoteId: 1 });
    const done = completeOperation(beginOperation(state, entry), entry.id, (resources, resolved) => {
      delete resources[resolved.address];
    });
    expect(done.resources).toEqual({});
    expect(state.resources).toHaveProperty(['api-check.home']);
  });

  it('drops an operation that changed nothing when no mutation is given', () => {
    const entry = newJournalEntry({ operation: 'update', address: 'api-check.home', kind: 'api-check', remoteId: 1 });
    const begun = beginOperation(emptyState({ project: 'shop', target: TARGET }), entry);
    expect(completeOperation(begun, entry.id).journal).toEqual([]);
  });

  it('refuses a second pending operation on the same address as a bug', () => {
    const begun = beginOperation(emptyState({ project: 'shop', target: TARGET }), { ...newJournalEntry({ operation: 'create', address: 'api-check.home', kind: 'api-check' }), id: 'first' });
    expect(() => beginOperation(begun, newJournalEntry({ operation: 'update', address: 'api-check.home', kind: 'api-check' }))).toThrow(
      'this is a bug in vigil: update of api-check.home started while a create of it is still pending (first)',
    );
  });

  it('refuses to resolve an operation that is not pending as a bug', () => {
    expect(() => completeOperation(emptyState({ project: 'shop', target: TARGET }), 'nope')).toThrow('this is a bug in vigil: no pending journal entry nope');
  });

  it('lists pending operations oldest first, for recovery', () => {
    const later = newJournalEntry({ operation: 'create', address: 'api-check.b', kind: 'api-check', now: new Date('2026-11-22T03:00:02.000Z') });
    const earlier = newJournalEntry({ operation: 'delete', address: 'api-check.a', kind: 'api-check', now: new Date('2026-11-22T03:00:01.000Z') });
    const document = beginOperation(beginOperation(emptyState({ project: 'shop', target: TARGET }), later), earlier);
    expect(pendingOperations(document).map((entry) => entry.address)).toEqual(['api-check.a', 'api-check.b']);
  });
});
