/** The delta encoding of passing results is the store's format (store/formats/result-delta.ts); the read side uses it from there. */
export * from '../store/formats/result-delta.js';
