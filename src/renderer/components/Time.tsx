/** A moment shown relative ("3 minutes ago") with the exact local time on hover — never a raw ISO string. */
import { useEffect, useState } from 'react';
import { ago, exactTime, toMs } from './format.js';

/** Re-render once a minute so "just now" becomes "2 minutes ago" on its own. */
function useMinute(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 60_000);
    return () => clearInterval(timer);
  }, []);
  return now;
}

export function Time({ at, prefix = '' }: { at: string | number | null | undefined; prefix?: string }) {
  const now = useMinute();
  const ms = toMs(at);
  if (ms === null) return <span className="muted">never</span>;
  const exact = exactTime(ms);
  const relative = ago(ms, Math.max(now, Date.now()));
  return (
    <time dateTime={new Date(ms).toISOString()} title={exact} aria-label={`${prefix}${relative} (${exact})`}>
      {prefix}
      {relative}
    </time>
  );
}
