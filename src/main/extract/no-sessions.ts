/**
 * Why a project has nothing to extract, in one sentence for every door ("Extract now", `memdir extract`).
 * Extraction reads the project's launch folders (ProjectLocation.transcriptDirs) — the folders the dream
 * gate counts and the version line reads. A memory folder whose own sessions read another memory
 * (`readInstead`) has transcripts, but they belong to that other memory: said so, with where to go.
 */
import type { ProjectLocation } from '../memdir/index.js';

export function noSessionsToExtract(location: Pick<ProjectLocation, 'key' | 'readInstead'>): string {
  if (location.readInstead)
    return `Nothing to extract here: sessions launched in ${location.key} read projects/${location.readInstead}/memory instead, so their transcripts are extracted into that memory (memdir extract --project ${location.readInstead}).`;
  return `No session to read yet: Claude Code has no transcripts for ${location.key} (no session launched there or in a directory that reads its memory), so there is nothing to extract.`;
}
