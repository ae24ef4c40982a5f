/**
 * The Usage panel's webview: draws the `UsageView` the host posts (built by `model/usage.ts`), and
 * sends back the grouping and range the user picks. DOM through `h()` and `createElementNS` only (no
 * `innerHTML`), so no text from a session can inject markup. The last view is kept in the webview's
 * state and shown again at once when the panel is restored.
 */
import { GROUPINGS, RANGES, type UsageChartView, type UsageRange, type UsageView } from '../../model/usage';
import type { UsageHostMessage, UsageWebviewMessage } from '../../usage/messages';
import { button, h } from '../dom';

interface VsCodeApi {
  postMessage(message: UsageWebviewMessage): void;
  getState(): unknown;
  setState(state: unknown): void;
}

declare function acquireVsCodeApi(): VsCodeApi;

const SVG = 'http://www.w3.org/2000/svg';
const RANGE_LABELS: Record<UsageRange, string> = { all: 'All time', '30': 'Last 30 days', '7': 'Last 7 days' };
const HOVER_HINT = 'Point at a day (or focus it) for its cost, turns, cache share and tokens.';

const vscode = acquireVsCodeApi();
let view = (vscode.getState() as { view?: UsageView } | undefined)?.view ?? null;
let status: { message: string; loading: boolean } | null = null;
const root = document.getElementById('usage') as HTMLElement;
const send = (m: UsageWebviewMessage): void => vscode.postMessage(m);

function svg(tag: string, attrs: Record<string, string | number>, title?: string): SVGElement {
  const el = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) {
    el.setAttribute(name, String(value));
  }
  if (title) {
    const t = document.createElementNS(SVG, 'title');
    t.textContent = title;
    el.append(t);
  }
  return el;
}

function controls(current: UsageView | null): HTMLElement {
  const select = h(
    'select',
    { attrs: { 'data-testid': 'usage-group', 'aria-label': 'Group by' } },
    ...GROUPINGS.map((by) => h('option', { attrs: { value: by, selected: current?.by === by ? '' : undefined } }, by)),
  );
  select.addEventListener('change', () => send({ type: 'group', by: select.value as UsageView['by'] }));
  const ranges = RANGES.map((range) =>
    button(RANGE_LABELS[range], () => send({ type: 'range', range }), {
      class: current?.range === range ? 'range active' : 'range',
      attrs: { 'data-testid': `usage-range-${range}`, 'aria-pressed': String(current?.range === range) },
    }),
  );
  return h(
    'div',
    { class: 'controls' },
    h('label', null, 'Group by ', select),
    h('span', { class: 'ranges' }, ...ranges),
    button('Refresh', () => send({ type: 'refresh' }), { attrs: { 'data-testid': 'usage-refresh' } }),
  );
}

function chart(c: UsageChartView): HTMLElement {
  const box = svg('svg', {
    viewBox: `0 0 ${c.width} ${c.height}`,
    class: 'usage-chart',
    role: 'img',
    'aria-label': `Tokens per day from ${c.firstDay} to ${c.lastDay}`,
    preserveAspectRatio: 'none',
    'data-testid': 'usage-chart',
  });
  const hover = h('p', { class: 'muted', attrs: { 'data-testid': 'usage-hover', 'aria-live': 'polite' } }, HOVER_HINT);
  for (const bar of c.bars) {
    const group = svg('g', { class: 'usage-bar', 'data-day': bar.day, 'data-testid': 'usage-bar', tabindex: 0 }, bar.title);
    group.append(svg('rect', { class: 'usage-slot', x: bar.x, y: 0, width: bar.width, height: c.height }));
    for (const part of bar.parts) {
      group.append(svg('rect', { class: `usage-${part.kind}`, x: bar.x, y: part.y, width: bar.width, height: part.height }));
    }
    const show = (): void => {
      hover.textContent = bar.title;
    };
    group.addEventListener('mouseenter', show);
    group.addEventListener('focus', show);
    box.append(group);
  }
  if (c.shareLine) {
    box.append(svg('polyline', { class: 'usage-share', points: c.shareLine, fill: 'none', 'data-testid': 'usage-share' }, 'Share of the prompt read from the cache (0–100%)'));
  }
  return h(
    'section',
    { class: 'chart' },
    h('p', { class: 'axis muted' }, h('span', null, `top: ${c.scaleLabel}`), h('span', null, 'line: cache share, 0–100%')),
    box as unknown as HTMLElement,
    h('p', { class: 'axis muted' }, h('span', null, c.firstDay), h('span', null, c.lastDay)),
    hover,
    h(
      'p',
      { class: 'legend muted' },
      h('span', { class: 'swatch usage-cached' }),
      ' cached input ',
      h('span', { class: 'swatch usage-input' }),
      ' new input ',
      h('span', { class: 'swatch usage-output' }),
      ' output',
      c.note ? ` · ${c.note}` : '',
    ),
  );
}

function table(v: UsageView): HTMLElement {
  const head = h(
    'tr',
    null,
    ...[v.groupTitle, 'Sessions', 'Turns', 'Tokens', 'Cached', 'Cost'].map((title) => h('th', { attrs: { scope: 'col' } }, title)),
  );
  const rows = v.rows.map((row) =>
    h(
      'tr',
      { attrs: { 'data-testid': 'usage-row', 'data-key': row.key, title: row.title } },
      h('th', { attrs: { scope: 'row' } }, row.label),
      h('td', null, row.sessions),
      h('td', null, row.turns),
      h('td', null, row.tokens),
      h('td', null, row.cached),
      h('td', null, row.cost),
    ),
  );
  return h('table', { attrs: { 'data-testid': 'usage-table' } }, h('thead', null, head), h('tbody', null, ...rows));
}

function render(): void {
  const parts: (HTMLElement | null)[] = [h('h1', null, 'Usage across Pi sessions'), controls(view)];
  if (status) {
    parts.push(h('p', { class: status.loading ? 'status muted' : 'status', attrs: { 'data-testid': 'usage-status', role: 'status' } }, status.message));
  }
  if (view && !(status && !status.loading)) {
    parts.push(h('p', { class: 'headline', attrs: { 'data-testid': 'usage-headline' } }, view.headline));
    parts.push(h('p', { class: 'muted', attrs: { 'data-testid': 'usage-detail' } }, view.detail));
    if (view.empty) {
      parts.push(h('p', { class: 'muted', attrs: { 'data-testid': 'usage-empty' } }, view.empty));
    }
    if (view.chart) {
      parts.push(chart(view.chart));
    }
    if (view.rows.length > 0) {
      parts.push(table(view));
    }
    if (view.notes.length > 0) {
      parts.push(h('ul', { class: 'notes muted' }, ...view.notes.map((note) => h('li', null, note))));
    }
  }
  root.replaceChildren(...parts.filter((part): part is HTMLElement => part !== null));
}

window.addEventListener('message', (event: MessageEvent<UsageHostMessage>) => {
  const data = event.data;
  if (data?.type === 'view') {
    view = data.view;
    status = null;
    vscode.setState({ view });
  } else if (data?.type === 'status') {
    status = { message: data.message, loading: data.loading };
  } else {
    return;
  }
  render();
});

render();
send({ type: 'ready' });
