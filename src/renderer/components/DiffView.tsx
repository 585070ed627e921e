/** A unified git diff, rendered file by file with react-diff-view. */
import { Diff, Hunk, parseDiff } from 'react-diff-view';
import 'react-diff-view/style/index.css';

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
        return (
          <section key={`${file.oldPath}->${file.newPath}`} className="diff-file" aria-label={`Changes to ${name}`}>
            <header>
              <span className={`badge ${file.type === 'delete' ? 'error' : file.type === 'add' ? 'ok' : ''}`}>{file.type}</span> <code>{name}</code>
              {onRestoreFile && (
                <button className="small" onClick={() => onRestoreFile(name, file.type === 'delete')}>
                  {file.type === 'delete' ? 'Restore the deleted file' : 'Restore this version'}
                </button>
              )}
            </header>
            <Diff viewType="unified" diffType={file.type} hunks={file.hunks}>
              {(hunks) => hunks.map((h) => <Hunk key={h.content} hunk={h} />)}
            </Diff>
          </section>
        );
      })}
    </div>
  );
}
