/**
 * @vigil/engine: loading projects, the resource graph, and (in their own modules) state, plan and
 * apply. Only what other packages need is exported here.
 */
export type { Diagnostic, ResourceSpec, SourceLocation } from '@vigil/constructs';
export { Graph, GraphCycleError, UPSTREAM_FAILED, findCycles, formatCycle } from './graph/index.js';
export type { GraphProblem, WalkOptions, WalkResult } from './graph/index.js';
export {
  loadProject,
  ProjectNotFoundError,
  DEFAULT_CHECK_MATCH,
  CONFIG_EXTENSIONS,
  RUNTIME_PACKAGES,
} from './load/index.js';
export type { LoadProjectOptions, LoadedProject } from './load/index.js';
export { buildResourceGraph } from './load/resource-graph.js';
