/** A bar chart in inline SVG: one bar per entry, its value written above it. */
export function BarChart({ title, bars, testId }: { title: string; bars: Array<{ label: string; value: number }>; testId?: string }) {
  const width = Math.max(240, bars.length * 36);
  const height = 140;
  const top = Math.max(1, ...bars.map((b) => b.value));
  const slot = width / Math.max(1, bars.length);
  const summary = bars.map((b) => `${b.label}: ${b.value}`).join(', ');
  return (
    <figure class="chart" data-testid={testId}>
      <svg viewBox={`0 0 ${width} ${height + 30}`} role="img" aria-label={`${title}. ${summary}`}>
        <title>{title}</title>
        {bars.map((b, i) => {
          const h = (b.value / top) * (height - 20);
          const x = i * slot + slot * 0.15;
          return (
            <g key={b.label} data-value={b.value}>
              <rect x={x} y={height - h} width={slot * 0.7} height={h} class="bar" />
              <text x={x + slot * 0.35} y={height - h - 4} text-anchor="middle" class="value">
                {b.value}
              </text>
              <text x={x + slot * 0.35} y={height + 16} text-anchor="middle" class="label">
                {b.label}
              </text>
            </g>
          );
        })}
      </svg>
      <figcaption>{title}</figcaption>
    </figure>
  );
}
