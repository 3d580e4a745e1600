import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';

/** Series colours after Okabe–Ito (colour-blind safe), darkened to at least 3:1 against the white background. */
const COLOURS = ['#0072B2', '#C24E00', '#00806A', '#B3478F', '#7A6200', '#4B4B9E', '#3B3B3B', '#8F3B3B'];

export interface Series {
  key: string;
  label: string;
}

/**
 * A stacked bar chart (Recharts) inside a <figure>, with the same numbers as a table for screen
 * readers and keyboard users (the chart itself is keyboard-navigable through Recharts' accessibility layer).
 */
export function StackedBars({
  id,
  title,
  rows,
  xKey,
  series,
  format,
  tick = format,
  empty,
}: {
  id: string;
  title: string;
  rows: Array<Record<string, string | number>>;
  xKey: string;
  series: Series[];
  format: (v: number) => string;
  /** Axis labels (default: `format`). */
  tick?: (v: number) => string;
  empty: string;
}) {
  const total = rows.reduce((sum, r) => sum + series.reduce((s, x) => s + Number(r[x.key] ?? 0), 0), 0);
  return (
    <figure className="chart" data-testid={id} data-total={total} aria-labelledby={`${id}-title`}>
      <figcaption id={`${id}-title`}>{title}</figcaption>
      {total === 0 ? (
        <p className="muted">{empty}</p>
      ) : (
        <div className="chart-box">
          <ResponsiveContainer width="100%" height={260}>
            <BarChart data={rows} margin={{ top: 8, right: 8, left: 8, bottom: 8 }} accessibilityLayer>
              <CartesianGrid strokeDasharray="3 3" vertical={false} />
              <XAxis dataKey={xKey} tick={{ fontSize: 12 }} minTickGap={12} />
              <YAxis tickFormatter={(v: number) => tick(v)} tick={{ fontSize: 12 }} width={72} />
              <Tooltip formatter={(v) => format(Number(v))} />
              <Legend />
              {series.map((s, i) => (
                <Bar
                  key={s.key}
                  dataKey={s.key}
                  name={s.label}
                  stackId="stack"
                  fill={COLOURS[i % COLOURS.length]}
                  isAnimationActive={false}
                />
              ))}
            </BarChart>
          </ResponsiveContainer>
        </div>
      )}
      {total === 0 ? null : (
        <details>
          <summary>Data table</summary>
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">{xKey}</th>
                  {series.map((s) => (
                    <th scope="col" key={s.key}>
                      {s.label}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {rows
                  .filter((r) => series.some((s) => Number(r[s.key] ?? 0) !== 0))
                  .map((r) => (
                    <tr key={String(r[xKey])}>
                      <th scope="row">{r[xKey]}</th>
                      {series.map((s) => (
                        <td key={s.key} className="num">
                          {format(Number(r[s.key] ?? 0))}
                        </td>
                      ))}
                    </tr>
                  ))}
              </tbody>
            </table>
          </div>
        </details>
      )}
    </figure>
  );
}
