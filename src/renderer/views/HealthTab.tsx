/** Health problems of the project's memory, each explained, fixable in one click when safe. */
import { useProject, problemsOf } from '../stores/project.js';
import type { ProjectScan } from '../../shared/scan-types.js';

const ORDER = { error: 0, warning: 1, hint: 2 } as const;

export function HealthTab({ scan }: { scan: ProjectScan }) {
  const fix = useProject((s) => s.fix);
  const problems = problemsOf(scan).sort((a, b) => ORDER[a.severity] - ORDER[b.severity]);
  const fixable = problems.filter((p) => p.fix);
  if (problems.length === 0) return <p className="ok-note">No problems: every memory is listed, every pointer leads somewhere, and the index fits.</p>;
  return (
    <div>
      <div className="toolbar">
        <span>
          {problems.length} problems, {fixable.length} fixable safely
        </span>
        {fixable.length > 0 && (
          <button className="primary" onClick={() => void fix(fixable)}>
            Fix all {fixable.length} safely
          </button>
        )}
      </div>
      <ul className="problem-list" aria-label="Problems">
        {problems.map((p, i) => (
          <li key={`${p.scope}-${p.code}-${p.file}-${p.line}-${i}`} className={p.severity}>
            <span className={`badge ${p.severity}`}>{p.code}</span>
            <span className="problem-where">
              {p.scope === 'team' ? 'team/' : ''}
              {p.file ?? 'directory'}
              {p.line ? `:${p.line}` : ''}
            </span>
            <span className="problem-message">{p.message}</span>
            {p.fix && (
              <button onClick={() => void fix([p])} aria-label={`Fix: ${p.message}`}>
                {p.fix === 'add-to-index' ? 'Add to index' : p.fix === 'drop-pointer' ? 'Remove pointer' : 'Remove repeat'}
              </button>
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}
