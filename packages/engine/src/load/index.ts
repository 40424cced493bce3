export { loadProject, DEFAULT_LOAD_TIMEOUT_MS, type LoadProjectOptions, type LoadedProject } from './load-project.js';
export { ProjectNotFoundError, DEFAULT_CHECK_MATCH, CONFIG_EXTENSIONS } from './discover.js';
export { RUNTIME_PACKAGES } from './scripts.js';
