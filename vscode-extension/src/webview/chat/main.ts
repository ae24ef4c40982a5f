/**
 * The Chat view's DOM. The extension host owns the chat and posts the header and the transcript
 * items; this script draws them (one element per item, replaced when the item changes, Markdown
 * re-rendered at most once per frame while a reply streams) and posts what the user does.
 * Selectors and attributes follow docs/chat-dom contract (`data-testid`s): they are what the
 * end-to-end test finds.
 */
import { splitFileBlocks } from '../../chat/attachments';
import { queuedBack } from '../../chat/live';
import { type ChatHeader, type ChatHostMessage, type ChatWebviewMessage, noPiSentence } from '../../chat/messages';
import { type Completion, completionsFor } from '../../chat/commands';
import type { MentionItem } from '../../chat/ports';
import { sendState } from '../../chat/readiness';
import type { AssistantItem, ChatItem, EventItem, NoticeItem, ToolItem, UserItem } from '../../chat/transcript';
import { usageText } from '../../chat/replyUsage';
import { economicsText } from '../../model/economics';
import { formatExact } from '../../model/format';
import { h } from '../dom';
import { renderMarkdown } from './markdown';

interface VsCodeApi {
  postMessage(message: ChatWebviewMessage): void;
  getState(): unknown;
  setState(state: unknown): void;
}

declare function acquireVsCodeApi(): VsCodeApi;

const vscode = acquireVsCodeApi();
const send = (m: ChatWebviewMessage): void => vscode.postMessage(m);
const MAX_OUTPUT = 20_000; // a tool's output beyond this is cut in the card (Pi keeps all of it)

let header: ChatHeader | null = null;
const items = new Map<string, ChatItem>();
const order: string[] = [];
const dirty = new Set<string>();
let frame = 0;
let completions: Completion[] = [];
let selected = 0;
/** The `@` being completed (its offset in the input and what follows it), and the host's answers for it. */
let mention: { at: number; query: string } | null = null;
let mentionItems: MentionItem[] = [];

// ---- the static frame ------------------------------------------------------------------------

const root = document.getElementById('chat') as HTMLElement;
const sessionEl = h('button', {
  class: 'session',
  attrs: { type: 'button', 'data-testid': 'chat-session' },
  on: { click: () => send({ type: 'rename' }) },
});
// The live lens in one line: the gauge's share of the window, the next request's price, the cache; opens the Context view.
const lensEl = h('button', {
  class: 'lens',
  attrs: { type: 'button', 'data-testid': 'chat-lens' },
  on: { click: () => send({ type: 'openContext' }) },
});
const modelButton = iconButton('sparkle', 'model', () => send({ type: 'pickModel' }), 'chat-model', "Pick the chat's model");
const thinkingButton = iconButton('lightbulb', 'off', () => send({ type: 'pickThinking' }), 'chat-thinking-level', 'Pick the thinking level');
const gaugeFill = h('span', { class: 'gauge-fill' });
const gaugeLabel = h('span', { class: 'gauge-label' });
const gauge = h(
  'span',
  { class: 'gauge', attrs: { 'data-testid': 'chat-gauge', role: 'meter', 'aria-valuemin': '0', 'aria-valuemax': '100' } },
  h('span', { class: 'gauge-bar' }, gaugeFill),
  gaugeLabel,
);
const statusLine = h('div', { class: 'status muted', attrs: { role: 'status' } });
// What the running Pi lacks, one sentence per feature naming the Pi version that has it (chat/capabilities.ts).
const featuresLine = h('div', { class: 'features muted', attrs: { 'data-testid': 'chat-features-off', role: 'note' } });
featuresLine.hidden = true;
const headerEl = h(
  'header',
  { class: 'chat-header' },
  h('div', { class: 'row' }, sessionEl),
  h('div', { class: 'row lens-row' }, lensEl),
  h('div', { class: 'row' }, modelButton, thinkingButton, h('span', { class: 'spacer' }), gauge),
  statusLine,
  featuresLine,
);
const noPi = h('div', { class: 'no-pi', attrs: { 'data-testid': 'chat-no-pi', role: 'alert' } });
const untrusted = h('div', { class: 'untrusted', attrs: { 'data-testid': 'chat-untrusted', role: 'alert' } });
untrusted.hidden = true;
/** What the server says about the running Pi (the files changed after it read them; a project it does not trust). */
const liveEl = h('div', { class: 'live', attrs: { 'data-testid': 'chat-live-notices' } });
liveEl.hidden = true;
const log = h('div', { class: 'transcript', attrs: { role: 'log', 'aria-live': 'polite', 'aria-label': 'Conversation with Pi' } });
const extras = h('div', { class: 'extras' });
const warning = h('div', { class: 'warning', attrs: { 'data-testid': 'chat-warning', role: 'alert' } });
const queueEl = h('div', { class: 'queue muted', attrs: { 'data-testid': 'chat-queue' } });
const nextRequestEl = h('div', { class: 'next-request muted', attrs: { 'data-testid': 'chat-next-request' } });
/** The files and selections attached to the next prompt, each with its tokens and an x. */
const chipsEl = h('div', { class: 'attachments', attrs: { 'data-testid': 'chat-attachments', 'aria-label': 'Attached to the next message' } });
/** Under the input: what the message adds to the next request (tokens, price, the cache). */
const addsEl = h('div', { class: 'adds muted', attrs: { 'data-testid': 'chat-adds' } });
addsEl.hidden = true;
const completionList = h('ul', {
  class: 'completions',
  id: 'chat-completions',
  attrs: { 'data-testid': 'chat-completions', role: 'listbox', 'aria-label': 'Commands' },
});
const input = h('textarea', {
  class: 'input',
  attrs: {
    'data-testid': 'chat-input',
    rows: '2',
    placeholder: 'Ask Pi… (Enter to send, Shift+Enter for a new line, / for commands, @ to attach a file)',
    'aria-label': 'Message to Pi',
    'aria-autocomplete': 'list',
    'aria-controls': 'chat-completions',
  },
});
const sendButton = iconButton('send', '', () => submit(), 'chat-send', 'Send (Enter)');
sendButton.disabled = true; // until the host says the chat is ready: a prompt typed now stays in the input
const stopButton = iconButton('stop-circle', '', () => send({ type: 'abort' }), 'chat-stop', 'Stop the reply');
const composer = h(
  'div',
  { class: 'composer' },
  completionList,
  warning,
  queueEl,
  chipsEl,
  h('div', { class: 'input-row' }, input, h('div', { class: 'input-buttons' }, sendButton, stopButton)),
  // One line under the input: what the message adds, then the next request's price and the cache's state.
  h('div', { class: 'adds-row' }, addsEl, nextRequestEl),
);
root.replaceChildren(headerEl, untrusted, noPi, liveEl, log, extras, composer);
root.removeAttribute('aria-busy');

function iconButton(icon: string, label: string, onClick: () => void, testid: string, title: string): HTMLButtonElement {
  const b = h(
    'button',
    { class: label ? 'chip' : 'icon', attrs: { type: 'button', 'data-testid': testid, title, 'aria-label': title } },
    h('span', { class: `codicon codicon-${icon}`, attrs: { 'aria-hidden': 'true' } }),
    label ? h('span', { class: 'chip-label' }, label) : null,
  );
  b.addEventListener('click', onClick);
  return b;
}

function setChipLabel(button: HTMLButtonElement, text: string): void {
  const label = button.querySelector('.chip-label');
  if (label) {
    label.textContent = text;
  }
}

// ---- messages from the host -------------------------------------------------------------------

window.addEventListener('message', (event: MessageEvent<ChatHostMessage>) => {
  const m = event.data;
  if (!m || typeof m !== 'object') {
    return;
  }
  switch (m.type) {
    case 'header':
      header = m.header;
      drawHeader();
      break;
    case 'reset':
      items.clear();
      order.length = 0;
      log.replaceChildren();
      for (const item of m.items) {
        upsert(item);
      }
      flush();
      break;
    case 'items':
      for (const item of m.items) {
        upsert(item);
      }
      schedule();
      break;
    case 'setInput':
      input.value = m.text;
      input.focus();
      onInput();
      break;
    case 'restoreInput':
      if (input.value.trim().length === 0) {
        input.value = m.text;
        onInput();
      }
      break;
    case 'mentions':
      if (mention && m.query === mention.query) {
        mentionItems = m.items;
        selected = 0;
        updateCompletions();
      }
      break;
    case 'queuedBack': {
      const text = queuedBack({ steering: m.steering, followUp: m.followUp }, input.value);
      if (text !== null) {
        input.value = text;
        input.focus();
        onInput();
      }
      break;
    }
  }
});

function upsert(item: ChatItem): void {
  if (!items.has(item.id)) {
    order.push(item.id);
  }
  items.set(item.id, item);
  dirty.add(item.id);
}

function schedule(): void {
  if (frame === 0) {
    frame = requestAnimationFrame(() => {
      frame = 0;
      flush();
    });
  }
}

/** Draw the changed items; keep the view at the bottom when it was there. */
function flush(): void {
  const atBottom = log.scrollHeight - log.scrollTop - log.clientHeight < 40;
  for (const id of order) {
    if (!dirty.has(id)) {
      continue;
    }
    const item = items.get(id);
    if (!item) {
      continue;
    }
    const el = draw(item);
    const old = log.querySelector(`[data-item="${CSS.escape(id)}"]`);
    if (old) {
      // An open tool card or thinking block stays open across redraws.
      for (const details of old.querySelectorAll('details[open]')) {
        const key = details.getAttribute('data-key');
        const again = key ? el.querySelector(`details[data-key="${CSS.escape(key)}"]`) : null;
        again?.setAttribute('open', '');
      }
      old.replaceWith(el);
    } else {
      log.append(el);
    }
  }
  dirty.clear();
  if (atBottom) {
    log.scrollTop = log.scrollHeight;
  }
}

// ---- the header, the notices and the composer ------------------------------------------------

function drawHeader(): void {
  const hd = header;
  if (!hd) {
    return;
  }
  root.setAttribute('data-state', hd.phase);
  sessionEl.textContent = hd.session;
  sessionEl.title = `${hd.session}\n${hd.sessionTitle}\nClick to rename`;
  sessionEl.setAttribute('aria-label', `Conversation: ${hd.session}. Rename`);
  if (hd.lens) {
    lensEl.hidden = false;
    lensEl.textContent = hd.lens.text;
    lensEl.title = hd.lens.title;
    lensEl.setAttribute('data-cache', hd.lens.cache);
    lensEl.setAttribute('data-level', hd.lens.level);
    lensEl.setAttribute('aria-label', `${hd.lens.text}. Open the Context view`);
  } else {
    lensEl.hidden = true;
  }
  setChipLabel(modelButton, hd.model);
  setChipLabel(thinkingButton, hd.thinkingLevel);
  thinkingButton.setAttribute('aria-label', `Thinking level: ${hd.thinkingLevel}. Pick another`);
  modelButton.setAttribute('aria-label', `Model: ${hd.model}. Pick another`);
  if (hd.gauge) {
    gauge.hidden = false;
    gauge.setAttribute('data-tokens', String(hd.gauge.tokens));
    gauge.setAttribute('data-window', String(hd.gauge.window));
    gauge.setAttribute('data-percent', String(hd.gauge.percent));
    gauge.setAttribute('data-level', hd.gauge.level);
    gauge.setAttribute('aria-valuenow', String(Math.min(100, hd.gauge.percent)));
    gauge.setAttribute('aria-label', hd.gauge.title);
    gauge.title = hd.gauge.title;
    gaugeFill.style.setProperty('width', `${Math.min(100, hd.gauge.percent)}%`);
    gaugeLabel.textContent = hd.gauge.label;
  } else {
    gauge.hidden = true;
  }
  const status = [hd.hold ?? hd.status, ...hd.extensionStatus].filter((s): s is string => Boolean(s)).join(' · ');
  statusLine.textContent = status;
  statusLine.hidden = status.length === 0;

  untrusted.hidden = hd.untrusted === null;
  if (hd.untrusted) {
    untrusted.replaceChildren(
      h('span', { class: 'codicon codicon-shield', attrs: { 'aria-hidden': 'true' } }),
      ` ${hd.untrusted} `,
      h('button', { class: 'link', attrs: { type: 'button', 'data-testid': 'chat-manage-trust' }, on: { click: () => send({ type: 'manageTrust' }) } }, 'Manage Workspace Trust'),
    );
  }
  noPi.hidden = hd.noPi === null;
  if (hd.noPi) {
    // One sentence, the install command in it once (the server's sentence usually names it already).
    const sentence = noPiSentence(hd.noPi.message, hd.noPi.installCommand);
    noPi.replaceChildren(
      h('span', { class: 'codicon codicon-warning', attrs: { 'aria-hidden': 'true' } }),
      ' ',
      sentence.before,
      h('code', null, sentence.command),
      sentence.after,
      ' ',
      h('button', { class: 'link', attrs: { type: 'button', 'data-testid': 'chat-copy-install' }, on: { click: () => send({ type: 'copyInstall' }) } }, 'Copy'),
      h('p', { attrs: { 'data-testid': 'chat-no-pi-help' } }, hd.noPi.help),
      h(
        'div',
        { class: 'actions' },
        h('button', { attrs: { type: 'button', 'data-testid': 'chat-open-pi-setting' }, on: { click: () => send({ type: 'openPiSetting' }) } }, 'Open Setting'),
        h('button', { class: 'primary', attrs: { type: 'button', 'data-testid': 'chat-try-again' }, on: { click: () => send({ type: 'newChat' }) } }, 'New Chat'),
      ),
    );
  }
  liveEl.hidden = hd.live.length === 0;
  liveEl.replaceChildren(
    ...hd.live.map((notice) =>
      h(
        'div',
        { class: `card live-${notice.kind}`, attrs: { 'data-testid': 'chat-live', 'data-kind': notice.kind, role: 'status' } },
        h('span', { class: `codicon codicon-${notice.kind === 'trust' ? 'shield' : 'refresh'}`, attrs: { 'aria-hidden': 'true' } }),
        ` ${notice.message} `,
        h(
          'button',
          {
            class: 'primary',
            attrs: { type: 'button', 'data-testid': 'chat-live-action', 'data-action': notice.action },
            on: { click: () => send({ type: 'liveAction', action: notice.action }) },
          },
          notice.label,
        ),
      ),
    ),
  );
  // The price of sending what is typed (the preflight's nextRequest), its details in the hover.
  drawAttachments(hd);
  const price = hd.nextRequest ?? null;
  nextRequestEl.hidden = price === null;
  nextRequestEl.textContent = price?.line ?? '';
  nextRequestEl.title = price?.title ?? '';
  nextRequestEl.dataset.expired = String(price?.expired ?? null);
  warning.hidden = hd.warning === null;
  warning.replaceChildren(h('span', { class: 'codicon codicon-warning', attrs: { 'aria-hidden': 'true' } }), ` ${hd.warning ?? ''}`);
  const queued = [...hd.queue.steering.map((s) => `steering: ${s}`), ...hd.queue.followUp.map((s) => `follow-up: ${s}`)];
  queueEl.hidden = queued.length === 0;
  queueEl.replaceChildren(
    ...(queued.length
      ? [
          `Queued for Pi — ${queued.join(' · ')} `,
          h(
            'button',
            {
              class: 'link',
              attrs: { type: 'button', 'data-testid': 'chat-queue-take-back', title: 'Pi will not send these: they come back to the input' },
              on: { click: () => send({ type: 'takeBackQueue' }) },
            },
            'Take back',
          ),
        ]
      : []),
  );

  featuresLine.hidden = hd.features.summary === null;
  // `command` and `field` names in the sentence are drawn as code (text nodes only: never markup).
  featuresLine.replaceChildren(...(hd.features.summary ?? '').split('`').map((part, i) => (i % 2 ? h('code', null, part) : part)));

  const streaming = hd.phase === 'streaming';
  stopButton.disabled = !streaming || offFeature(stopButton, hd.features.off.stop, 'Stop the reply');
  const sendable = sendState(hd);
  sendButton.disabled = !sendable.enabled;
  sendButton.title = sendable.reason ?? (streaming ? 'Steer: Pi reads this before its next step (Enter)' : 'Send (Enter)');
  sendButton.setAttribute('aria-label', sendButton.title);
  input.disabled = hd.phase === 'no-pi' || hd.phase === 'untrusted';
  const noControls = hd.phase === 'no-pi' || hd.phase === 'untrusted' || hd.phase === 'exited';
  modelButton.disabled = offFeature(modelButton, hd.features.off.models, "Pick the chat's model") || noControls;
  thinkingButton.disabled = offFeature(thinkingButton, hd.features.off.thinking, 'Pick the thinking level') || noControls;
  drawExtras(hd);
  updateCompletions();
}

/** The chips above the input (name, tokens or why it is refused, an x) and the line under it. */
function drawAttachments(hd: ChatHeader): void {
  const chips = hd.attachments ?? [];
  chipsEl.hidden = chips.length === 0;
  chipsEl.replaceChildren(
    ...chips.map((c) =>
      h(
        'span',
        {
          class: c.refused ? 'attachment refused' : 'attachment',
          attrs: { 'data-testid': 'chat-attachment', 'data-path': c.path, title: c.refused ?? c.path, role: 'group', 'aria-label': `Attached: ${c.label}` },
        },
        h('span', { class: `codicon codicon-${c.startLine !== null ? 'selection' : 'file'}`, attrs: { 'aria-hidden': 'true' } }),
        h('span', { class: 'attachment-label' }, c.label),
        h(
          'span',
          { class: 'attachment-tokens muted', attrs: { 'data-testid': 'chat-attachment-tokens' } },
          c.refused ? 'not attached' : c.tokens !== null ? `${formatExact(c.tokens)} tokens` : '…',
        ),
        h(
          'button',
          {
            class: 'icon remove',
            attrs: { type: 'button', 'data-testid': 'chat-attachment-remove', title: `Remove ${c.label}`, 'aria-label': `Remove ${c.label}` },
            on: { click: () => send({ type: 'removeAttachment', id: c.id }) },
          },
          h('span', { class: 'codicon codicon-close', attrs: { 'aria-hidden': 'true' } }),
        ),
      ),
    ),
  );
  const adds = hd.adds ?? null;
  addsEl.hidden = adds === null;
  addsEl.textContent = adds?.line ?? '';
  addsEl.title = adds?.title ?? '';
}

/** A control whose feature this Pi lacks: its title becomes the sentence saying why; true when off. */
function offFeature(button: HTMLButtonElement, sentence: string | undefined, title: string): boolean {
  button.title = sentence ?? title;
  button.dataset.unavailable = String(sentence !== undefined);
  return sentence !== undefined;
}

/** The compaction preview with its confirm button, and the restart offer after Pi exited. */
function drawExtras(hd: ChatHeader): void {
  const parts: HTMLElement[] = [];
  if (hd.compactPreview) {
    const p = hd.compactPreview.preview;
    const facts = [
      `${formatExact(p.tokensBefore)} tokens in the context now`,
      `${p.messagesToSummarize + p.turnPrefixMessages} messages summarized${p.isSplitTurn ? ' (the current turn is split)' : ''}`,
      `${p.keptEntries} entries kept verbatim (${formatExact(p.keptTokens)} tokens), the summary on top`,
    ];
    const files = [...p.readFiles.map((f) => `read ${f}`), ...p.modifiedFiles.map((f) => `modified ${f}`)];
    const priced = p.economics ? economicsText(p.economics) : null;
    const cost = priced ? [priced.request, priced.saving, priced.breakEven] : null;
    parts.push(
      h(
        'section',
        { class: 'card compact-preview', attrs: { 'data-testid': 'chat-compact-preview', 'aria-label': 'Compaction preview' } },
        h('div', { class: 'card-title' }, h('span', { class: 'codicon codicon-fold', attrs: { 'aria-hidden': 'true' } }), ' Compact this session?'),
        h('ul', null, ...facts.map((f) => h('li', null, f))),
        cost ? h('ul', { class: 'cost', attrs: { 'data-testid': 'chat-compact-cost', 'aria-label': 'What it costs' } }, ...cost.map((c) => h('li', null, c))) : null,
        files.length ? h('p', { class: 'muted' }, `Files it remembers: ${files.join(', ')}`) : null,
        hd.compactPreview.focus ? h('p', { class: 'muted' }, `Focus: ${hd.compactPreview.focus}`) : null,
        h('p', { class: 'muted' }, 'Pi writes the summary with the chat’s model; nothing is written before you confirm.'),
        h(
          'div',
          { class: 'actions' },
          h('button', { class: 'primary', attrs: { type: 'button', 'data-testid': 'chat-compact-confirm' }, on: { click: () => send({ type: 'compactConfirm' }) } }, 'Compact'),
          h('button', { attrs: { type: 'button', 'data-testid': 'chat-compact-cancel' }, on: { click: () => send({ type: 'compactCancel' }) } }, 'Cancel'),
        ),
      ),
    );
  }
  if (hd.exited) {
    parts.push(
      h(
        'section',
        { class: 'card exited', attrs: { 'data-testid': 'chat-exited', role: 'alert' } },
        h('p', null, h('span', { class: 'codicon codicon-debug-disconnect', attrs: { 'aria-hidden': 'true' } }), ` ${hd.exited.message}`),
        h(
          'div',
          { class: 'actions' },
          hd.exited.canRestart
            ? h('button', { class: 'primary', attrs: { type: 'button', 'data-testid': 'chat-restart' }, on: { click: () => send({ type: 'restart' }) } }, 'Restart Pi and Resume')
            : null,
          h('button', { attrs: { type: 'button' }, on: { click: () => send({ type: 'newChat' }) } }, 'New Chat'),
        ),
      ),
    );
  }
  extras.replaceChildren(...parts);
}

function submit(): void {
  const text = input.value;
  if (text.trim().length === 0 || sendButton.disabled) {
    return;
  }
  send({ type: 'send', text });
  input.value = '';
  onInput();
}

function onInput(): void {
  send({ type: 'input', text: input.value });
  selected = 0;
  findMention();
  updateCompletions();
}

/** An `@` at the start or after a space, up to the caret with no space in between: ask the host for completions. */
function findMention(): void {
  const caret = input.selectionStart ?? input.value.length;
  const before = input.value.slice(0, caret);
  const match = /(^|\s)@([^\s@]*)$/.exec(before);
  if (!match) {
    mention = null;
    mentionItems = [];
    return;
  }
  const query = match[2] ?? '';
  const at = caret - query.length - 1;
  if (mention?.query !== query || mention.at !== at) {
    mention = { at, query };
    send({ type: 'mention', query });
  }
}

function mentionCompletions(): Completion[] {
  return mentionItems.map((m) => ({ value: `@${m.label}`, description: m.detail, source: m.kind }));
}

function updateCompletions(): void {
  const hd = header;
  const usable = hd !== null && hd.phase !== 'no-pi' && hd.phase !== 'untrusted';
  completions = !usable ? [] : mention ? mentionCompletions() : completionsFor(input.value, hd.completions);
  completionList.hidden = completions.length === 0;
  input.setAttribute('aria-expanded', completions.length > 0 ? 'true' : 'false');
  completionList.replaceChildren(
    ...completions.map((c, i) => {
      const li = h(
        'li',
        {
          class: i === selected ? 'completion selected' : 'completion',
          id: `chat-completion-${i}`,
          attrs: { 'data-testid': 'chat-completion', 'data-value': c.value, role: 'option', 'aria-selected': i === selected ? 'true' : 'false' },
        },
        mention ? h('span', { class: `codicon codicon-${mentionItems[i]?.kind === 'symbol' ? 'symbol-misc' : 'file'}`, attrs: { 'aria-hidden': 'true' } }) : null,
        h('span', { class: 'value' }, c.value),
        h('span', { class: 'description muted' }, c.description),
      );
      li.addEventListener('mousedown', (e) => {
        e.preventDefault(); // keep the focus in the input
        accept(c);
      });
      return li;
    }),
  );
  if (completions.length > 0) {
    input.setAttribute('aria-activedescendant', `chat-completion-${selected}`);
  } else {
    input.removeAttribute('aria-activedescendant');
  }
}

function accept(c: Completion): void {
  if (mention) {
    // The chosen file (or symbol's lines) becomes a chip; the `@…` typed for it leaves the input.
    const item = mentionItems[completions.indexOf(c)];
    const end = mention.at + 1 + mention.query.length;
    input.value = input.value.slice(0, mention.at) + input.value.slice(end);
    input.selectionStart = input.selectionEnd = mention.at;
    mention = null;
    mentionItems = [];
    if (item) {
      send({ type: 'attach', path: item.path, startLine: item.startLine, endLine: item.endLine });
    }
    input.focus();
    onInput();
    return;
  }
  input.value = `${c.value} `;
  input.focus();
  onInput();
}

input.addEventListener('input', onInput);
input.addEventListener('keydown', (e: KeyboardEvent) => {
  if (completions.length > 0) {
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      selected = (selected + (e.key === 'ArrowDown' ? 1 : completions.length - 1)) % completions.length;
      updateCompletions();
      return;
    }
    const current = completions[selected];
    if (current && (e.key === 'Tab' || (e.key === 'Enter' && !e.shiftKey && (mention !== null || input.value.trim() !== current.value)))) {
      e.preventDefault();
      accept(current);
      return;
    }
    if (e.key === 'Escape') {
      e.preventDefault();
      mention = null;
      mentionItems = [];
      completions = [];
      completionList.hidden = true;
      return;
    }
  }
  // Enter sends, and Ctrl+Enter (Cmd+Enter) too, as VS Code's chat input does; Shift+Enter is a new line.
  if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
    e.preventDefault();
    submit();
    return;
  }
  if (e.key === 'ArrowUp' && input.value.length === 0) {
    const last = [...order].reverse().map((id) => items.get(id)).find((i): i is UserItem => i?.kind === 'user');
    if (last) {
      e.preventDefault();
      input.value = last.text;
      onInput();
    }
  }
});

// ---- one transcript item ---------------------------------------------------------------------

function draw(item: ChatItem): HTMLElement {
  const el = drawItem(item);
  el.setAttribute('data-item', item.id);
  return el;
}

function drawItem(item: ChatItem): HTMLElement {
  switch (item.kind) {
    case 'user':
      return drawUser(item);
    case 'assistant':
      return drawAssistant(item);
    case 'tool':
      return drawTool(item);
    case 'event':
      return drawEvent(item);
    default:
      return drawNotice(item);
  }
}

const copy = (text: string): void => send({ type: 'copy', text });
const codeActions = {
  insert: (text: string): void => send({ type: 'insertCode', text }),
  newFile: (text: string, language: string | null): void => send({ type: 'newFile', text, language }),
};

function drawUser(item: UserItem): HTMLElement {
  const attrs: Record<string, string | undefined> = { 'data-testid': 'chat-message', 'data-role': 'user', 'aria-label': 'You said' };
  if (item.entryId) {
    attrs['data-entry-id'] = item.entryId;
  }
  const forkOff = header?.features.off.fork; // this Pi cannot fork: the buttons say why instead
  const fork = h(
    'button',
    {
      class: 'icon fork',
      attrs: {
        type: 'button',
        'data-testid': 'chat-fork',
        title: forkOff ?? 'Edit and resend from here (a fork: a new branch)',
        'aria-label': 'Edit and resend from here',
        disabled: forkOff ? '' : undefined,
      },
      on: { click: () => send({ type: 'fork', itemId: item.id }) },
    },
    h('span', { class: 'codicon codicon-edit', attrs: { 'aria-hidden': 'true' } }),
  );
  const retry = h(
    'button',
    {
      class: 'icon retry',
      attrs: {
        type: 'button',
        'data-testid': 'chat-retry',
        title: forkOff ?? 'Retry: send this message again from here (a fork: a new branch)',
        'aria-label': 'Retry this message',
        disabled: forkOff ? '' : undefined,
      },
      on: { click: () => send({ type: 'retry', itemId: item.id }) },
    },
    h('span', { class: 'codicon codicon-refresh', attrs: { 'aria-hidden': 'true' } }),
  );
  // Attachments went to Pi as `<file>` blocks before the text: shown as chips (the content in the hover).
  const sent = splitFileBlocks(item.text);
  const files = sent.files.length
    ? h(
        'div',
        { class: 'attachments sent', attrs: { 'data-testid': 'chat-sent-attachments' } },
        ...sent.files.map((f) =>
          h(
            'span',
            { class: 'attachment', attrs: { 'data-testid': 'chat-sent-attachment', title: `${f.name}\n\n${f.content.slice(0, 2000)}` } },
            h('span', { class: `codicon codicon-${f.selection ? 'selection' : 'file'}`, attrs: { 'aria-hidden': 'true' } }),
            h('span', { class: 'attachment-label' }, f.label),
          ),
        ),
      )
    : null;
  return h(
    'article',
    { class: 'message user', attrs },
    files,
    h('div', { class: 'text' }, sent.text),
    h('div', { class: 'message-actions' }, fork, retry),
  );
}

function drawAssistant(item: AssistantItem): HTMLElement {
  const attrs: Record<string, string | undefined> = { 'data-testid': 'chat-message', 'data-role': 'assistant', 'aria-label': 'Pi said' };
  if (item.streaming) {
    attrs['data-streaming'] = 'true';
    attrs['aria-busy'] = 'true';
  }
  const body: Node[] = [];
  item.blocks.forEach((block, i) => {
    if (block.type === 'thinking') {
      body.push(
        h(
          'details',
          { class: 'thinking', attrs: { 'data-testid': 'chat-thinking', 'data-key': `thinking-${i}` } },
          h('summary', null, h('span', { class: 'codicon codicon-lightbulb', attrs: { 'aria-hidden': 'true' } }), item.streaming && i === item.blocks.length - 1 ? ' Thinking…' : ' Thinking'),
          h('div', { class: 'thinking-text' }, block.text),
        ),
      );
    } else {
      const md = h('div', { class: 'markdown' });
      md.append(renderMarkdown(block.text, copy, codeActions));
      body.push(md);
    }
  });
  if (item.streaming && item.blocks.length === 0) {
    body.push(h('p', { class: 'muted' }, h('span', { class: 'codicon codicon-loading codicon-modifier-spin', attrs: { 'aria-hidden': 'true' } }), ' Pi is thinking…'));
  }
  if (item.stopReason === 'aborted') {
    body.push(h('p', { class: 'muted stopped' }, 'Stopped.'));
  }
  const usage = item.streaming ? null : usageText(item.usage, header?.hasPrices ?? false);
  if (usage) {
    // A reply that only called tools has no text: say whose numbers these are.
    const text = item.blocks.length === 0 ? `tool call · ${usage.text}` : usage.text;
    body.push(h('div', { class: 'usage muted', attrs: { 'data-testid': 'chat-usage', title: usage.title, 'aria-label': usage.title } }, text));
  }
  return h('article', { class: 'message assistant', attrs }, ...body);
}

const TOOL_ICONS: Record<string, string> = { read: 'file', bash: 'terminal', edit: 'edit', write: 'new-file' };
const STATUS_ICONS: Record<ToolItem['status'], string> = {
  pending: 'loading codicon-modifier-spin',
  running: 'loading codicon-modifier-spin',
  done: 'check',
  error: 'error',
};

/** The argument a person reads first: the path for file tools, the command for bash. */
function toolSubject(item: ToolItem): { text: string; path: string | null } {
  try {
    const args = JSON.parse(item.args) as Record<string, unknown>;
    if (typeof args.path === 'string') {
      return { text: args.path, path: args.path };
    }
    if (typeof args.command === 'string') {
      return { text: args.command.split('\n')[0] ?? '', path: null };
    }
  } catch {
    // still streaming: not JSON yet
  }
  return { text: '', path: null };
}

function drawTool(item: ToolItem): HTMLElement {
  const subject = toolSubject(item);
  const status = item.status === 'pending' ? 'running' : item.status;
  const duration =
    item.durationMs !== null ? `${formatExact(item.durationMs)} ms` : item.status === 'pending' || item.status === 'running' ? '…' : '';
  const output = item.output.length > MAX_OUTPUT ? `${item.output.slice(0, MAX_OUTPUT)}\n… (${formatExact(item.output.length - MAX_OUTPUT)} more characters)` : item.output;
  const subjectEl = subject.path
    ? h(
        'button',
        {
          class: 'link subject',
          attrs: { type: 'button', title: item.line ? `Open ${subject.path} at line ${item.line}` : `Open ${subject.path}` },
          on: { click: () => send({ type: 'openFile', path: subject.path ?? '', line: item.line }) },
        },
        subject.text,
      )
    : h('code', { class: 'subject' }, subject.text);
  return h(
    'section',
    {
      class: `tool ${status}`,
      attrs: { 'data-testid': 'chat-tool', 'data-tool': item.name, 'data-status': status, 'aria-label': `Tool ${item.name}, ${status}` },
    },
    h(
      'div',
      { class: 'tool-head' },
      h('span', { class: `codicon codicon-${STATUS_ICONS[item.status]}`, attrs: { 'aria-hidden': 'true' } }),
      h('span', { class: `codicon codicon-${TOOL_ICONS[item.name] ?? 'tools'}`, attrs: { 'aria-hidden': 'true' } }),
      h('strong', null, item.name),
      subjectEl,
      h('span', { class: 'spacer' }),
      h('span', { class: 'duration muted', attrs: { 'data-testid': 'chat-tool-duration' } }, duration),
    ),
    h(
      'details',
      { class: 'tool-body', attrs: { 'data-key': 'body', ...(item.status === 'error' ? { open: '' } : {}) } },
      h('summary', null, item.status === 'error' ? 'Error' : 'Arguments and output'),
      h('div', { class: 'label muted' }, 'Arguments'),
      h('pre', { class: 'args', attrs: { 'data-testid': 'chat-tool-args' } }, item.args),
      h('div', { class: 'label muted' }, item.status === 'error' ? 'Error' : 'Output'),
      h('pre', { class: 'output', attrs: { 'data-testid': 'chat-tool-output' } }, output),
    ),
    item.patch ? drawPatch(item.patch) : null,
    item.name === 'edit' && item.status === 'done' ? drawDiffLink(item) : null,
    (item.name === 'edit' || item.name === 'write') && item.status === 'done' ? drawChangeActions(item) : null,
  );
}

/** An edit or write card's Undo (the file as before the call; refused with a reason when it changed since) and Review. */
function drawChangeActions(item: ToolItem): HTMLElement {
  const undone = item.undo === 'done';
  return h(
    'div',
    { class: 'tool-actions' },
    h(
      'button',
      {
        class: 'link',
        attrs: {
          type: 'button',
          'data-testid': 'chat-tool-undo',
          'data-undo': item.undo ?? 'unknown',
          title: undone
            ? 'Undone: the file is as it was before this call'
            : item.undo === undefined
              ? 'No record of the file before this call (made before this window opened, or older than the last 50 changes)'
              : 'Put the file back as it was before this call (refused when it changed since)',
          disabled: undone || item.undo === undefined ? '' : undefined,
        },
        on: { click: () => send({ type: 'undo', itemId: item.id }) },
      },
      h('span', { class: `codicon codicon-${undone ? 'check' : 'discard'}`, attrs: { 'aria-hidden': 'true' } }),
      undone ? ' Undone' : ' Undo',
    ),
    h(
      'button',
      {
        class: 'link',
        attrs: { type: 'button', 'data-testid': 'chat-review', title: "Every file this turn changed, before the turn ↔ now, in VS Code's multi-file diff" },
        on: { click: () => send({ type: 'review', itemId: item.id }) },
      },
      h('span', { class: 'codicon codicon-diff-multiple', attrs: { 'aria-hidden': 'true' } }),
      " Review turn's changes",
    ),
  );
}

/** An edit's link to VS Code's diff editor, and what its two sides are (the host says, once it built them). */
function drawDiffLink(item: ToolItem): HTMLElement {
  const note = item.diffNote ?? 'Diff: the file as it is now, against the same file with this edit reversed (when that can be rebuilt).';
  return h(
    'div',
    { class: 'tool-diff-link' },
    h(
      'button',
      {
        class: 'link',
        attrs: { type: 'button', 'data-testid': 'chat-tool-open-diff', title: note, 'aria-label': `Open the diff of this edit. ${note}` },
        on: { click: () => send({ type: 'openDiff', itemId: item.id }) },
      },
      h('span', { class: 'codicon codicon-diff', attrs: { 'aria-hidden': 'true' } }),
      ' Open diff',
    ),
    h('span', { class: 'muted', attrs: { 'data-testid': 'chat-tool-diff-note' } }, ` ${note}`),
  );
}

/** An edit's unified patch, lines coloured by kind (text only: the patch is never parsed as markup). */
function drawPatch(patch: string): HTMLElement {
  const lines = patch.replace(/\n$/, '').split('\n');
  const kind = (line: string): string =>
    line.startsWith('+++') || line.startsWith('---') ? 'file' : line.startsWith('@@') ? 'hunk' : line.startsWith('+') ? 'add' : line.startsWith('-') ? 'del' : 'ctx';
  return h(
    'details',
    { class: 'tool-diff', attrs: { open: '', 'data-key': 'diff', 'data-testid': 'chat-tool-diff' } },
    h('summary', null, 'Diff'),
    h('pre', { class: 'diff' }, ...lines.map((line) => h('span', { class: `diff-${kind(line)}` }, `${line}\n`))),
  );
}

const EVENT_ICONS: Record<EventItem['event'], string> = { retry: 'sync', compaction: 'fold', error: 'error', exited: 'debug-disconnect' };

function drawEvent(item: EventItem): HTMLElement {
  const icon = item.running ? 'loading codicon-modifier-spin' : EVENT_ICONS[item.event];
  const el = h(
    'div',
    { class: `event ${item.event}`, attrs: { 'data-testid': 'chat-event', 'data-kind': item.event, role: item.event === 'error' ? 'alert' : 'note' } },
    h('span', { class: `codicon codicon-${icon}`, attrs: { 'aria-hidden': 'true' } }),
    h('span', { class: 'event-text' }, item.text),
  );
  if (item.summary) {
    const md = h('div', { class: 'markdown' });
    md.append(renderMarkdown(item.summary, copy));
    el.append(h('details', { class: 'summary', attrs: { 'data-key': 'summary' } }, h('summary', null, 'Summary'), md));
  }
  return el;
}

function drawNotice(item: NoticeItem): HTMLElement {
  // An error stays (across a rebuilt conversation too) until closed here or a prompt is sent.
  const dismiss =
    item.level === 'info'
      ? null
      : h(
          'button',
          {
            class: 'icon dismiss',
            attrs: { type: 'button', 'data-testid': 'chat-notice-dismiss', title: 'Dismiss', 'aria-label': 'Dismiss this notice' },
            on: { click: () => send({ type: 'dismiss', itemId: item.id }) },
          },
          h('span', { class: 'codicon codicon-close', attrs: { 'aria-hidden': 'true' } }),
        );
  return h(
    'div',
    {
      class: `message notice ${item.level}`,
      attrs: { 'data-testid': 'chat-message', 'data-role': 'notice', 'data-level': item.level, role: item.level === 'error' ? 'alert' : 'note' },
    },
    h('span', { class: `codicon codicon-${item.level === 'info' ? 'info' : item.level}`, attrs: { 'aria-hidden': 'true' } }),
    h('span', { class: 'text' }, ` ${item.text}`),
    dismiss,
  );
}

// ---- the chat's own keys ------------------------------------------------------------------------
// VS Code's chat keys while the chat has the focus: New Chat (Ctrl+N or Ctrl+L; Cmd+N on macOS) and Stop
// (Ctrl+Escape; Cmd+Escape on macOS, Alt+Backspace on Windows). A webview forwards its keys to the workbench, where
// the view's `focusedView` is not set, so Ctrl+N would open a new file: handled here, they stop at the document.
const platform = navigator.platform || '';
const MAC = platform.startsWith('Mac');
const WINDOWS = platform.startsWith('Win');

function chatKey(e: KeyboardEvent): 'newChat' | 'abort' | null {
  const primary = MAC ? e.metaKey && !e.ctrlKey : e.ctrlKey && !e.metaKey;
  const key = e.key.toLowerCase();
  if (!e.altKey && !e.shiftKey && ((primary && key === 'n') || (e.ctrlKey && !e.metaKey && key === 'l'))) {
    return 'newChat';
  }
  if (!e.altKey && !e.shiftKey && primary && e.key === 'Escape') {
    return 'abort';
  }
  if (WINDOWS && e.altKey && !e.ctrlKey && !e.shiftKey && e.key === 'Backspace' && header?.phase === 'streaming') {
    return 'abort';
  }
  return null;
}

document.addEventListener('keydown', (e: KeyboardEvent) => {
  const action = chatKey(e);
  if (action === null || e.isComposing) {
    return;
  }
  e.preventDefault();
  e.stopPropagation(); // not forwarded to the workbench's keybindings (Ctrl+N: New File)
  send({ type: action });
});

send({ type: 'ready' });
input.focus();
