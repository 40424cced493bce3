/**
 * @vigil/engine: loading projects, the resource graph, and (in their own modules) state, plan and
 * apply. Only what other packages need is exported here.
 */
export type { Diagnostic, ResourceSpec, SourceLocation } from '@vigil/constructs';
export { Graph, GraphCycleError, UPSTREAM_FAILED, findCycles, formatCycle } from './graph/index.js';
export type { GraphProblem, WalkOptions, WalkResult } from './graph/index.js';
export {
  loadProject,
  DEFAULT_LOAD_TIMEOUT_MS,
  ProjectNotFoundError,
  DEFAULT_CHECK_MATCH,
  CONFIG_EXTENSIONS,
  RUNTIME_PACKAGES,
} from './load/index.js';
export type { LoadProjectOptions, LoadedProject } from './load/index.js';
export { buildResourceGraph } from './load/resource-graph.js';
export * from './state/index.js';
/** Kinds, refresh, plan, render and apply. */
export { ADAPTERS, adapterFor } from './kinds/index.js';
export type { CallRequest, KindAdapter, Payload, RemoteObject, ServiceCalls } from './kinds/index.js';
export { refresh, type RemoteSnapshot } from './refresh/refresh.js';
export { createPlan, desiredResourceOf, resolveRefs, isUnknownRef, type DesiredResource, type PlanInput, type PlanResult } from './plan/plan.js';
export { hasChanges, SENSITIVE } from './plan/types.js';
export { getAtPath } from './kinds/paths.js';
export type { Action, Change, FieldChange, Plan, PlanSummary, Reason } from './plan/types.js';
export { planSchema, parseSavedPlan, savedPlanDifference, serializePlan, SavedPlanError, type SavedPlan } from './plan/format.js';
export { renderText, type TextOptions } from './render/text.js';
export { MARKDOWN_LIMIT, renderMarkdown, type MarkdownOptions } from './render/markdown.js';
export { summaryLine as planSummaryLine } from './render/values.js';
export { applyPlan, ApplyInterruptedError, operationsOf, operationGraph, type ApplyEvent, type ApplyOptions, type ApplyReport, type Operation } from './apply/apply.js';
export { StateWriter } from './apply/state-writer.js';
export { recoverJournal, type RecoveryOutcome } from './apply/recover.js';
/** `vigil import`: selection, naming and the code/state decisions (the CLI renders and writes). */
export * from './import/index.js';
