/** Tokens and estimated cost per dream (issue 14, item 9), oldest first; offline dreams cost nothing and show as zero. */
import { useCallback, useMemo } from 'react';
import uPlot from 'uplot';
import type { DreamRecord } from '../../shared/contract/dream.js';
import { Chart, type ChartTheme } from './Chart.js';

export function DreamChart({ dreams }: { dreams: readonly DreamRecord[] }) {
  const shown = useMemo(() => [...dreams].filter((d) => d.status !== 'running').sort((a, b) => Date.parse(a.startedAt) - Date.parse(b.startedAt)), [dreams]);
  const data = useMemo<uPlot.AlignedData>(() => {
    const xs = shown.map((d) => Date.parse(d.startedAt) / 1000);
    for (let i = 1; i < xs.length; i++) if (xs[i]! <= xs[i - 1]!) xs[i] = xs[i - 1]! + 1;
    return [xs, shown.map((d) => d.tokens.input + d.tokens.output), shown.map((d) => d.costUsd ?? 0)];
  }, [shown]);
  const options = useCallback(
    (theme: ChartTheme): Omit<uPlot.Options, 'width' | 'height'> => ({
      scales: { usd: { auto: true, range: (_u, _min, max) => [0, Math.max(max, 0.01)] } },
      axes: [{}, { label: 'tokens', size: 64 }, { scale: 'usd', side: 1, label: 'USD', size: 60, grid: { show: false } }],
      series: [
        {},
        {
          label: 'Tokens (in + out)',
          stroke: theme.accent,
          fill: `${theme.accent}55`,
          width: 1,
          paths: uPlot.paths.bars!({ size: [0.6, 40] }),
          points: { show: false },
        },
        { label: 'Cost (USD, estimated)', scale: 'usd', stroke: theme.warning, width: 2, value: (_u, v) => (v === null ? '—' : `$${v.toFixed(4)}`) },
      ],
    }),
    [],
  );
  if (shown.length === 0) return null;
  const tokens = shown.reduce((n, d) => n + d.tokens.input + d.tokens.output, 0);
  const cost = shown.reduce((n, d) => n + (d.costUsd ?? 0), 0);
  return (
    <section className="chart" aria-label="Tokens and cost per dream">
      <h3>Tokens and cost per dream</h3>
      <Chart label={`Tokens and cost of ${shown.length} dreams`} data={data} options={options} height={160} />
      <p className="muted small">
        {shown.length} {shown.length === 1 ? 'dream' : 'dreams'}: {tokens.toLocaleString('en-US')} tokens, about ${cost.toFixed(4)}
        {shown.some((d) => d.method === 'rules') ? ' (offline dreams use no model: 0 tokens)' : ''}.
      </p>
    </section>
  );
}
