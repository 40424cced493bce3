/** State: the document, its backends and lock, the apply journal and `vigil state` edits. */
export type {
  Address,
  ForceUnlockOptions,
  ForceUnlockResult,
  LockHolder,
  LockOptions,
  JournalEntry,
  JournalOperation,
  JournalStep,
  LockOwner,
  RemoteId,
  ResourceKind,
  StateBackend,
  StateDocument,
  StateLock,
  StateResource,
  StateTarget,
  StateWriteOptions,
} from './types.js';
export { StateError, isStateError, type StateErrorCode } from './errors.js';
export { LOGICAL_ID_PATTERN, closestAddress, formatAddress, parseAddress, tryParseAddress, type ParsedAddress } from './addresses.js';
export {
  STATE_VERSION,
  assertReplaceable,
  assertSameTarget,
  bindToTarget,
  emptyState,
  hashSecret,
  normaliseBaseUrl,
  parseStateDocument,
  retargetState,
  sameTarget,
  serialForWrite,
  serializeState,
  stateDocumentSchema,
} from './document.js';
export { applyJournalStep, beginOperation, completeOperation, newJournalEntry, pendingOperations } from './journal.js';
export { getResource, moveResource, removeResource, unprotectResource, withProtection } from './edit.js';
export { DEFAULT_STATE_PATH, createLocalBackend, type LocalBackendOptions } from './local-backend.js';
export { createHttpBackend, type HttpBackendOptions } from './http-backend.js';
export { displayAddress, type HttpStateCredentials } from './http-transport.js';
export { describeOwner, isProcessAlive } from './lock-file.js';
export { formatDuration, parseLockTimeout } from './duration.js';
export { createPostgresBackend, displayConnectionString, stateTableName, type PostgresBackendOptions } from './postgres-backend.js';
export { createS3Backend, type S3BackendOptions } from './s3-backend.js';
export type { AwsCredentials } from './s3-signing.js';
