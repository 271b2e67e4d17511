import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { growthSeries, type LedgerRow } from './model';

/** Experience after each movement, over time (uPlot: about 20 KB gzipped, in this chunk only). */
export function ExpChart({ rows, label }: { rows: LedgerRow[]; label: string }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const { x, y } = growthSeries(rows);
    const width = Math.max(240, el.clientWidth || 320);
    const chart = new uPlot(
      {
        width,
        height: 200,
        legend: { show: false },
        scales: { x: { time: true } },
        series: [{}, { label, stroke: '#c9a227', width: 2, fill: 'rgba(201, 162, 39, 0.15)', points: { show: x.length < 40 } }],
        axes: [{ stroke: '#667' }, { stroke: '#667', size: 56 }],
      },
      [x, y],
      el,
    );
    const resize = () => chart.setSize({ width: Math.max(240, el.clientWidth), height: 200 });
    window.addEventListener('resize', resize);
    return () => {
      window.removeEventListener('resize', resize);
      chart.destroy();
    };
  }, [rows, label]);
  return <div className="vip-chart" ref={box} data-testid="vip-chart" />;
}
