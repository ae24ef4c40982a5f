/**
 * Number formats shared by the status bar, the sidebar and the quick picks, so the same count
 * always reads the same everywhere ("200k" in the status bar is "200k" in the gauge).
 */

/** Compact token count: 812, 1.2k, 12k, 200k, 1.05M. */
export function formatTokens(n: number): string {
  const sign = n < 0 ? '-' : '';
  const a = Math.abs(Math.round(n));
  if (a < 1000) {
    return `${sign}${a}`;
  }
  if (a < 10_000) {
    return `${sign}${trim((a / 1000).toFixed(1))}k`;
  }
  if (a < 999_500) {
    return `${sign}${Math.round(a / 1000)}k`;
  }
  return `${sign}${trim((a / 1_000_000).toFixed(2))}M`;
}

/** A signed token delta for change highlights: +340, -12, ±0. */
export function formatDelta(n: number): string {
  if (n === 0) {
    return '±0';
  }
  return n > 0 ? `+${formatTokens(n)}` : formatTokens(n);
}

/** Exact count with thousands separators, for tooltips and text equivalents: 12,345. */
export function formatExact(n: number): string {
  const s = String(Math.abs(Math.round(n)));
  const grouped = s.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return n < 0 ? `-${grouped}` : grouped;
}

/** Whole percent, but never "0%" for a non-zero share nor "100%" for a share below the whole. */
export function formatPercent(part: number, whole: number): string {
  if (whole <= 0) {
    return '0%';
  }
  const p = (part / whole) * 100;
  if (p > 0 && p < 1) {
    return '<1%';
  }
  if (p > 99 && p < 100) {
    return '99%';
  }
  return `${Math.round(p)}%`;
}

function trim(fixed: string): string {
  return fixed.includes('.') ? fixed.replace(/\.?0+$/, '') : fixed;
}
