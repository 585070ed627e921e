/**
 * Every change to a memory dir, kept in a shadow git repository: list, read, diff, restore, record.
 * The front door (STYLE.md "The house"): code outside this folder imports only from here.
 */
export {
  type BundledText,
  bundleHistory,
  type ImportedHistory,
  isReadableBundle,
  keepBundledHistory,
  listImportedHistories,
  readBundledTexts,
} from './bundle.js';
export {
  type BroughtBack,
  type ChangeDescription,
  type ChangeSource,
  deletedFiles,
  diffRevisions,
  entriesSince,
  type HistoryEntry,
  HistoryError,
  headRevision,
  type HistoryFileChange,
  listHistory,
  noteInChange,
  planRestore,
  readAtRevision,
  readBytesAtRevision,
  readEntry,
  readFilesAtRevision,
  readSnapshot,
  recordExternalChanges,
  recordSnapshot,
  removeFoldersCreatedBy,
  restoreFromHistory,
  transact,
  changeWasTakenBack,
  type TurnTaggedEntry,
} from './history.js';
export { reinstateImportedHistory, retireImportedHistory } from './imports.js';
export { broughtBackSince, everyLaterChange, type LaterChange, laterChanges } from './later-changes.js';
export { recordedMemoryDirs } from './shadow-repo.js';
