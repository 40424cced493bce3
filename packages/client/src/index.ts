export * from './errors.js';
export * from './retry.js';
export * from './pacer.js';
export * from './paging.js';
export * from './transport.js';
