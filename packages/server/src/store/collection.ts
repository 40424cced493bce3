/**
 * The collections moved to sqlite/collection.ts; this re-export stays for the modules other work is
 * changing now (agents/, routes/private-locations.ts). New code imports from store/index.js.
 */
export * from './sqlite/collection.js';
