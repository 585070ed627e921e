/**
 * A project's timeline, from its history (issue 14, item 9): memories and MEMORY.md's size after
 * each change, the 200-line limit drawn, each dream and sync marked; a click on the chart (or on a
 * marked change below it) opens that change in the history.
 */
import { useCallback, useEffect, useMemo, useRef } from 'react';
import type uPlot from 'uplot';
import { INDEX_MAX_LINES } from '../../shared/limits.js';
import { useHistory } from '../stores/history.js';
import { useTimeline } from '../stores/timeline.js';
import { Chart, type ChartTheme } from './Chart.js';
import { when } from './format.js';

const MARKED = new Set(['dream', 'sync']);

export function ProjectTimeline({ dir, version }: { dir: string; version: unknown }) {
  const points = useTimeline((s) => (s.dir === dir ? s.points : null));
  const error = useTimeline((s) => (s.dir === dir ? s.error : null));
  useEffect(() => {
    void useTimeline.getState().load(dir);
  }, [dir]);
  // The memory changed: once per burst of changes (`coalescedReads`), and not for the memory as the chart opened on it (`load` reads).
  const shown = useRef(version);
  useEffect(() => {
    if (version === shown.current) return;
    shown.current = version;
    useTimeline.getState().onChanged(dir);
  }, [dir, version]);

  const open = useCallback((rev: string) => void useHistory.getState().select(rev), []);
  const data = useMemo<uPlot.AlignedData | null>(() => {
    if (!points || points.length === 0) return null;
    const xs = points.map((p) => Date.parse(p.time) / 1000);
    // Two changes in one second still get their own place on the axis.
    for (let i = 1; i < xs.length; i++) if (xs[i]! <= xs[i - 1]!) xs[i] = xs[i - 1]! + 1;
    return [
      xs,
      points.map((p) => p.memories + p.teamMemories),
      points.map((p) => p.indexLines),
      // The limit is drawn once the index is past half of it: below, it only flattens the lines.
      points.map(() => (points.some((p) => (p.indexLines ?? 0) >= INDEX_MAX_LINES / 2) ? INDEX_MAX_LINES : null)),
      points.map((p) => (p.source === 'dream' ? p.memories + p.teamMemories : null)),
      points.map((p) => (p.source === 'sync' ? p.memories + p.teamMemories : null)),
    ];
  }, [points]);
  const options = useCallback(
    (theme: ChartTheme): Omit<uPlot.Options, 'width' | 'height'> => ({
      legend: { show: true },
      cursor: { points: { size: 6 } },
      axes: [{}, { label: 'memories · index lines', size: 56 }],
      series: [
        {},
        { label: 'Memories', stroke: theme.accent, width: 2 },
        { label: 'MEMORY.md lines', stroke: theme.ok, width: 2 },
        { label: 'Line limit (200)', stroke: theme.error, width: 1, dash: [6, 4], points: { show: false } },
        { label: 'Dream', stroke: theme.warning, width: 0, points: { show: true, size: 10, fill: theme.warning } },
        { label: 'Sync', stroke: theme.muted, width: 0, points: { show: true, size: 8, fill: theme.muted } },
      ],
      hooks: {
        ready: [
          (u) =>
            u.over.addEventListener('click', () => {
              const i = u.cursor.idx;
              if (i !== null && i !== undefined && points?.[i]) open(points[i]!.rev);
            }),
        ],
      },
    }),
    [points, open],
  );
  if (error) return <p className="muted small">The timeline could not be drawn: {error}</p>;
  if (!points) return null;
  const marked = points.filter((p) => MARKED.has(p.source)).slice(-12);
  return (
    <section className="chart" aria-label="Timeline">
      <h2>Timeline</h2>
      {data === null ? (
        <p className="muted small">No change recorded yet.</p>
      ) : (
        <>
          <Chart label={`Memories and MEMORY.md lines over ${points.length} changes`} data={data} options={options} />
          <p className="muted small">Click the chart to open the change under the cursor.</p>
          {marked.length > 0 && (
            <ul className="chart-events" aria-label="Dreams and syncs">
              {marked.map((p) => (
                <li key={p.rev}>
                  <button className="link" onClick={() => open(p.rev)} title={p.summary}>
                    {p.source === 'dream' ? '◆ Dream' : '● Sync'} {when(p.time)}
                  </button>
                </li>
              ))}
            </ul>
          )}
        </>
      )}
    </section>
  );
}
