/**
 * The sidebar's DOM: draws a `SidebarView` (all numbers and labels computed on the extension side)
 * and turns clicks into messages. It keeps the last view and the open/closed state of the request's
 * groups in the webview state, so a hidden-then-shown view is redrawn at once, before the host's
 * fresh view arrives.
 */
import type { BudgetView, GaugeSegment } from '../model/budget';
import { formatExact, formatPercent, formatTokens } from '../model/format';
import type { MessageGroup, MessageRow, RequestView } from '../model/requestMessages';
import type { SectionRow } from '../model/sections';
import type { HostMessage, PartStatus, SidebarView, WebviewMessage } from '../sidebar/messages';
import { costPart } from './costChart';
import { button, h } from './dom';

interface VsCodeApi {
  postMessage(message: WebviewMessage): void;
  getState(): unknown;
  setState(state: unknown): void;
}

declare function acquireVsCodeApi(): VsCodeApi;

interface SavedState {
  view: SidebarView | null;
  open: Record<string, boolean>;
}

const vscode = acquireVsCodeApi();
const saved = (vscode.getState() as SavedState | undefined) ?? { view: null, open: {} };
const state: SavedState = { view: saved.view ?? null, open: saved.open ?? {} };
const send = (m: WebviewMessage): void => vscode.postMessage(m);

function save(): void {
  vscode.setState(state);
}

window.addEventListener('message', (event: MessageEvent<HostMessage>) => {
  const data = event.data;
  if (data && data.type === 'view') {
    state.view = data.view;
    save();
    render();
  }
});

function render(): void {
  const app = document.getElementById('app');
  const view = state.view;
  if (!app || !view) {
    return;
  }
  // Keep the focused control focused across redraws (found again by its data-focus key).
  const focusKey = (document.activeElement as HTMLElement | null)?.dataset?.focus;
  const cost = costPart(view.cost ?? null, view.costStatus ?? { state: 'empty' });
  const parts = [header(view), serverNotice(view), budgetPart(view), cost, sectionsPart(view), requestPart(view)];
  app.replaceChildren(...parts.filter((p): p is HTMLElement => p !== null));
  app.setAttribute('aria-busy', view.server.state === 'starting' ? 'true' : 'false');
  if (focusKey) {
    const again = app.querySelector<HTMLElement>(`[data-focus="${CSS.escape(focusKey)}"]`);
    again?.focus();
  }
}

function header(view: SidebarView): HTMLElement {
  const estimateSwitch = h(
    'div',
    { class: 'switch', attrs: { role: 'group', 'aria-label': 'Token counts' } },
    button("Pi's count", () => send({ type: 'setEstimate', choice: 'pi' }), {
      attrs: { 'aria-pressed': String(view.choice === 'pi'), title: "Pi's own estimate: characters / 4", 'data-focus': 'est-pi' },
    }),
    button('Better estimate', () => send({ type: 'setEstimate', choice: 'estimated' }), {
      attrs: {
        'aria-pressed': String(view.choice === 'estimated'),
        title: view.estimatorLabel ?? 'The configured estimator',
        'data-focus': 'est-better',
      },
    }),
  );
  return h(
    'header',
    { class: 'top' },
    h(
      'div',
      { class: 'where' },
      h('span', { class: 'folder', attrs: { title: `Workspace folder: ${view.folderName ?? 'none'}` } }, view.folderName ?? 'No folder'),
      h('span', { class: 'muted', attrs: { 'aria-hidden': 'true' } }, '·'),
      button(view.sessionLabel ?? 'No session', () => send({ type: 'selectSession' }), {
        class: 'link',
        id: 'session-picker',
        attrs: {
          title: `${view.sessionLabel ?? 'No session'}\nSelect the session`,
          'aria-label': `Session: ${view.sessionLabel ?? 'none'}. Select another`,
          'data-focus': 'session',
        },
      }),
    ),
    estimateSwitch,
    h('div', { class: 'estimator muted' }, view.estimatorLabel ? `Counts: ${view.estimatorLabel}` : ''),
  );
}

function serverNotice(view: SidebarView): HTMLElement | null {
  const s = view.server;
  if (s.state === 'running') {
    return null;
  }
  if (s.state === 'starting') {
    return h(
      'p',
      { class: 'muted', id: 'server-starting', attrs: { role: 'status' } },
      s.message ?? 'Starting the pi-context language server…',
    );
  }
  return h(
    'div',
    { class: 'banner error', attrs: { role: 'alert' } },
    h('p', null, s.message ?? 'The pi-context server is not running.'),
    button('Restart server', () => send({ type: 'restartServer' }), { attrs: { 'data-focus': 'restart' } }),
    ' ',
    button('Show log', () => send({ type: 'showOutput' }), { attrs: { 'data-focus': 'log' } }),
  );
}

function status(part: PartStatus, what: string): HTMLElement {
  const text =
    part.message ??
    (part.state === 'loading' ? `Loading ${what}…` : part.state === 'empty' ? `No ${what}.` : `${what} unavailable.`);
  return h('p', { class: `muted status-${part.state}`, attrs: { role: part.state === 'error' ? 'alert' : 'status' } }, text);
}

function part(id: string, title: string, subtitle: string | null, ...body: Array<HTMLElement | null>): HTMLElement {
  return h(
    'section',
    { id, class: 'part', attrs: { 'aria-labelledby': `${id}-title` } },
    h('h2', { id: `${id}-title` }, title, subtitle ? h('span', { class: 'sub' }, ` ${subtitle}`) : null),
    ...body,
  );
}

// --- budget ---------------------------------------------------------------------------------

function budgetPart(view: SidebarView): HTMLElement {
  const b = view.budget;
  if (!b) {
    return part('budget', 'Context budget', null, status(view.budgetStatus, 'budget'));
  }
  return part(
    'budget',
    'Context budget',
    b.modelLabel,
    headline(b),
    gauge(b),
    b.overThreshold
      ? h(
          'div',
          { class: 'banner warning', attrs: { role: 'alert' } },
          h('p', null, `Past the compaction threshold (${formatExact(b.threshold)}): Pi compacts before the next request.`),
          button('Compact Session…', () => send({ type: 'compact' }), { attrs: { 'data-focus': 'compact-banner' } }),
        )
      : null,
    b.reconciles ? null : h('div', { class: 'banner error', attrs: { role: 'alert' } }, 'These categories do not add up to the window.'),
    legend(b),
    h('p', { class: 'equation muted', id: 'budget-equation' }, b.equation),
    b.problems.length
      ? h('ul', { class: 'banner warning problems', attrs: { role: 'alert' } }, ...b.problems.map((p) => h('li', null, p)))
      : null,
    b.notes.length
      ? h(
          'details',
          { class: 'notes' },
          h('summary', null, `How these numbers are made (${b.notes.length})`),
          h('ul', { class: 'muted' }, ...b.notes.map((n) => h('li', null, n))),
        )
      : null,
  );
}

function headline(b: BudgetView): HTMLElement {
  const source = b.contextTokensSource === 'usage' ? 'reported usage + estimate' : b.contextTokensSource === 'estimate' ? 'estimate' : 'no session';
  return h(
    'p',
    { class: 'headline', id: 'budget-headline' },
    h('strong', null, `${b.percentOfWindow}`),
    ` of ${b.windowLabel} · ${formatExact(b.contextTokens)} tokens by Pi (${source}) · compacts above ${formatTokens(b.threshold)}`,
  );
}

function gauge(b: BudgetView): HTMLElement {
  const bar = h('div', {
    class: 'gauge',
    id: 'gauge',
    attrs: { role: 'img', 'aria-label': b.textEquivalent },
  });
  for (const s of b.segments) {
    if (s.width <= 0) {
      continue;
    }
    bar.append(
      h('div', {
        class: `seg g-${s.group} shade-${s.shade % 4}`,
        attrs: { 'data-id': s.id, title: `${s.label}: ${formatExact(s.tokens)} tokens (${formatPercent(s.tokens, b.window)})` },
        style: { left: `${s.start}%`, width: `${s.width}%` },
      }),
    );
  }
  bar.append(
    h('div', {
      class: 'marker threshold',
      attrs: { title: `Compaction threshold: ${formatExact(b.threshold)} tokens` },
      style: { left: `${b.thresholdAt}%` },
    }),
  );
  if (b.windowAt < 100) {
    bar.append(h('div', { class: 'marker window', attrs: { title: 'End of the context window' }, style: { left: `${b.windowAt}%` } }));
  }
  // The same facts as text, for screen readers that skip role=img labels and for copying.
  const details = h(
    'details',
    { class: 'text-equivalent' },
    h('summary', null, 'Budget as text'),
    h('pre', null, b.textEquivalent),
  );
  return h('div', { class: 'gauge-wrap' }, bar, details);
}

function legend(b: BudgetView): HTMLElement {
  const table = h(
    'table',
    { class: 'legend', id: 'budget-legend' },
    h(
      'thead',
      null,
      h('tr', null, h('th', { attrs: { scope: 'col' } }, 'Category'), h('th', { attrs: { scope: 'col' } }, 'Tokens'), h('th', { attrs: { scope: 'col' } }, 'Share')),
    ),
  );
  const body = h('tbody', null);
  for (const g of b.legend) {
    body.append(
      h(
        'tr',
        { class: 'group-row', attrs: { 'data-group': g.group } },
        h(
          'th',
          { attrs: { scope: 'row', title: g.items.map((i) => i.label).join(', ') } },
          h('span', { class: `swatch g-${g.group} shade-0`, attrs: { 'aria-hidden': 'true' } }),
          g.label,
        ),
        h('td', { class: 'num' }, formatExact(g.tokens)),
        h('td', { class: 'num' }, formatPercent(g.tokens, b.window)),
      ),
    );
    // Prompt and message groups always list their parts (which kinds they hold); the other groups
    // have a single part, whose own label is in the group row's tooltip.
    if (g.group === 'system' || g.group === 'messages' || g.items.length > 1) {
      for (const item of g.items) {
        body.append(itemRow(item, b.window));
      }
    }
  }
  table.append(body);
  return table;
}

function itemRow(s: GaugeSegment, window: number): HTMLElement {
  return h(
    'tr',
    { class: 'item-row', attrs: { 'data-id': s.id } },
    h(
      'td',
      null,
      h('span', { class: `swatch g-${s.group} shade-${s.shade % 4}`, attrs: { 'aria-hidden': 'true' } }),
      s.label,
      s.count !== null ? h('span', { class: 'muted' }, ` (${s.count})`) : null,
    ),
    h('td', { class: 'num' }, formatExact(s.tokens)),
    h('td', { class: 'num' }, formatPercent(s.tokens, window)),
  );
}

// --- sections -------------------------------------------------------------------------------

function sectionsPart(view: SidebarView): HTMLElement {
  const subtitle = view.promptTokens !== null ? `${view.sections.length} sections · ${formatExact(view.promptTokens)} tokens` : null;
  const tools = h(
    'div',
    { class: 'tools' },
    button('Show prompt', () => send({ type: 'showSystemPrompt' }), {
      attrs: { 'data-focus': 'show-prompt', disabled: view.sections.length ? undefined : '' },
    }),
    button('Section diff', () => send({ type: 'showSectionDiff', name: null }), {
      attrs: { 'data-focus': 'show-diff', disabled: view.lastChange ? undefined : '' },
    }),
  );
  const change = view.lastChange
    ? h(
        'div',
        { class: 'banner changed', id: 'last-change', attrs: { role: 'status' } },
        h(
          'p',
          null,
          `Changed by ${view.lastChange.triggerPaths.map(baseName).join(', ') || 'an edit'}: `,
          `${view.lastChange.changedCount} section${view.lastChange.changedCount === 1 ? '' : 's'}, `,
          h('strong', null, `${view.lastChange.totalDeltaLabel} tokens`),
        ),
        button('Clear', () => send({ type: 'clearHighlights' }), { attrs: { 'data-focus': 'clear-change' } }),
        // What the save costs (docs/cost.md): full-width lines under the change and its button.
        view.lastChange.newSessionsCost
          ? h('p', { class: 'save-cost muted', attrs: { 'data-testid': 'save-cost-new', title: view.lastChange.costTitle ?? '' } }, view.lastChange.newSessionsCost)
          : null,
        view.lastChange.sessionCost
          ? h('p', { class: 'save-cost muted', attrs: { 'data-testid': 'save-cost-session', title: view.lastChange.costTitle ?? '' } }, view.lastChange.sessionCost)
          : null,
        view.lastChange.liveAction
          ? button(view.lastChange.liveAction.label, () => send({ type: 'reloadChat' }), {
              attrs: { 'data-focus': 'reload-chat', 'data-testid': 'save-cost-reload' },
            })
          : null,
      )
    : null;
  if (view.sections.length === 0) {
    return part('sections', 'System prompt', subtitle, tools, status(view.sectionsStatus, 'prompt sections'));
  }
  const list = h('ol', { class: 'sections', id: 'sections-list' });
  for (const row of view.sections) {
    list.append(sectionItem(row));
  }
  const trust = view.trust
    ? h(
        'p',
        { class: 'muted trust', attrs: { title: view.trust.reason ?? '' } },
        view.trust.trusted ? "Project trusted: its .pi/ files count." : "Project not trusted: its .pi/ prompt files and settings are ignored.",
        view.trust.reason ? ` (${view.trust.reason})` : '',
      )
    : null;
  const warnings = view.promptWarnings.length
    ? h('ul', { class: 'banner warning problems', attrs: { role: 'alert' } }, ...view.promptWarnings.map((w) => h('li', null, w)))
    : null;
  const counted = view.sectionsEstimatorLabel
    ? h('p', { class: 'muted', id: 'sections-estimator' }, `Sections counted with ${view.sectionsEstimatorLabel}.`)
    : null;
  const origin = view.promptOriginNote
    ? h('p', { class: 'banner info', id: 'prompt-origin', attrs: { role: 'note' } }, view.promptOriginNote)
    : null;
  return part('sections', 'System prompt', subtitle, tools, change, warnings, origin, counted, list, trust);
}

function sectionItem(row: SectionRow): HTMLElement {
  const classes = ['section'];
  if (row.change) {
    classes.push(`changed status-${row.change.status}`);
  }
  if (row.removed) {
    classes.push('removed');
  }
  const delta = row.change
    ? h(
        'span',
        {
          class: `delta ${row.change.delta > 0 ? 'up' : row.change.delta < 0 ? 'down' : 'same'}`,
          attrs: { 'aria-label': `${row.change.status}, ${row.change.deltaLabel} tokens` },
        },
        row.change.status === 'changed' ? row.change.deltaLabel : `${row.change.status} ${row.change.deltaLabel}`,
      )
    : null;
  const sources = row.sources.length
    ? h(
        'div',
        { class: 'sources' },
        ...row.sources.map((src) =>
          button(src.label, () => send({ type: 'openSource', path: src.path, uri: src.uri }), {
            class: 'link source',
            attrs: { title: `Open ${src.path}`, 'data-focus': `src:${row.name}:${src.path}` },
          }),
        ),
      )
    : null;
  return h(
    'li',
    { class: classes.join(' '), attrs: { 'data-name': row.name } },
    h(
      'div',
      { class: 'line' },
      h('span', { class: 'name', attrs: { title: row.name } }, row.name, row.piProse ? h('span', { class: 'muted', attrs: { title: "pi-context's stand-in for Pi's built-in text, same size" } }, ' ≈') : null),
      delta,
      h('span', { class: 'num tokens' }, row.removed ? '—' : formatExact(row.tokens)),
    ),
    sources,
    row.change
      ? button('Diff', () => send({ type: 'showSectionDiff', name: row.name }), {
          class: 'link diff',
          attrs: { 'aria-label': `Show the diff of ${row.name}`, 'data-focus': `diff:${row.name}` },
        })
      : null,
  );
}

function baseName(p: string): string {
  const i = p.lastIndexOf('/');
  return i >= 0 ? p.slice(i + 1) : p;
}

// --- projected request ----------------------------------------------------------------------

function requestPart(view: SidebarView): HTMLElement {
  const r = view.request;
  if (!r) {
    return part('request', 'Next request', null, status(view.requestStatus, 'projected request'));
  }
  return part(
    'request',
    'Next request',
    `${r.messageCount} messages · ${formatExact(r.total)} tokens`,
    requestPrice(view),
    h(
      'div',
      { class: 'tools' },
      button('Open as document', () => send({ type: 'showProjectedRequest' }), { attrs: { 'data-focus': 'open-request' } }),
      button('Compact…', () => send({ type: 'compact' }), { attrs: { 'data-focus': 'compact' } }),
    ),
    h('p', { class: 'muted' }, `${r.modelLabel} · thinking ${r.thinkingLevel}`),
    requestList(r),
  );
}

/** The next request's price (docs/cost.md), its details in the hover. */
function requestPrice(view: SidebarView): HTMLElement | null {
  const price = view.requestPrice;
  if (!price) {
    return null;
  }
  const attrs = { title: price.title, 'data-testid': 'request-price', 'data-expired': String(price.expired) };
  return h('p', { class: 'muted request-price', attrs }, price.summary);
}

function requestList(r: RequestView): HTMLElement {
  const list = h('div', { class: 'request', id: 'request-list' });
  list.append(
    h(
      'div',
      { class: 'group system' },
      collapsible(
        'system',
        false,
        [h('span', { class: 'title' }, r.systemLabel), h('span', { class: 'num' }, formatExact(r.systemTokens))],
        () => [
          h(
            'ol',
            { class: 'system-sections' },
            ...r.systemSections.map((s) =>
              h('li', null, h('span', { class: 'title' }, s.name), h('span', { class: 'num' }, formatExact(s.tokens))),
            ),
          ),
        ],
      ),
    ),
  );
  for (const g of r.groups) {
    list.append(groupItem(g));
  }
  return list;
}

function collapsible(key: string, defaultOpen: boolean, summary: HTMLElement[], body: () => HTMLElement[]): HTMLDetailsElement {
  const open = state.open[key] ?? defaultOpen;
  const details = h('details', { class: 'collapsible', attrs: { 'data-key': key } }, h('summary', { attrs: { 'data-focus': `sum:${key}` } }, ...summary));
  details.open = open;
  let filled = false;
  const fill = (): void => {
    if (!filled && details.open) {
      filled = true;
      details.append(...body());
    }
  };
  fill();
  details.addEventListener('toggle', () => {
    state.open[key] = details.open;
    save();
    fill();
  });
  return details;
}

function groupItem(g: MessageGroup): HTMLElement {
  const marker = g.marker
    ? h('span', { class: `badge ${g.marker}`, attrs: { title: g.marker === 'compaction' ? 'The model sees this summary instead of the older messages' : 'Summary of a branch that was left' } }, g.marker === 'compaction' ? 'compaction' : 'branch')
    : null;
  const summary = [
    h('span', { class: 'title' }, g.title),
    marker ?? '',
    h('span', { class: 'muted' }, ` ${g.rows.length} msg`),
    h('span', { class: 'num' }, formatExact(g.tokens)),
  ].filter((x): x is HTMLElement => typeof x !== 'string');
  return h(
    'div',
    { class: `group ${g.kind}${g.marker ? ` marked ${g.marker}` : ''}` },
    collapsible(`g:${g.key}`, g.kind === 'summary', summary, () => g.rows.map(messageItem)),
  );
}

function messageItem(m: MessageRow): HTMLElement {
  return h(
    'div',
    { class: `message role-${m.role} kind-${m.kind}` },
    collapsible(
      `m:${m.entryId ?? m.index}`,
      false,
      [h('span', { class: 'title' }, `${m.index}. ${m.label}`), h('span', { class: 'num' }, formatExact(m.tokens))],
      () => [
        h('pre', { class: 'text' }, m.text),
        m.omitted > 0
          ? h(
              'p',
              { class: 'muted' },
              `… ${formatExact(m.omitted)} more characters. `,
              button('Open in editor', () => send({ type: 'showMessage', index: m.index }), { class: 'link' }),
            )
          : h('span', null),
      ],
    ),
  );
}

render();
send({ type: 'ready' });
