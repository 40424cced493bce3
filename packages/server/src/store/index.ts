/**
 * The service's storage as the rest of the server imports it. The engine is SQLite
 * (sqlite/store.ts and the tables beside it); nothing outside store/ needs to know which file holds
 * what.
 */
export { Store, type StoredDoc } from './sqlite/store.js';
export { Collection, PAGE_LIMIT, type Filter, type SplicedPage, type IndexedColumn, type IdKind, type Page, type PageRequest, type PublicId } from './sqlite/collection.js';
export type { DatabaseLocation, SqliteDatabase } from './database.js';
export type { AlertChannelSubscription, Subscriber, SubscriptionOwnerKind } from './sqlite/subscriptions.js';
