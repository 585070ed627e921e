/**
 * Curation: duplicates, merging, making room in the index, bulk changes (one undo for many), the timeline.
 * The front door (STYLE.md "The house"): code outside this folder imports only from here.
 */
export { bulkChange } from './bulk-change.js';
export { findDuplicatePairs, findSimilar, readDuplicateMemories } from './find-duplicates.js';
export { makeRoom } from './make-room.js';
export { compareMemories, disagreement, featuresOf, fingerprintOf, jaccard, type MemoryFingerprint, sentencesOf } from './memory-similarity.js';
export { composeMerge, mergeMemories, splitTopicText } from './merge-memories.js';
export { projectTimeline } from './timeline.js';
