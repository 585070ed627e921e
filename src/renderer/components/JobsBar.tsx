/** Running background jobs with their phase, progress and a cancel button. */
import { useMemo } from 'react';
import { useJobs } from '../stores/jobs.js';

export function JobsBar() {
  // Select the stored array (a stable reference) and derive from it: a selector returning a new
  // array on every call would make zustand re-render forever.
  const all = useJobs((s) => s.jobs);
  const jobs = useMemo(() => all.filter((j) => j.state === 'running' || j.state === 'queued'), [all]);
  const cancel = useJobs((s) => s.cancel);
  if (jobs.length === 0) return null;
  return (
    <div className="jobs-bar" role="status" aria-label="Background jobs">
      {jobs.map((job) => (
        <div key={job.id} className="job">
          <span className="job-title">{job.title}</span>
          {job.phase && <span className="chip">{job.phase}</span>}
          {job.step && <span className="muted small">{job.step}</span>}
          <span className="meter-bar" aria-label="Progress">
            <span className="meter-fill" style={{ width: `${Math.round((job.progress ?? 0) * 100)}%` }} />
          </span>
          <button className="small" onClick={() => void cancel(job.id)}>
            Cancel
          </button>
        </div>
      ))}
    </div>
  );
}
