export { Graph, GraphCycleError, type GraphProblem } from './graph.js';
export { findCycles, formatCycle, compareKeys } from './cycles.js';
export { UPSTREAM_FAILED, type WalkOptions, type WalkResult } from './walk.js';
