// Small helpers of the performance benchmark: percentiles and a plain-text table.

export const percentile = (xs: number[], p: number): number => {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
};
export const median = (xs: number[]) => percentile(xs, 50);
export const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN);
export const fmt = (n: number, digits = 2) => (Number.isFinite(n) ? n.toFixed(digits) : '-');
export const kb = (bytes: number) => `${(bytes / 1024).toFixed(0)} KB`;

export interface Row {
  section: string;
  what: string;
  measured: string;
  budget: string;
  verdict: '' | 'ok' | 'OVER' | 'n/a';
}

export function table(rows: Row[]): string {
  const cols: Array<keyof Row> = ['section', 'what', 'measured', 'budget', 'verdict'];
  const width = cols.map((c) => Math.max(c.length, ...rows.map((r) => r[c].length)));
  const line = (vals: string[]) =>
    vals
      .map((v, i) => v.padEnd(width[i]!))
      .join('  ')
      .trimEnd();
  return [line(cols), line(width.map((w) => '-'.repeat(w))), ...rows.map((r) => line(cols.map((c) => r[c])))].join(
    '\n',
  );
}
