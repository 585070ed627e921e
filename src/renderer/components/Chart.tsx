/**
 * One uPlot chart (a small canvas chart library, LIBRARIES.md), themed from the app's CSS
 * variables so it follows light and dark — redrawn when the theme or the width changes.
 */
import { useEffect, useRef, useState } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import './charts.css';
import { timeDomain, timeLabels, timeSpace } from './time-axis.js';

/** The app's colours, read from its CSS variables (the theme in force). */
export interface ChartTheme {
  text: string;
  muted: string;
  border: string;
  accent: string;
  ok: string;
  warning: string;
  error: string;
}

function readTheme(): ChartTheme {
  const css = getComputedStyle(document.documentElement);
  const v = (name: string, fallback: string) => css.getPropertyValue(name).trim() || fallback;
  return {
    text: v('--text', '#1d1d1f'),
    muted: v('--muted', '#6b6b70'),
    border: v('--border', '#e2e2e0'),
    accent: v('--accent', '#3b5bdb'),
    ok: v('--ok', '#237a36'),
    warning: v('--warning', '#a05a00'),
    error: v('--error', '#c92a2a'),
  };
}

/** The current theme, updated when `data-theme` changes on the page. */
function useChartTheme(): ChartTheme {
  const [theme, setTheme] = useState<ChartTheme>(readTheme);
  useEffect(() => {
    const observer = new MutationObserver(() => setTheme(readTheme()));
    observer.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
    return () => observer.disconnect();
  }, []);
  return theme;
}

export function Chart({
  label,
  data,
  options,
  height = 180,
}: {
  label: string;
  data: uPlot.AlignedData;
  options: (theme: ChartTheme) => Omit<uPlot.Options, 'width' | 'height'>;
  height?: number;
}) {
  const host = useRef<HTMLDivElement>(null);
  const theme = useChartTheme();
  const [width, setWidth] = useState(600);
  useEffect(() => {
    const el = host.current;
    if (!el) return;
    const observer = new ResizeObserver(() => setWidth(Math.max(240, Math.floor(el.clientWidth))));
    observer.observe(el);
    return () => observer.disconnect();
  }, []);
  useEffect(() => {
    const el = host.current;
    if (!el) return;
    const axis = { stroke: theme.muted, grid: { stroke: theme.border, width: 1 }, ticks: { stroke: theme.border, width: 1 } };
    const base = options(theme);
    // The x axis is time (seconds): its span and its words are time-axis.ts's, and the words drawn
    // on the canvas are also on the chart's element (data-axis-from/to, data-axis-labels) to be read.
    let drawn: string[] = [];
    const timeX: uPlot.Axis = {
      values: (_u, splits, _i, _space, incr) => (drawn = timeLabels(splits, incr)),
      size: 44,
      space: (_u, _i, min, max, plotPx) => timeSpace(min, max, plotPx),
    };
    const [first = {}, ...rest] = base.axes ?? [];
    const plot = new uPlot(
      {
        ...base,
        scales: { ...base.scales, x: { time: true, range: (u) => timeDomain(u.data[0]) ?? [0, 1], ...base.scales?.x } },
        axes: [{ ...axis, ...timeX, ...first }, ...rest.map((a) => ({ ...axis, ...a }))],
        hooks: {
          ...base.hooks,
          draw: [
            ...(base.hooks?.draw ?? []),
            (u) => {
              const { min, max } = u.scales.x!;
              if (min === undefined || max === undefined) return;
              el.dataset.axisFrom = new Date(min * 1000).toISOString();
              el.dataset.axisTo = new Date(max * 1000).toISOString();
              el.dataset.axisLabels = drawn.map((l) => l.replace('\n', ' ')).join(' | ');
            },
          ],
        },
        width,
        height,
      },
      data,
      el,
    );
    return () => plot.destroy();
  }, [data, options, theme, width, height]);
  return <div ref={host} className="chart-canvas" role="img" aria-label={label} />;
}
