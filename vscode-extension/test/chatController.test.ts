/**
 * The chat controller (`src/chat/controller.ts`) without VS Code: the real controller, lifecycle, gate, transcript,
 * outbox, dialogs and typed client, driven by what the other parties really said. The server answers with the
 * exchanges `docs/gen_protocol.py --examples` recorded from the real server and Pi 1.6.0
 * (`docs/protocol-examples.json`), and Pi's events are the streams `scripts/record_chat_events.py` recorded
 * (`test/fixtures/chat/*.jsonl`), sent as `pi/chat/event` notifications through the typed client's transport. Only
 * VS Code's API is a fake (quick picks, dialogs, the workspace state, the webview, timers run by hand).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { PiContextClient, type Transport } from '../src/client.generated';
import { ChatController } from '../src/chat/controller';
import type { ChatHeader, ChatHostMessage } from '../src/chat/messages';
import type { ChatLog, ChatUi, ChatView, ChatWorkspace, MentionItem, PickItem, Timers } from '../src/chat/ports';
import { Transcript } from '../src/chat/transcript';
import { ContextStore } from '../src/model/store';
import type { ChatInfo, ChatMessagesResult } from '../src/protocol.generated';

type Json = Record<string, unknown>;

const ROOT = path.join(__dirname, '..', '..', '..');
const EXAMPLES = JSON.parse(fs.readFileSync(path.join(ROOT, 'docs', 'protocol-examples.json'), 'utf8')) as Record<
  string,
  { params?: unknown; result?: unknown }
>;
const FIXTURES = path.join(ROOT, 'vscode-extension', 'test', 'fixtures', 'chat');

/** A recorded answer without the page's "… N more" list markers. */
function unabridged(value: unknown): unknown {
  if (Array.isArray(value)) {
    return value.filter((v) => !(typeof v === 'string' && /^… \d+ more$/.test(v))).map(unabridged);
  }
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, unabridged(v)]));
  }
  return value;
}

function recorded<T>(method: string): T {
  return structuredClone(unabridged(EXAMPLES[method]?.result)) as T;
}

/** Pi's events of a recording, in order, and its `get_messages` answer after the run. */
function recording(name: string): { events: Json[]; messages: unknown[] } {
  const records = fs
    .readFileSync(path.join(FIXTURES, `${name}.jsonl`), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Json);
  const last = records.pop() as Json;
  return { events: records, messages: last.messages as unknown[] };
}

type Handler = (params: Json) => unknown;

/** The server's side of the typed client: recorded answers by method (overridable), every call noted. */
class RecordedServer implements Transport {
  readonly calls: { method: string; params: Json }[] = [];
  readonly handlers = new Map<string, Handler>();
  private readonly listeners = new Map<string, (params: unknown) => void>();

  constructor() {
    for (const [method, example] of Object.entries(EXAMPLES)) {
      if (method.startsWith('pi/chat/') && 'result' in example) {
        this.handlers.set(method, () => recorded(method));
      }
    }
    this.handlers.set('pi/chat/list', () => ({ chats: [], detached: [] }));
    this.handlers.set('pi/sessions', () => ({ sessions: [], sessionsDir: '/home/user/.pi/agent/sessions' }));
  }

  sendRequest(method: string, params: unknown): Promise<unknown> {
    this.calls.push({ method, params: params as Json });
    const handler = this.handlers.get(method);
    if (!handler) {
      return Promise.reject(new Error(`no recorded answer for ${method}`));
    }
    try {
      return Promise.resolve(handler(params as Json));
    } catch (e) {
      return Promise.reject(e instanceof Error ? e : new Error(String(e)));
    }
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  onNotification(method: string, handler: (params: any) => void): { dispose(): void } {
    this.listeners.set(method, handler);
    return { dispose: () => this.listeners.delete(method) };
  }

  notify(method: string, params: unknown): void {
    const listener = this.listeners.get(method);
    assert.ok(listener, `nothing listens to ${method}`);
    listener(params);
  }

  called(method: string): Json[] {
    return this.calls.filter((c) => c.method === method).map((c) => c.params);
  }
}

/** A promise resolved from outside: an answer the test lets through when it decides. */
function deferred<T>(): { promise: Promise<T>; resolve(value: T): void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** Timers run by hand: `run()` fires every one set so far (and those they set). */
class ManualTimers implements Timers {
  private next = 1;
  private readonly pending = new Map<number, () => void>();
  set(run: () => void): unknown {
    const id = this.next++;
    this.pending.set(id, run);
    return id;
  }
  clear(handle: unknown): void {
    this.pending.delete(handle as number);
  }
  now(): number {
    return Date.parse('2026-12-06T04:00:00Z');
  }
  run(): void {
    while (this.pending.size > 0) {
      const [id, run] = [...this.pending][0] as [number, () => void];
      this.pending.delete(id);
      run();
    }
  }
}

/** VS Code's side, faked at its API: answers scripted per test, everything asked noted. */
class FakeVsCode implements ChatUi, ChatWorkspace, ChatView, ChatLog {
  trusted = true;
  resolved = true;
  memento: string | null = null;
  files = new Map<string, string>();
  posted: ChatHostMessage[] = [];
  asked: string[] = [];
  picks: { title: string; labels: string[] }[] = [];
  pickAnswer: (labels: string[]) => string | undefined = () => undefined;
  askAnswer: string | undefined = undefined;
  notices: string[] = [];
  commands: unknown[][] = [];
  diffs: string[][] = [];
  streamingKey: boolean[] = [];
  logged: string[] = [];

  // ChatWorkspace
  isTrusted = (): boolean => this.trusted;
  folder = (): { uri: string; path: string } => ({ uri: 'file:///home/user/project', path: '/home/user/project' });
  isRemote = (): boolean => false;
  piCommandSet = (): boolean => false;
  sessionShownLast = (): string | null => this.memento;
  rememberSession = (session: string | null): Promise<void> => {
    this.memento = session;
    return Promise.resolve();
  };
  compactions = new Map<string, Map<number, number>>();
  compactionAfter = (session: string): ReadonlyMap<number, number> => new Map(this.compactions.get(session) ?? []);
  rememberCompactionAfter = (session: string, after: ReadonlyMap<number, number>): Promise<void> => {
    this.compactions.set(session, new Map(after));
    return Promise.resolve();
  };
  readFile = (file: string): Promise<string> => {
    const text = this.files.get(file);
    return text === undefined ? Promise.reject(new Error(`ENOENT: ${file}`)) : Promise.resolve(text);
  };
  exists = (file: string): Promise<boolean> => Promise.resolve(this.files.has(file));
  writeFile = (file: string, content: string): Promise<void> => {
    this.files.set(file, content);
    return Promise.resolve();
  };
  deleteFile = (file: string): Promise<void> => {
    this.files.delete(file);
    return Promise.resolve();
  };
  workspaceFiles: string[] = [];
  findFiles = (query: string, max: number): Promise<string[]> =>
    Promise.resolve(this.workspaceFiles.filter((f) => f.includes(query)).slice(0, max));
  symbols = (): Promise<MentionItem[]> => Promise.resolve([]);
  editor: ReturnType<ChatWorkspace['activeEditor']> = null;
  activeEditor = (): ReturnType<ChatWorkspace['activeEditor']> => this.editor;

  // ChatUi
  pick<T extends PickItem>(items: readonly T[], options: { title: string }): Promise<T | undefined> {
    const labels = items.map((i) => i.label);
    this.picks.push({ title: options.title, labels });
    const chosen = this.pickAnswer(labels);
    return Promise.resolve(items.find((i) => i.label === chosen));
  }
  input(): Promise<string | undefined> {
    return Promise.resolve(undefined);
  }
  ask(_level: 'info' | 'warning', message: string): Promise<string | undefined> {
    this.asked.push(message);
    return Promise.resolve(this.askAnswer);
  }
  notify(_level: string, message: string): void {
    this.notices.push(message);
  }
  copy(): Promise<void> {
    return Promise.resolve();
  }
  command(id: string, ...args: unknown[]): Promise<unknown> {
    this.commands.push([id, ...args]);
    return Promise.resolve(undefined);
  }
  openFile(file: string, line: number | null): Promise<unknown> {
    this.commands.push(['open', file, line]);
    return Promise.resolve(undefined);
  }
  openDiff(itemId: string, name: string, title: string): Promise<unknown> {
    this.diffs.push([itemId, name, title]);
    return Promise.resolve(undefined);
  }
  setStreaming(streaming: boolean): void {
    this.streamingKey.push(streaming);
  }
  inserted: string[] = [];
  insertAtCursor(text: string): Promise<boolean> {
    this.inserted.push(text);
    return Promise.resolve(true);
  }
  untitled: [string, string | null][] = [];
  newUntitled(text: string, language: string | null): Promise<unknown> {
    this.untitled.push([text, language]);
    return Promise.resolve(undefined);
  }
  changes: [string, { path: string; itemId: string }[]][] = [];
  openChanges(title: string, files: { path: string; itemId: string }[]): Promise<unknown> {
    this.changes.push([title, files]);
    return Promise.resolve(undefined);
  }

  // ChatView
  post(message: ChatHostMessage): void {
    this.posted.push(message);
  }

  // ChatLog
  debug = (m: string): void => void this.logged.push(m);
  info = (m: string): void => void this.logged.push(m);
  warn = (m: string): void => void this.logged.push(m);

  headers(): ChatHeader[] {
    return this.posted.flatMap((m) => (m.type === 'header' ? [m.header] : []));
  }
  lastHeader(): ChatHeader {
    const headers = this.headers();
    assert.ok(headers.length > 0, 'a header was posted');
    return headers[headers.length - 1] as ChatHeader;
  }
  /** The transcript as the webview holds it: the last reset, then the items posted after it. */
  shownItems(): Map<string, unknown> {
    const shown = new Map<string, unknown>();
    for (const m of this.posted) {
      if (m.type === 'reset') {
        shown.clear();
      }
      if (m.type === 'reset' || m.type === 'items') {
        for (const item of m.items) {
          shown.set(item.id, structuredClone(item));
        }
      }
    }
    return shown;
  }
}

/** Let every promise chain settle (the controller's requests are answered in microtasks). */
async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) {
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

function rig(setUp?: (server: RecordedServer, code: FakeVsCode) => void): {
  controller: ChatController;
  server: RecordedServer;
  code: FakeVsCode;
  timers: ManualTimers;
} {
  const server = new RecordedServer();
  const code = new FakeVsCode();
  const timers = new ManualTimers();
  setUp?.(server, code);
  const controller = new ChatController({ workspace: code, ui: code, view: code, store: new ContextStore(), timers, log: code });
  return { controller, server, code, timers };
}

const START = recorded<ChatInfo>('pi/chat/start');

/** The transcript's content without the view's own ids, to compare what the view shows with a fold. */
function shape(items: Iterable<unknown>): unknown[] {
  return [...items].map((raw) => {
    const item = raw as Json;
    return [item.kind, item.text ?? item.blocks ?? item.name, item.status ?? null];
  });
}

async function started(setUp?: (server: RecordedServer, code: FakeVsCode) => void): Promise<ReturnType<typeof rig>> {
  const r = rig(setUp);
  r.controller.attach(new PiContextClient(r.server));
  await r.controller.viewResolved();
  await settle();
  r.timers.run();
  return r;
}

test('opening the view with no chat held looks for Pi and starts one in the workspace folder; the view says starting, then idle', async () => {
  const { server, code } = await started();
  assert.deepEqual(
    server.calls.map((c) => c.method).slice(0, 3),
    ['pi/chat/list', 'pi/chat/locate', 'pi/chat/start'],
  );
  assert.deepEqual(server.called('pi/chat/start'), [{ workspaceFolder: 'file:///home/user/project' }]);
  const phases = code.headers().map((h) => h.phase);
  assert.equal(phases[0], 'starting');
  assert.ok(code.headers().filter((h) => h.phase === 'starting').every((h) => h.hold !== null), 'a reason while starting');
  const last = code.lastHeader();
  assert.equal(last.phase, 'idle');
  assert.equal(last.model, 'fake/fake-1');
  assert.equal(code.memento, START.session, 'the session shown is remembered for the next window');
  assert.deepEqual(server.called('pi/chat/forkPoints'), [{ chatId: START.chatId }]);
});

test("a prompt streams Pi's recorded turn into the view: the same items a fold of the events gives, then idle", async () => {
  const { controller, server, code, timers } = await started();
  const { events } = recording('tool-turn');
  await controller.onMessage({ type: 'send', text: 'What does AGENTS.md say?' });
  assert.deepEqual(server.called('pi/chat/prompt'), [{ chatId: START.chatId, text: 'What does AGENTS.md say?' }]);
  assert.equal(code.lastHeader().phase, 'streaming');
  assert.equal(code.streamingKey.at(-1), true, 'the stop button shows while Pi works');
  events.forEach((event, i) => server.notify('pi/chat/event', { chatId: START.chatId, seq: i + 1, event }));
  timers.run();
  await settle();
  timers.run();
  const folded = new Transcript();
  events.forEach((event) => folded.apply(event));
  assert.deepEqual(shape(code.shownItems().values()), shape(folded.items));
  assert.equal(code.lastHeader().phase, 'idle');
  assert.equal(code.streamingKey.at(-1), false);
  assert.ok(server.called('pi/chat/state').length >= 2, 'the state is asked again once Pi settled');
});

test('a prompt sent while Pi starts waits for that start and goes to the chat it made', async () => {
  const starting = deferred<ChatInfo>();
  const { controller, server, code } = rig((s) => s.handlers.set('pi/chat/start', () => starting.promise));
  controller.attach(new PiContextClient(server));
  const opening = controller.viewResolved();
  await settle();
  assert.equal(code.lastHeader().phase, 'starting');
  const sending = controller.onMessage({ type: 'send', text: 'hello' });
  await settle();
  assert.deepEqual(server.called('pi/chat/prompt'), [], 'nothing is sent into a start');
  starting.resolve({ ...START, chatId: '42' });
  await Promise.all([opening, sending]);
  assert.deepEqual(server.called('pi/chat/prompt'), [{ chatId: '42', text: 'hello' }]);
  assert.equal(server.called('pi/chat/start').length, 1, 'the prompt did not start another Pi');
});

test('after a window reload the chat is taken up from its snapshot, and only the events numbered after it are applied', async () => {
  const { events } = recording('tool-turn');
  const cut = 12;
  const messages = deferred<ChatMessagesResult>();
  const held: ChatInfo = { ...START, streaming: true, reattached: true };
  const { controller, server, code, timers } = rig((s, c) => {
    c.memento = START.session ?? null;
    c.files.set(START.session ?? '', '');
    s.handlers.set('pi/chat/list', () => ({ chats: [held], detached: [] }));
    s.handlers.set('pi/chat/state', () => held);
    s.handlers.set('pi/chat/messages', () => messages.promise);
  });
  controller.attach(new PiContextClient(server));
  const opening = controller.viewResolved();
  await settle();
  // The keeper replays the run at once: every event arrives while the snapshot is being asked for.
  events.forEach((event, i) => server.notify('pi/chat/event', { chatId: START.chatId, seq: i + 1, event }));
  messages.resolve({ items: [], inFlight: events.slice(0, cut), seq: cut, inFlightTruncated: false });
  await opening;
  await settle();
  timers.run();
  const folded = new Transcript();
  events.forEach((event) => folded.apply(event));
  const shown = [...code.shownItems().values()] as Json[];
  const said = 'Pi kept working on this turn while the window reloaded.';
  assert.ok(shown.some((i) => i.text === said));
  assert.deepEqual(
    shape(shown.filter((i) => i.text !== said)),
    shape(folded.items),
    'each event once: none lost, none twice',
  );
  assert.deepEqual(server.called('pi/chat/start'), [], 'a held chat is taken up, not started');
});

test('in Restricted Mode no Pi starts; trust granted starts it', async () => {
  const { controller, server, code } = rig((_s, c) => {
    c.trusted = false;
  });
  controller.attach(new PiContextClient(server));
  await controller.viewResolved();
  await settle();
  assert.equal(code.lastHeader().phase, 'untrusted');
  assert.ok(code.lastHeader().untrusted);
  assert.deepEqual(server.calls, [], 'the server is not even asked');
  await controller.onMessage({ type: 'send', text: 'hi' });
  assert.deepEqual(server.called('pi/chat/prompt'), []);
  code.trusted = true;
  controller.trustGranted();
  await settle();
  assert.equal(server.called('pi/chat/start').length, 1);
  assert.equal(code.lastHeader().phase, 'idle');
});

test('Pi missing: the notice with the install command; a new pi.command looks for Pi again and starts the chat', async () => {
  let found = false;
  const { controller, server, code } = rig((s) => {
    s.handlers.set('pi/chat/locate', () =>
      found
        ? { found: true, piVersion: '1.6.0' }
        : { found: false, message: 'Pi is not installed.', installCommand: 'npm install -g @earendil-works/pi-coding-agent' },
    );
  });
  controller.attach(new PiContextClient(server));
  await controller.viewResolved();
  await settle();
  assert.equal(code.lastHeader().phase, 'no-pi');
  assert.equal(code.lastHeader().noPi?.installCommand, 'npm install -g @earendil-works/pi-coding-agent');
  assert.deepEqual(server.called('pi/chat/start'), []);
  found = true;
  controller.piCommandChanged();
  await settle();
  assert.equal(server.called('pi/chat/locate').length, 2);
  assert.equal(server.called('pi/chat/start').length, 1);
  assert.equal(code.lastHeader().phase, 'idle');
});

test('a start refused for want of Pi shows the notice, not an error line', async () => {
  const { code } = await started((s) =>
    s.handlers.set('pi/chat/start', () => {
      throw Object.assign(new Error('`/opt/pi` was not found'), { data: { kind: 'not-found', installCommand: 'npm i -g pi' } });
    }),
  );
  assert.equal(code.lastHeader().phase, 'no-pi');
  assert.equal(code.lastHeader().noPi?.message, '`/opt/pi` was not found');
});

test("Pi's exit ends the chat in the view; Restart resumes its session with a new Pi", async () => {
  const { controller, server, code, timers } = await started();
  server.notify('pi/chat/exited', { chatId: START.chatId, message: 'Pi exited (code 1).', expected: false, session: START.session });
  timers.run();
  assert.equal(code.lastHeader().phase, 'exited');
  assert.deepEqual(code.lastHeader().exited, { message: 'Pi exited (code 1).', canRestart: true });
  await controller.onMessage({ type: 'send', text: 'still there?' });
  assert.deepEqual(server.called('pi/chat/prompt'), []);
  assert.ok([...code.shownItems().values()].some((i) => (i as Json).text === 'Pi has exited: restart it to resume the session.'));
  await controller.onMessage({ type: 'restart' });
  assert.deepEqual(server.called('pi/chat/start').at(-1), { workspaceFolder: 'file:///home/user/project', session: START.session });
  assert.equal(code.lastHeader().phase, 'idle');
});

test('the server stopping ends the chat shown, and the view says the server is not running', async () => {
  const { controller, code } = await started();
  controller.attach(undefined);
  const header = code.lastHeader();
  assert.equal(header.phase, 'exited');
  assert.equal(header.status, 'The pi-context server is not running.');
  assert.equal(header.exited?.message, 'The pi-context server stopped.');
});

test('Stop gives back what Pi had queued, for the input', async () => {
  const { controller, server, code } = await started((s) =>
    s.handlers.set('pi/chat/abort', () => ({ steering: ['also check the tests'], followUp: ['then commit'] })),
  );
  await controller.onMessage({ type: 'abort' });
  assert.deepEqual(server.called('pi/chat/abort'), [{ chatId: START.chatId }]);
  assert.deepEqual(code.posted.at(-1), { type: 'queuedBack', steering: ['also check the tests'], followUp: ['then commit'] });
});

test("Pi's select dialog is a quick pick, answered with the choice (or cancelled when dismissed)", async () => {
  const { server, code } = await started((_s, c) => {
    c.pickAnswer = (labels) => labels[1];
  });
  const request = { type: 'extension_ui_request', id: 'ui-7', method: 'select', title: 'Which one?', options: ['a', 'b', 'c'] };
  server.notify('pi/chat/event', { chatId: START.chatId, seq: 1, event: request });
  await settle();
  assert.deepEqual(code.picks.at(-1), { title: 'Which one?', labels: ['a', 'b', 'c'] });
  assert.deepEqual(server.called('pi/chat/uiResponse'), [{ chatId: START.chatId, id: 'ui-7', value: 'b' }]);
  code.pickAnswer = () => undefined;
  server.notify('pi/chat/event', { chatId: START.chatId, seq: 2, event: { ...request, id: 'ui-8' } });
  await settle();
  assert.deepEqual(server.called('pi/chat/uiResponse').at(-1), { chatId: START.chatId, id: 'ui-8', cancelled: true });
});

test("an edit card's diff is built from the file right after Pi's recorded edit, and opens in the diff editor", async () => {
  const { events } = recording('edit-turn');
  const edit = events.find((e) => e.type === 'tool_execution_end') as Json;
  const args = (events.find((e) => e.type === 'tool_execution_start') as Json).args as { path: string; edits?: { newText: string }[] };
  const file = path.isAbsolute(args.path) ? args.path : path.join(START.cwd, args.path);
  const { controller, server, code, timers } = await started((_s, c) => {
    c.files.set(file, `before\n${args.edits?.[0]?.newText ?? ''}\nafter\n`);
  });
  events.forEach((event, i) => server.notify('pi/chat/event', { chatId: START.chatId, seq: i + 1, event }));
  await settle();
  timers.run();
  const itemId = `t-${String(edit.toolCallId)}`;
  const card = code.shownItems().get(itemId) as Json;
  assert.ok(typeof card.diffNote === 'string' && card.diffNote.length > 0, 'the card says what its diff shows');
  await controller.onMessage({ type: 'openDiff', itemId });
  const name = path.basename(args.path);
  assert.deepEqual(code.diffs, [[itemId, name, `${name}: with Pi's edit reversed ↔ now`]]);
  assert.equal(controller.editDiffSide(`/${itemId}/after/${name}`), code.files.get(file));
  assert.notEqual(controller.editDiffSide(`/${itemId}/before/${name}`), code.files.get(file));
});

test('a prompt the server refuses goes back into the input and the reason shows in the conversation', async () => {
  const { controller, code, timers } = await started((s) =>
    s.handlers.set('pi/chat/prompt', () => {
      throw new Error('Pi is compacting');
    }),
  );
  await controller.onMessage({ type: 'send', text: 'keep this text' });
  timers.run();
  assert.ok(code.posted.some((m) => m.type === 'restoreInput' && m.text === 'keep this text'));
  assert.ok([...code.shownItems().values()].some((i) => (i as Json).kind === 'notice' && (i as Json).text === 'Pi is compacting'));
  assert.equal(code.lastHeader().phase, 'idle');
});

test('a retry forks at the message (Pi answers from the recording) and sends the same text on the new branch', async () => {
  const points = recorded<{ messages: { entryId: string; text: string }[] }>('pi/chat/forkPoints');
  const first = points.messages[0];
  assert.ok(first);
  const forked: ChatInfo = { ...START, chatId: START.chatId, session: '/home/user/.pi/agent/sessions/--home-user-project--/forked.jsonl' };
  const { controller, server, code, timers } = await started((s) => {
    s.handlers.set('pi/chat/messages', () => ({
      items: [{ role: 'user', content: first.text }],
      inFlight: [],
      seq: 0,
      inFlightTruncated: false,
    }));
    s.handlers.set('pi/chat/fork', () => ({ cancelled: false, text: first.text }));
  });
  // The conversation as Pi holds it: a user message with its entry id, then a fork at it.
  server.handlers.set('pi/chat/state', () => forked);
  server.notify('pi/chat/event', { chatId: START.chatId, seq: 1, event: { type: 'message_start', message: { role: 'user', content: first.text } } });
  server.notify('pi/chat/event', { chatId: START.chatId, seq: 2, event: { type: 'agent_settled' } });
  await settle();
  timers.run();
  const user = [...code.shownItems().values()].find((i) => (i as Json).kind === 'user') as Json;
  assert.equal(user.entryId, first.entryId, 'the message knows its session entry (pi/chat/forkPoints)');
  await controller.onMessage({ type: 'retry', itemId: user.id });
  assert.deepEqual(server.called('pi/chat/fork'), [{ chatId: START.chatId, entryId: first.entryId }]);
  assert.deepEqual(server.called('pi/chat/prompt').at(-1), { chatId: START.chatId, text: first.text });
  assert.equal(code.memento, forked.session, 'the view follows the new session file');
});

test('typing asks the preflight after a pause: past the threshold the header warns; a command or an empty input clears it', async () => {
  const answer = recorded<Json>('pi/chat/preflight');
  const { controller, server, code, timers } = await started((s) =>
    s.handlers.set('pi/chat/preflight', () => ({ ...answer, afterPrompt: 120_000, crossesThreshold: true })),
  );
  await controller.onMessage({ type: 'input', text: 'What does AGENTS.md ask for?' });
  await controller.onMessage({ type: 'input', text: 'What does AGENTS.md ask for? All of it.' });
  assert.deepEqual(server.called('pi/chat/preflight'), [], 'asked only after the pause');
  timers.run();
  await settle();
  assert.deepEqual(server.called('pi/chat/preflight'), [{ chatId: START.chatId, text: 'What does AGENTS.md ask for? All of it.' }]);
  assert.equal(
    code.lastHeader().warning,
    'This prompt brings the context to about 120,000 tokens, past the compaction threshold (111,616 of 128k).',
  );
  await controller.onMessage({ type: 'input', text: '/compact' });
  timers.run();
  await settle();
  assert.equal(code.lastHeader().warning, null);
  assert.equal(server.called('pi/chat/preflight').length, 1, 'a command is not a prompt: no preflight');
});

test('the model picker lists what Pi can use (recorded), the current one marked; the choice goes to Pi', async () => {
  const { controller, server, code } = await started((_s, c) => {
    c.pickAnswer = (labels) => labels[0];
  });
  await controller.onMessage({ type: 'pickModel' });
  const models = recorded<{ items: Json[] }>('pi/chat/models').items;
  assert.deepEqual(code.picks.at(-1), { title: "The chat's model", labels: models.map((m) => `${String(m.provider)}/${String(m.id)}`) });
  assert.deepEqual(server.called('pi/chat/setModel'), [{ chatId: START.chatId, model: `${String(models[0]?.provider)}/${String(models[0]?.id)}` }]);
});

test("Undo on Pi's recorded edit puts the file back; refused with the reason once the file changed since", async () => {
  const { events } = recording('edit-turn');
  const edit = events.find((e) => e.type === 'tool_execution_end') as Json;
  const args = (events.find((e) => e.type === 'tool_execution_start') as Json).args as {
    path: string;
    edits: { oldText: string; newText: string }[];
  };
  const file = path.isAbsolute(args.path) ? args.path : path.join(START.cwd, args.path);
  const change = args.edits[0] as { oldText: string; newText: string };
  const { controller, server, code, timers } = await started((_s, c) => {
    c.files.set(file, `before\n${change.newText}\nafter\n`);
  });
  events.forEach((event, i) => server.notify('pi/chat/event', { chatId: START.chatId, seq: i + 1, event }));
  await settle();
  timers.run();
  const itemId = `t-${String(edit.toolCallId)}`;
  assert.equal((code.shownItems().get(itemId) as Json).undo, 'available');
  // Review: the turn's one file, before the turn (the base document) ↔ now
  await controller.onMessage({ type: 'review', itemId });
  assert.deepEqual(code.changes, [["Pi's changes in this turn", [{ path: file, itemId }]]]);
  assert.equal(controller.editDiffSide(file, `base=${itemId}`), `before\n${change.oldText}\nafter\n`);
  // changed since: refused, the file untouched
  code.files.set(file, `before\n${change.newText}\nafter\nmine\n`);
  await controller.onMessage({ type: 'undo', itemId });
  timers.run();
  assert.equal(code.files.get(file), `before\n${change.newText}\nafter\nmine\n`);
  const name = path.basename(file);
  assert.ok([...code.shownItems().values()].some((i) => (i as Json).text === `Cannot undo: ${name} changed on disk since Pi's edit wrote it.`));
  // as Pi left it: restored
  code.files.set(file, `before\n${change.newText}\nafter\n`);
  await controller.onMessage({ type: 'undo', itemId });
  timers.run();
  assert.equal(code.files.get(file), `before\n${change.oldText}\nafter\n`);
  assert.equal((code.shownItems().get(itemId) as Json).undo, 'done');
});

test('attached files and selections are counted by the preflight, shown as chips and sent with the prompt', async () => {
  const answer = recorded<Json>('pi/chat/preflight');
  const { controller, server, code, timers } = await started((s, c) => {
    s.handlers.set('pi/chat/preflight', (p) => ({
      ...answer,
      textTokens: { pi: 40, estimate: 42 },
      attachments: (p.attachments as Json[]).map((a) => ({ ...a, tokens: { pi: 30, estimate: 33 } })),
    }));
    c.workspaceFiles = ['/home/user/project/src/app.py', '/home/user/project/README.md'];
    c.editor = { path: '/home/user/project/src/app.py', selection: { start: 3, end: 4, text: 'a\nb' } };
  });
  await controller.onMessage({ type: 'mention', query: 'app' });
  assert.deepEqual(code.posted.at(-1), {
    type: 'mentions',
    query: 'app',
    items: [{ kind: 'file', label: 'app.py', detail: 'src/app.py', path: '/home/user/project/src/app.py', startLine: null, endLine: null }],
  });
  await controller.onMessage({ type: 'attach', path: 'src/app.py', startLine: null, endLine: null });
  controller.addSelection();
  timers.run();
  await settle();
  const chips = code.lastHeader().attachments ?? [];
  assert.deepEqual(chips.map((c) => [c.label, c.tokens]), [['app.py', 33], ['app.py:3-4', 33]]);
  assert.equal(code.lastHeader().adds?.line, 'Adds 42 tokens (66 from 2 attachments)');
  await controller.onMessage({ type: 'removeAttachment', id: chips[0]?.id ?? '' });
  await controller.onMessage({ type: 'send', text: 'explain' });
  assert.deepEqual(server.called('pi/chat/prompt').at(-1), {
    chatId: START.chatId,
    text: 'explain',
    attachments: [{ path: '/home/user/project/src/app.py', startLine: 3, endLine: 4, text: 'a\nb' }],
  });
  assert.deepEqual(code.lastHeader().attachments, [], 'sent: the chips go');
});

test("a reply's code block goes into the editor at the cursor, or into a new untitled document in its language", async () => {
  const { controller, code } = await started();
  await controller.onMessage({ type: 'insertCode', text: 'print(1)' });
  await controller.onMessage({ type: 'newFile', text: 'print(1)', language: 'python' });
  assert.deepEqual(code.inserted, ['print(1)']);
  assert.deepEqual(code.untitled, [['print(1)', 'python']]);
});

test("Undo on a write: the file as read when the model finished the call comes back; one the write created is removed", async () => {
  const file = path.join(START.cwd, 'NEW.md');
  const kept = path.join(START.cwd, 'KEPT.md');
  const { controller, server, code, timers } = await started((_s, c) => {
    c.files.set(kept, 'old text\n');
  });
  const call = (id: string, p: string, content: string): Json[] => [
    { type: 'agent_start' },
    { type: 'message_start', message: { role: 'assistant', content: [] } },
    {
      type: 'message_update',
      assistantMessageEvent: { type: 'toolcall_end', contentIndex: 0, toolCall: { type: 'toolCall', id, name: 'write', arguments: { path: p, content } } },
    },
    { type: 'message_end', message: { role: 'assistant', content: [{ type: 'toolCall', id, name: 'write', arguments: { path: p, content } }] } },
    { type: 'tool_execution_start', toolCallId: id, toolName: 'write', args: { path: p, content } },
    { type: 'tool_execution_end', toolCallId: id, toolName: 'write', result: { content: [{ type: 'text', text: 'ok' }] }, isError: false },
  ];
  let seq = 0;
  const play = async (events: Json[], afterSnapshot: () => void): Promise<void> => {
    server.notify('pi/chat/event', { chatId: START.chatId, seq: ++seq, event: events[0] as Json });
    server.notify('pi/chat/event', { chatId: START.chatId, seq: ++seq, event: events[1] as Json });
    server.notify('pi/chat/event', { chatId: START.chatId, seq: ++seq, event: events[2] as Json });
    await settle(); // the host read the file (before Pi runs the tool)
    afterSnapshot(); // then Pi writes
    for (const event of events.slice(3)) {
      server.notify('pi/chat/event', { chatId: START.chatId, seq: ++seq, event });
    }
    await settle();
    timers.run();
  };
  await play(call('w1', 'NEW.md', '# new\n'), () => code.files.set(file, '# new\n'));
  await play(call('w2', 'KEPT.md', 'new text\n'), () => code.files.set(kept, 'new text\n'));
  await controller.onMessage({ type: 'undo', itemId: 't-w1' });
  assert.equal(code.files.has(file), false, 'the file the write created is removed');
  await controller.onMessage({ type: 'undo', itemId: 't-w2' });
  assert.equal(code.files.get(kept), 'old text\n');
});

test("a write's end that arrives while the file is still being read waits for the read: Undo still has the before", async () => {
  const kept = path.join(START.cwd, 'KEPT.md');
  const { controller, server, code, timers } = await started((_s, c) => {
    c.files.set(kept, 'old text\n');
  });
  const args = { path: 'KEPT.md', content: 'new text\n' };
  const events: Json[] = [
    { type: 'agent_start' },
    { type: 'message_update', assistantMessageEvent: { type: 'toolcall_end', contentIndex: 0, toolCall: { type: 'toolCall', id: 'w9', name: 'write', arguments: args } } },
    { type: 'tool_execution_start', toolCallId: 'w9', toolName: 'write', args },
    { type: 'tool_execution_end', toolCallId: 'w9', toolName: 'write', result: { content: [{ type: 'text', text: 'ok' }] }, isError: false },
  ];
  // every event in one go: the host's read of the file has not finished when the write's end arrives
  events.forEach((event, i) => server.notify('pi/chat/event', { chatId: START.chatId, seq: i + 1, event }));
  await settle();
  timers.run();
  code.files.set(kept, 'new text\n'); // what Pi wrote
  assert.equal((code.shownItems().get('t-w9') as Json).undo, 'available');
  await controller.onMessage({ type: 'undo', itemId: 't-w9' });
  assert.equal(code.files.get(kept), 'old text\n');
});

test("editing a message sent with attachments gives its chips back and its text to the input", async () => {
  const points = recorded<{ messages: { entryId: string; text: string }[] }>('pi/chat/forkPoints');
  const first = points.messages[0];
  assert.ok(first);
  const sent = `<file name="/home/user/project/a.py" lines="2-3">\ny\nz\n</file>\n${first.text}`;
  const forked: ChatInfo = { ...START, session: '/home/user/.pi/agent/sessions/--home-user-project--/forked.jsonl' };
  const { controller, server, code, timers } = await started((s) => {
    s.handlers.set('pi/chat/messages', () => ({ items: [], inFlight: [], seq: 0, inFlightTruncated: false }));
    s.handlers.set('pi/chat/fork', () => ({ cancelled: false, text: sent }));
  });
  server.handlers.set('pi/chat/state', () => forked);
  server.notify('pi/chat/event', { chatId: START.chatId, seq: 1, event: { type: 'message_start', message: { role: 'user', content: first.text } } });
  server.notify('pi/chat/event', { chatId: START.chatId, seq: 2, event: { type: 'agent_settled' } });
  await settle();
  timers.run();
  const user = [...code.shownItems().values()].find((i) => (i as Json).kind === 'user') as Json;
  await controller.onMessage({ type: 'fork', itemId: user.id });
  timers.run();
  assert.deepEqual(code.posted.filter((m) => m.type === 'setInput').at(-1), { type: 'setInput', text: first.text });
  assert.deepEqual(
    (code.lastHeader().attachments ?? []).map((c) => [c.label, c.text]),
    [['a.py:2-3', 'y\nz']],
  );
});
