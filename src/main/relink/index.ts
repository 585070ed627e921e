/**
 * Memory that follows the project (issue 18): orphans and where their project went, relink and
 * merge with one undo, clone groups, export and import. The front door: the CLI and the API
 * import from here.
 */
export { findOrphans, isOrphan, shallowProjects, pathsForDirName, type FindOrphansOptions } from './orphans.js';
export { planRelink, relink, planMerge, mergeProjects, type RelinkContext } from './relink-service.js';
export { cloneGroups, keepApart, readKeptApart } from './clone-groups.js';
export { undoMerge, undoHistoryEntry, conflictSides, resolveMergeConflict, retireForRestore, turnEntries } from './undo-merge.js';
export { checkMergeHome, listMergeRecords, mergeInHome, readMergeRecord, shownMergeConflict, shownMergePlan, shownMergeRecord } from './merge-records.js';
export { finishUnfinishedTurn } from './turn-as-one.js';
export {
  exportProject,
  importArchive,
  importedHistories,
  planImport,
  type ExportOptions,
  type ExportRefused,
  type ExportResult,
  type ImportedHistoryListing,
} from './export-import.js';
export type { ExportFinding } from './export-secrets.js';
