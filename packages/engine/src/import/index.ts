/** `vigil import`'s pure half: choosing what to adopt and deciding the code and state for it. */
export { parseImportFilter, selectCandidates, displayName, ImportFilterError, IMPORT_KIND_ORDER, type Candidate, type ImportFilter, type SelectOptions } from './select.js';
export { planImport, type ExternalVariable, type ImportInput, type ImportPlan, type ImportedResource, type ManagedResource, type RequiredVariable } from './plan-import.js';
export { tsString, propertyKey, commentText, escapeUnsafe, printable, type Code, type ObjectCode } from './code.js';
export { slugify, variableName, UniqueNames } from './names.js';
export { isLoadedMonitorFile } from './picked-up.js';
