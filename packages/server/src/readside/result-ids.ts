/** Derived result ids are part of the stored row format (store/formats/result-ids.ts); the read side uses them from there. */
export * from '../store/formats/result-ids.js';
