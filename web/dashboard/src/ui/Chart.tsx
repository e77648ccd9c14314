import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { Stats } from '../api/types.ts';

type StatsDay = Stats['series'][number];

const SERIES: { key: keyof Omit<StatsDay, 'date'>; label: string; color: string }[] = [
  { key: 'conversations', label: 'Conversations', color: '#1d4ed8' },
  { key: 'messages', label: 'Customer messages', color: '#047857' },
  { key: 'escalations', label: 'Escalations', color: '#b45309' },
  { key: 'fallbacks', label: 'Fallbacks', color: '#b91c1c' },
];

/** The daily series as a line chart (uPlot, canvas); the table beside it carries the same figures for screen readers. */
/** A day of the series as people say it ("Sat, 28 Nov"): the days are UTC dates, with no time of day. */
const dayName = new Intl.DateTimeFormat(undefined, {
  weekday: 'short',
  day: 'numeric',
  month: 'short',
  timeZone: 'UTC',
});
/** Narrow enough for a 360 px screen's card, so the page never scrolls sideways. */
const MIN_WIDTH = 240;

export default function DailyChart({ days, title }: { days: StatsDay[]; title: string }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const x = days.map((d) => Date.parse(`${d.date}T00:00:00Z`) / 1000);
    const last = days.length - 1;
    const plot = new uPlot(
      {
        width: Math.max(MIN_WIDTH, el.clientWidth),
        height: 240,
        scales: { x: { time: true } },
        axes: [{ stroke: '#374151' }, { stroke: '#374151' }],
        series: [
          { label: 'Day', value: (_u, v) => (v == null ? '—' : dayName.format(new Date(v * 1000))) },
          ...SERIES.map((s) => ({ label: s.label, stroke: s.color, width: 2 })),
        ],
        // The legend shows the figures of the day under the cursor, and of the last day otherwise
        // (uPlot's own default is "--" until the chart is hovered).
        hooks: {
          ready: [(u) => u.setLegend({ idx: last })],
          setLegend: [
            (u) => {
              if (u.legend.idx == null && last >= 0) u.setLegend({ idx: last });
            },
          ],
        },
      },
      [x, ...SERIES.map((s) => days.map((d) => d[s.key]))],
      el,
    );
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(MIN_WIDTH, el.clientWidth), height: 240 }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [days]);
  return <div ref={box} role="img" aria-label={title} className="chart" />;
}
