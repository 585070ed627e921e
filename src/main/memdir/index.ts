/**
 * Claude Code's memory directories on disk (R-INDEX, R-KEY): the home and its projects, scanning, reading and
 * writing memories with history, the index, the memory lock (the confined file system under every writer is core's).
 * The front door (STYLE.md "The house"): code outside this folder imports only from here.
 */
export { changeDataFile, LEAVE_AS_IS, readDataFileNow } from './data-file-merge.js';
export {
  CLAUDE_CODE_STORE_MANIFEST,
  claudeCodeStoreFolders,
  inStoreMode,
  isClaudeCodeStoreFolder,
  type MemoryStoreEntry,
  type MemoryStoresSetting,
  readOnlyStoreFolders,
  readOnlyStoreNote,
  readStoreSetting,
  settingStores,
  STORE_FILE_SIZE_RULE,
  storeFileSizeWarning,
  storesLoadNoIndex,
} from './claude-code-stores.js';
export { quoteProblematicValues } from './frontmatter-retry.js';
export { scanFrontmatter } from './frontmatter-scanner.js';
export { describeYamlError, parseFrontmatterYaml } from './frontmatter-yaml.js';
export { expandTilde, projectsRoot, resolveHome } from './home.js';
export { MAX_MEMORY_DEPTH } from './list-memory-files.js';
export { MemoryError } from './memory-error.js';
export { missingMemory } from './missing-memory.js';
export {
  applyFixes,
  checkFileName,
  checkMemoryPath,
  checkNewFileName,
  createMemory,
  deleteMemory,
  retireMemory,
  retireMemoryFile,
  formTwin,
  inScope,
  pointerHome,
  pointerPlaces,
  pointerPlacesAt,
  previewFixes,
  readIndex,
  readText,
  refuseTakenName,
  renameMemory,
  saveIndexText,
  seedIndex,
  setMemoryType,
  suggestFileName,
  takenNameRefusal,
  takenSentence,
  twinClause,
  updateMemory,
  writeIndex,
  writingIndexesOnce,
  type Where,
} from './memory-service.js';
export { fixRequestOf } from '../../shared/problems.js';
export { groupProjects } from './project-groups.js';
export { type IdentityCache, identityOfPath, readPathFacts, rememberProjectPath } from './project-identity.js';
export {
  firstTranscriptField,
  listProjectDirs,
  locateGroup,
  locateProject,
  locateTranscriptProject,
  type ProjectLocation,
  ProjectNotFoundError,
} from './projects.js';
export { factsOf, type FileFacts, readIndexAsClaudeCode, readMemoryText } from './read-file.js';
export {
  INDEX_READ_MAX_BYTES,
  type IndexFileText,
  type MemoryFileText,
  readIndexFile,
  readIndexTextAsClaudeCode,
  readMemoryFile,
  UnreadableMemoryError,
} from './read-memory-file.js';
export { runGit } from './run-git.js';
export { listSubfolders, type Subfolder } from './subfolders.js';
export { type OpenedScanCache, openScanCache } from './scan-cache-file.js';
export { mapLimit, predictBuiltIndex, ScanCache, scanMemoryDir, teamDirOf } from './scan-dir.js';
export { HomeScanCache, scanHome, scanProject } from './scan-home.js';
export { type LaunchDirsOf, projectLaunchDirs } from './launch-dirs.js';
export { claudeConfigFiles, type FolderTrust, readFolderTrust } from './claude-config.js';
export { type EffectiveSettings, type PermissionRule, readEffectiveSettings, type SettingsCache } from './settings.js';
export { locateFrontmatter, type ParsedTopic, parseTopicFile, serializeTopicFile, type TopicFields } from './topic-file.js';
export { restoreRevision } from './restore-revision.js';
export { editedLinesWent, linesFor, type PlannedWrite, restoreMemoryFile, revertedIndexWrite, undoChange } from './undo-change.js';
