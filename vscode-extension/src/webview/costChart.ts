/**
 * The "Cost" part of the Context view: draws a `CostChartView` (computed on the extension side by
 * `model/ledger.ts`) as SVG. Built with `createElementNS` and `textContent` only, like `dom.ts`, so
 * nothing from a session can inject markup; hover text is each shape's `<title>`, and the bar under
 * the pointer also writes its numbers in a line under the chart (`data-testid=cost-hover`).
 */
import type { CostChartView } from '../model/ledger';
import type { PartStatus } from '../sidebar/messages';
import { h } from './dom';

const SVG = 'http://www.w3.org/2000/svg';
const HOVER_HINT = 'Point at a bar (or focus it) for its turn: tokens, cost, share cached, time since the previous request.';

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

export function costPart(chart: CostChartView | null, status: PartStatus): HTMLElement | null {
  if (!chart) {
    if (status.state === 'error' || status.state === 'unavailable') {
      return h(
        'section',
        { id: 'cost', class: 'part', attrs: { 'aria-labelledby': 'cost-title' } },
        h('h2', { id: 'cost-title' }, 'Cost'),
        h('p', { class: 'muted', attrs: { role: 'status' } }, status.message ?? ''),
      );
    }
    return null;
  }
  const root = svg('svg', {
    viewBox: `0 0 ${chart.width} ${chart.height}`,
    class: 'cost-chart',
    role: 'img',
    'aria-label': chart.summary,
    preserveAspectRatio: 'none',
  });
  // The numbers of the bar under the pointer (or with the keyboard focus), in the view itself: a native
  // tooltip alone is slow to appear and invisible to screenshots.
  const hover = h('p', { class: 'cost-hover muted', attrs: { 'data-testid': 'cost-hover', 'aria-live': 'polite' } }, HOVER_HINT);
  let active: Element | null = null;
  const show = (group: Element, title: string): void => {
    active?.classList.remove('active');
    active = group;
    group.classList.add('active');
    hover.textContent = title;
  };
  const reset = (group: Element): void => {
    if (active === group) {
      group.classList.remove('active');
      active = null;
      hover.textContent = HOVER_HINT;
    }
  };
  for (const bar of chart.bars) {
    const group = svg('g', { class: 'cost-bar', 'data-entry': bar.entryId ?? '', 'data-index': bar.index, tabindex: 0 }, bar.title);
    for (const part of bar.parts) {
      group.append(svg('rect', { class: `cost-${part.kind}`, x: bar.x, y: part.y, width: bar.width, height: part.height }));
    }
    group.addEventListener('mouseenter', () => show(group, bar.title));
    group.addEventListener('focus', () => show(group, bar.title));
    group.addEventListener('mouseleave', () => reset(group));
    group.addEventListener('blur', () => reset(group));
    root.append(group);
  }
  if (chart.contextLine) {
    root.append(svg('polyline', { class: 'cost-context', points: chart.contextLine, fill: 'none' }, 'Context size after each turn'));
  }
  if (chart.thresholdY !== null) {
    root.append(
      svg('line', { class: 'cost-threshold', x1: 0, x2: chart.width, y1: chart.thresholdY, y2: chart.thresholdY }, chart.thresholdTitle ?? ''),
    );
  }
  for (const mark of chart.marks) {
    root.append(svg('line', { class: `cost-mark cost-mark-${mark.kind}`, x1: mark.x, x2: mark.x, y1: 0, y2: chart.height }, mark.title));
  }
  const legend = h(
    'p',
    { class: 'cost-legend muted' },
    h('span', { class: 'swatch cost-cached' }),
    ' cached input ',
    h('span', { class: 'swatch cost-input' }),
    ' new input ',
    h('span', { class: 'swatch cost-output' }),
    ' output · line: context size',
  );
  return h(
    'section',
    { id: 'cost', class: 'part', attrs: { 'aria-labelledby': 'cost-title' } },
    h('h2', { id: 'cost-title' }, 'Cost'),
    h('p', { class: 'cost-summary' }, chart.summary),
    root as unknown as HTMLElement,
    hover,
    legend,
    chart.thresholdNote ? h('p', { class: 'cost-threshold-note muted' }, chart.thresholdNote) : null,
    chart.next ? h('p', { class: 'cost-next' }, chart.next) : null,
  );
}
