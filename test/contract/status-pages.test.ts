/** The client's status-page calls against the real server: every call typed, the cursor followed, errors as ApiErrors. */
import { ConflictError, NotFoundError, ValidationError } from '@vigil/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collect, rejection, startService, type Service } from './service.js';

let service: Service;
beforeAll(async () => {
  service = await startService();
});
afterAll(() => service.close());

describe('status pages', () => {
  it('creates, reads, lists (following the cursor), updates and deletes a page', async () => {
    const client = service.client();
    const web = await client.statusPages.services.create({ name: 'Web' });
    const created = await client.statusPages.create({ name: 'Acme status', url: 'acme-status', cards: [{ name: 'Core', services: [{ id: web.id }] }] });
    expect(created).toMatchObject({ name: 'Acme status', url: 'acme-status', defaultTheme: 'AUTO', cards: [{ name: 'Core', services: [{ id: web.id, name: 'Web' }] }] });
    expect(await client.statusPages.get(created.id)).toEqual(created);
    const second = await client.statusPages.create({ name: 'Second', url: 'second-status', cards: [] });
    expect((await client.statusPages.list({ limit: 1 })).entries.map((each) => each.id)).toEqual([created.id]);
    expect((await collect(client.statusPages.listAll())).map((each) => each.id)).toEqual([created.id, second.id]);
    const updated = await client.statusPages.update(created.id, { name: 'Acme', url: 'acme-status', cards: [{ name: 'Core', services: [] }] });
    expect(updated).toMatchObject({ name: 'Acme', cards: [{ id: created.cards[0]!.id, name: 'Core', services: [] }] });
    for (const page of [created, second]) expect(await client.statusPages.delete(page.id)).toBeUndefined();
    expect(await rejection(client.statusPages.get(created.id))).toBeInstanceOf(NotFoundError);
    await client.statusPages.services.delete(web.id);
  });

  it('raises a ConflictError for a taken url or a service a card shows, and a ValidationError naming a bad field', async () => {
    const client = service.client();
    const web = await client.statusPages.services.create({ name: 'Web' });
    const held = await client.statusPages.create({ name: 'Held', url: 'held', cards: [{ name: 'Core', services: [{ id: web.id }] }] });
    const taken = await rejection(client.statusPages.create({ name: 'Again', url: 'held', cards: [] }));
    expect(taken).toBeInstanceOf(ConflictError);
    expect((taken as ConflictError).message).toBe('[POST] "/v1/status-pages": 409 Conflict — url "held" is already taken by another status page');
    const inUse = await rejection(client.statusPages.services.delete(web.id));
    expect(inUse).toBeInstanceOf(ConflictError);
    const invalid = await rejection(client.statusPages.update(held.id, { name: 'Held', url: 'held', cards: [], defaultTheme: 'PINK' as never }));
    expect(invalid).toBeInstanceOf(ValidationError);
    expect((invalid as ValidationError).message).toBe(`[PUT] "/v1/status-pages/${held.id}": 400 Bad Request — "defaultTheme" must be one of [AUTO, DARK, LIGHT]`);
    await client.statusPages.delete(held.id);
    await client.statusPages.services.delete(web.id);
  });
});
