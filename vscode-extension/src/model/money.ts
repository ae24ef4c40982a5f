/**
 * Dollar amounts as every view prints them, the same text as the CLI's (`lsp_server/base/money.py`):
 * under $1 four significant digits with trailing zeros dropped (`$0.01302`, `$0.0009`), from $1 cents with
 * thousands separated (`$1.25`, `$1,234.50`), `$0` for zero, `<$0.00001` below that, `unknown` without a
 * value. Both are tested against one table, `tests/fixtures/cost/format_usd.json`.
 */

const SMALLEST = 0.00001;

function withThousands(fixed: string): string {
  const dot = fixed.indexOf('.');
  const whole = fixed.slice(0, dot);
  return `${whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}${fixed.slice(dot)}`;
}

export function formatUsd(value: number | null | undefined): string {
  if (value === null || value === undefined || Number.isNaN(value)) {
    return 'unknown';
  }
  if (value < 0) {
    return `-${formatUsd(-value)}`;
  }
  if (value === 0) {
    return '$0';
  }
  if (value < SMALLEST) {
    return '<$0.00001';
  }
  if (value < 1) {
    // toPrecision rounds the double's exact value, ties up; Number() drops the trailing zeros.
    const rounded = Number(value.toPrecision(4));
    if (rounded < 1) {
      return `$${String(rounded)}`;
    }
  }
  return `$${withThousands(value.toFixed(2))}`;
}
