/** A running dream: the phase bar (Orient → Gather → Consolidate → Prune → Apply), its step, files and tokens, and cancel. */
import type { Job } from '../../shared/contract/events.js';
import { phaseSteps } from '../stores/dream.js';

export function DreamProgress({ job, onCancel }: { job: Job; onCancel: () => void }) {
  const steps = phaseSteps(job);
  const running = job.state === 'running' || job.state === 'queued';
  return (
    <section className="dream-progress" aria-label="Dream progress">
      <ol className="phase-bar">
        {steps.map((s) => (
          <li key={s.phase} className={`phase ${s.state}`} aria-current={s.state === 'active' ? 'step' : undefined}>
            {s.label}
          </li>
        ))}
      </ol>
      <div className="toolbar">
        <span className="meter-bar" role="progressbar" aria-valuemin={0} aria-valuemax={100} aria-valuenow={Math.round((job.progress ?? 0) * 100)}>
          <span className="meter-fill" style={{ width: `${Math.round((job.progress ?? 0) * 100)}%` }} />
        </span>
        {job.step && <span className="small">{job.step}</span>}
        {job.message && <span className="muted small">{job.message}</span>}
        <span className="spacer" />
        {running && (
          <button className="small" onClick={onCancel} title="Stop the dream: nothing is written, the lock is rolled back">
            Cancel dream
          </button>
        )}
      </div>
    </section>
  );
}
