import * as constructs from '@vigil/constructs';
import { RESOURCE_KINDS } from '@vigil/constructs';
import { describe, expect, it } from 'vitest';
import { IMPORT_KIND_ORDER } from '../import/select.js';
import { ADAPTERS } from './index.js';

describe('the kinds table', () => {
  it('has one adapter for every resource kind, under its own name', () => {
    expect(Object.keys(ADAPTERS).sort()).toEqual([...RESOURCE_KINDS].sort());
    for (const [kind, adapter] of Object.entries(ADAPTERS)) expect(adapter.kind).toBe(kind);
  });

  it('imports every kind once, in a fixed order with what others refer to first', () => {
    expect([...IMPORT_KIND_ORDER].sort()).toEqual([...RESOURCE_KINDS].sort());
    const orders = Object.values(ADAPTERS).map((adapter) => adapter.importing.order);
    expect(new Set(orders).size).toBe(orders.length);
    const checkOrders = Object.values(ADAPTERS).filter((adapter) => adapter.isCheck).map((adapter) => adapter.importing.order);
    expect(Math.min(...checkOrders)).toBeGreaterThan(ADAPTERS['check-group'].importing.order);
  });

  it('names, for every kind others refer to, a construct class that vigil/constructs exports with fromId', () => {
    for (const adapter of Object.values(ADAPTERS)) {
      const className = adapter.importing.fromIdClass;
      if (className === undefined) continue;
      const exported = (constructs as Record<string, unknown>)[className] as { fromId?: unknown } | undefined;
      expect(typeof exported?.fromId, `${adapter.kind}: ${className}.fromId`).toBe('function');
    }
  });

  it('writes checks next to their group and every other kind to a file of its own kind', () => {
    for (const adapter of Object.values(ADAPTERS)) {
      if (adapter.isCheck) expect(adapter.importing.placement, adapter.kind).toEqual({ file: 'with-group' });
      else expect(adapter.importing.placement.file, adapter.kind).not.toBe('with-group');
    }
  });
});
