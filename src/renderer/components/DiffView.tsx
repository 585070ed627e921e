/**
 * A unified git diff, rendered file by file with react-diff-view. Where the diff leaves lines
 * out (before, and between, its hunks), it says how many: "… 12 unchanged lines".
 */
import { Fragment } from 'react';
import { Decoration, Diff, Hunk, type HunkData, getCollapsedLinesCountBetween, parseDiff } from 'react-diff-view';
import 'react-diff-view/style/index.css';
import { plural } from '../../shared/size-text.js';
import { Breakable } from './Breakable.js';

/** For each hunk, how many unchanged lines the diff hides just before it. */
export function hiddenBefore(hunks: HunkData[]): number[] {
  return hunks.map((hunk, i) => getCollapsedLinesCountBetween(i === 0 ? null : hunks[i - 1]!, hunk));
}

export function DiffView({ diff, onRestoreFile }: { diff: string; onRestoreFile?: (file: string, deletedHere: boolean) => void }) {
  if (!diff.trim()) return <p className="muted">No changes in this entry.</p>;
  let files: ReturnType<typeof parseDiff>;
  try {
    files = parseDiff(diff, { nearbySequences: 'zip' });
  } catch {
    return <pre className="raw-diff">{diff}</pre>;
  }
  return (
    <div className="diffs">
      {files.map((file) => {
        const name = file.type === 'delete' ? file.oldPath : file.newPath;
        const hidden = hiddenBefore(file.hunks);
        return (
          <section key={`${file.oldPath}->${file.newPath}`} className="diff-file" aria-label={`Changes to ${name}`}>
            <header>
              <span className={`badge ${file.type === 'delete' ? 'error' : file.type === 'add' ? 'ok' : ''}`}>{file.type}</span>{' '}
              <code>
                <Breakable text={name} />
              </code>
              {onRestoreFile && (
                <button className="small" onClick={() => onRestoreFile(name, file.type === 'delete')}>
                  {file.type === 'delete' ? 'Restore the deleted file' : 'Restore this version'}
                </button>
              )}
            </header>
            <Diff viewType="unified" diffType={file.type} hunks={file.hunks}>
              {(hunks) =>
                hunks.map((h, i) => (
                  <Fragment key={h.content}>
                    {hidden[i]! > 0 && (
                      <Decoration className="diff-hidden">
                        <span className="muted">… {plural(hidden[i]!, 'unchanged line')}</span>
                      </Decoration>
                    )}
                    <Hunk hunk={h} />
                  </Fragment>
                ))
              }
            </Diff>
          </section>
        );
      })}
    </div>
  );
}
