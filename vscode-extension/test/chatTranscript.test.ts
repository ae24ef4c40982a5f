/**
 * The transcript reducer on event streams recorded from the real Pi 1.6.0
 * (`scripts/record_chat_events.py` wrote `test/fixtures/chat/*.jsonl`; each ends with Pi's
 * `get_messages` answer after the run, so folding the events and rebuilding from
 * `pi/chat/messages` can be compared).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { editSides, parseEditArgs } from '../src/chat/editDiff';
import { type AssistantItem, type ChatItem, type EventItem, Transcript } from '../src/chat/transcript';

type Json = Record<string, unknown>;

const FIXTURES = path.join(__dirname, '..', '..', 'test', 'fixtures', 'chat');

function recording(name: string): { events: Json[]; messages: unknown[] } {
  const lines = fs.readFileSync(path.join(FIXTURES, `${name}.jsonl`), 'utf8').trim().split('\n');
  const records = lines.map((line) => JSON.parse(line) as Json);
  const last = records.pop();
  assert.equal(last?.type, 'recorded_messages');
  return { events: records, messages: last.messages as unknown[] };
}

function fold(events: Json[]): Transcript {
  const t = new Transcript();
  for (const e of events) {
    t.apply(e);
  }
  return t;
}

/** The content of a transcript without the view's own ids, to compare two transcripts. */
function shape(items: ChatItem[]): unknown[] {
  return items.map((item) => {
    switch (item.kind) {
      case 'user':
        return ['user', item.text];
      case 'assistant':
        return ['assistant', item.blocks, item.stopReason, item.usage];
      case 'tool':
        return ['tool', item.name, item.args, item.output, item.status, item.durationMs];
      case 'event':
        return ['event', item.event, item.text, item.summary];
      default:
        return ['notice', item.text];
    }
  });
}

const of = <K extends ChatItem['kind']>(t: Transcript, kind: K): Extract<ChatItem, { kind: K }>[] =>
  t.items.filter((i): i is Extract<ChatItem, { kind: K }> => i.kind === kind);

test('a read tool turn folds into the user message, a tool card with args, output and duration, and the reply', () => {
  const { events, messages } = recording('tool-turn');
  const t = fold(events);
  assert.deepEqual(
    t.items.map((i) => i.kind),
    ['user', 'assistant', 'tool', 'assistant'],
  );
  const [tool] = of(t, 'tool');
  assert.equal(tool?.name, 'read');
  assert.deepEqual(JSON.parse(tool?.args ?? ''), { path: 'notes.txt' });
  assert.equal(tool?.output, 'line one\nline two\n');
  assert.equal(tool?.status, 'done');
  assert.equal(tool?.durationMs, 5);
  const reply = of(t, 'assistant')[1] as AssistantItem;
  assert.deepEqual(reply.blocks, [{ type: 'text', text: 'The file has **two** lines:\n\n```text\nline one\n```\n' }]);
  assert.equal(reply.streaming, false);
  assert.deepEqual(reply.usage, { input: 150, output: 20, cacheRead: 0, cacheWrite: 0, totalTokens: 170, cost: 0.00075 });
  assert.equal(t.streaming, false);
  assert.equal(t.lastUsage?.totalTokens, 170);
  // A view reloaded after the turn rebuilds the same transcript from pi/chat/messages.
  assert.deepEqual(shape(Transcript.fromMessages(messages).items), shape(t.items));
});

test('deltas stream into the reply while it is open, and the reply is marked streaming until message_end', () => {
  const { events } = recording('tool-turn');
  const t = new Transcript();
  const lastStart = events.map((e) => e.type).lastIndexOf('message_start');
  const firstDelta = events.findIndex((e, i) => i > lastStart && e.type === 'message_update');
  for (const e of events.slice(0, firstDelta + 2)) {
    t.apply(e);
  }
  const reply = t.items[t.items.length - 1] as AssistantItem;
  assert.equal(reply.kind, 'assistant');
  assert.equal(reply.streaming, true);
  assert.deepEqual(reply.blocks, [{ type: 'text', text: 'The file has **t' }]);
  assert.equal(t.streaming, true);
  const changed = t.apply(events[firstDelta + 2] as Json);
  assert.deepEqual(changed, [reply.id]);
  assert.equal(reply.blocks[0]?.text, 'The file has **two** lines:\n\n```');
});

test("an edit's card carries Pi's patch and the first changed line, also after a rebuild", () => {
  const { events, messages } = recording('edit-turn');
  const t = fold(events);
  const [tool] = of(t, 'tool');
  assert.equal(tool?.name, 'edit');
  assert.equal(tool?.status, 'done');
  assert.equal(tool?.output, 'Successfully replaced 1 block(s) in notes.txt.');
  assert.equal(tool?.patch, '--- notes.txt\n+++ notes.txt\n@@ -1,2 +1,2 @@\n line one\n-line two\n+line 2\n');
  assert.equal(tool?.line, 2);
  const [rebuilt] = of(Transcript.fromMessages(messages), 'tool');
  assert.deepEqual([rebuilt?.patch, rebuilt?.line], [tool?.patch, tool?.line]);
});

test('a tool card is pending while the model streams its arguments, then running, then done', () => {
  const { events } = recording('tool-turn');
  const t = new Transcript();
  const statuses: string[] = [];
  for (const e of events) {
    t.apply(e);
    const tool = of(t, 'tool')[0];
    if (tool && statuses[statuses.length - 1] !== tool.status) {
      statuses.push(tool.status);
    }
  }
  assert.deepEqual(statuses, ['pending', 'running', 'done']);
});

test('thinking is its own block before the answer, also after a rebuild', () => {
  const { events, messages } = recording('thinking');
  const t = fold(events);
  const [reply] = of(t, 'assistant');
  assert.deepEqual(reply?.blocks, [
    { type: 'thinking', text: 'The user greets me. I answer briefly.' },
    { type: 'text', text: 'Hello!' },
  ]);
  assert.deepEqual(shape(Transcript.fromMessages(messages).items), shape(t.items));
});

test('a failing tool makes an error card with its message', () => {
  const { events } = recording('tool-error');
  const [tool] = of(fold(events), 'tool');
  assert.equal(tool?.status, 'error');
  assert.match(tool?.output ?? '', /^ENOENT: no such file or directory/);
});

test("a model error is one readable error line, not an empty reply", () => {
  const { events } = recording('error');
  const t = fold(events);
  assert.deepEqual(
    t.items.map((i) => i.kind),
    ['user', 'event'],
  );
  const [line] = of(t, 'event');
  assert.equal(line?.event, 'error');
  assert.equal(line?.text, '400: {"message":"bad request: context too long"}');
});

test("Pi's retry turns the error line into a retry line, then the retried reply follows", () => {
  const { events } = recording('retry');
  const t = fold(events);
  assert.deepEqual(
    t.items.map((i) => i.kind),
    ['user', 'event', 'assistant'],
  );
  const [line] = of(t, 'event');
  assert.equal(line?.event, 'retry');
  assert.equal(line?.running, false);
  assert.equal(line?.text, '503: {"message":"overloaded"}: retried, attempt 1 succeeded');
  assert.equal(of(t, 'assistant')[0]?.blocks[0]?.text, 'Back again.');
});

test('retries that all fail are one line that ends as an error with the final reason', () => {
  const { events } = recording('retry-fail');
  const t = fold(events);
  assert.deepEqual(
    t.items.map((i) => i.kind),
    ['user', 'event'],
  );
  const [line] = of(t, 'event');
  assert.equal(line?.event, 'error');
  assert.equal(line?.running, false);
  assert.equal(line?.text, 'Gave up after 2 retries: 503: {"message":"overloaded"}');
  assert.equal(t.streaming, false);
});

test('while Pi retries, the one retry line says which attempt is next', () => {
  const { events } = recording('retry-fail');
  const second = events.map((e) => e.type).lastIndexOf('auto_retry_start');
  const t = fold(events.slice(0, second + 1));
  const lines = of(t, 'event');
  assert.equal(lines.length, 1);
  assert.equal(lines[0]?.event, 'retry');
  assert.equal(lines[0]?.running, true);
  assert.equal(lines[0]?.text, '503: {"message":"overloaded"}: retrying (attempt 2 of 2) in 2 ms');
});

test("abort while a bash tool runs: the card ends as an error with Pi's words, also after a rebuild", () => {
  const { events, messages } = recording('abort-tool');
  const t = fold(events);
  const [tool] = of(t, 'tool');
  assert.equal(tool?.name, 'bash');
  assert.equal(tool?.status, 'error');
  assert.equal(tool?.output, 'Command aborted');
  assert.equal(typeof tool?.durationMs, 'number');
  assert.equal(t.streaming, false);
  const [rebuilt] = of(Transcript.fromMessages(messages), 'tool');
  assert.deepEqual([rebuilt?.status, rebuilt?.output], ['error', 'Command aborted']);
});

test("an edit card's diff reverses Pi's recorded edit on the file Pi wrote", () => {
  const { events } = recording('edit-turn');
  const [tool] = of(fold(events), 'tool');
  const call = parseEditArgs(tool?.args ?? '');
  assert.deepEqual(call, { path: 'notes.txt', edits: [{ oldText: 'line two', newText: 'line 2' }] });
  // The recording's workspace had "line one\nline two\n"; Pi's edit left this:
  const sides = call ? editSides('line one\nline 2\n', call) : null;
  assert.deepEqual(sides, { source: 'file', before: 'line one\nline two\n', after: 'line one\nline 2\n' });
});

test('an aborted reply keeps its partial text and ends streaming', () => {
  const { events } = recording('abort');
  const t = fold(events);
  const [reply] = of(t, 'assistant');
  assert.equal(reply?.stopReason, 'aborted');
  assert.equal(reply?.blocks[0]?.text, 'This reply ');
  assert.equal(reply?.streaming, false);
  assert.equal(t.streaming, false);
});

test("a compaction is shown inline with Pi's summary, and a rebuild shows the summary where the history was", () => {
  const { events, messages } = recording('compaction');
  const t = fold(events);
  const [line] = of(t, 'event');
  assert.equal(line?.event, 'compaction');
  assert.equal(line?.running, false);
  assert.equal(line?.text, 'Compacted: 15 tokens before, about 1,347 after');
  assert.match(line?.summary ?? '', /## Goal\nKeep notes.txt in mind\./);
  assert.equal(t.compacting, false);
  const rebuilt = Transcript.fromMessages(messages);
  const first = rebuilt.items[0] as EventItem;
  assert.equal(first.event, 'compaction');
  assert.equal(first.summary, line?.summary);
});

test('a compaction is running between compaction_start and compaction_end', () => {
  const { events } = recording('compaction');
  const t = fold(events.filter((e) => e.type !== 'compaction_end'));
  assert.equal(t.compacting, true);
  const [line] = of(t, 'event');
  assert.equal(line?.running, true);
  assert.equal(line?.text, 'Compacting (on request)…');
});

test('a view attached mid-reply opens the reply on the first delta it sees and ends it with message_end', () => {
  const { events } = recording('tool-turn');
  const cut = events.findIndex((e) => e.type === 'message_update' && (e.assistantMessageEvent as Json).type === 'text_delta');
  const t = new Transcript();
  for (const e of events.slice(cut + 1)) {
    t.apply(e);
  }
  const [reply] = of(t, 'assistant');
  assert.equal(reply?.blocks[0]?.text, 'The file has **two** lines:\n\n```text\nline one\n```\n');
  assert.equal(reply?.streaming, false);
});

test('Pi exiting ends streaming and says the session can be resumed', () => {
  const { events } = recording('tool-turn');
  const t = fold(events.slice(0, 12));
  assert.equal(t.streaming, true);
  const line = t.exited('Pi was stopped by SIGKILL', false);
  assert.equal(t.streaming, false);
  assert.equal(line.event, 'exited');
  assert.equal(line.text, 'Pi was stopped by SIGKILL. The session file is kept: restart to resume it.');
  assert.ok(of(t, 'tool').every((tool) => tool.status !== 'running' && tool.status !== 'pending'));
});

test("entry ids from pi/chat/forkPoints go to the user messages with the same text, matched from the end", () => {
  const t = new Transcript();
  for (const text of ['one', 'two', 'one']) {
    t.apply({ type: 'message_start', message: { role: 'user', content: [{ type: 'text', text }] } });
  }
  const changed = t.assignEntryIds([
    { entryId: 'a', text: 'zero' },
    { entryId: 'b', text: 'one' },
    { entryId: 'c', text: 'two' },
    { entryId: 'd', text: 'one' },
  ]);
  assert.deepEqual(
    of(t, 'user').map((u) => u.entryId),
    ['b', 'c', 'd'],
  );
  assert.equal(changed.length, 3);
  assert.deepEqual(t.assignEntryIds([{ entryId: 'b', text: 'one' }, { entryId: 'c', text: 'two' }, { entryId: 'd', text: 'one' }]), []);
  assert.equal(t.lastUserText(), 'one');
});

test('queue, session name, thinking level and extension errors are followed', () => {
  const t = new Transcript();
  t.apply({ type: 'queue_update', steering: ['stop that'], followUp: [] });
  t.apply({ type: 'session_info_changed', name: 'Refactor' });
  t.apply({ type: 'thinking_level_changed', level: 'high' });
  const changed = t.apply({ type: 'extension_error', extensionPath: '/x.ts', event: 'tool_call', error: 'boom' });
  assert.deepEqual(t.queue, { steering: ['stop that'], followUp: [] });
  assert.equal(t.sessionName, 'Refactor');
  assert.equal(t.thinkingLevel, 'high');
  assert.equal(changed.length, 1);
  assert.equal((t.get(changed[0] ?? '') as { text: string }).text, 'A Pi extension failed (tool_call): boom');
});

test('records the reducer does not know change nothing', () => {
  const t = new Transcript();
  assert.deepEqual(t.apply({ type: 'something_new', x: 1 }), []);
  assert.deepEqual(t.apply({ type: 'message_start', message: 'not an object' }), []);
  assert.deepEqual(t.items, []);
});

test('an error notice survives the conversation being rebuilt, until dismissed or a new prompt', () => {
  const old = new Transcript();
  old.notice('info', 'Forked: edit the message');
  old.notice('error', 'The chat has not started.');
  const rebuilt = Transcript.fromMessages([{ role: 'user', content: 'hello', timestamp: 1 }]);
  const kept = rebuilt.keepErrors(old);
  assert.deepEqual(
    rebuilt.items.map((i) => [i.kind, i.kind === 'notice' ? i.text : '']),
    [
      ['user', ''],
      ['notice', 'The chat has not started.'],
    ],
  );
  assert.equal(new Set(rebuilt.items.map((i) => i.id)).size, rebuilt.items.length); // ids stay unique
  assert.equal(rebuilt.dismiss('nope'), false);
  assert.equal(rebuilt.dismiss(kept[0]?.id ?? ''), true);
  assert.deepEqual(rebuilt.items.map((i) => i.kind), ['user']);

  rebuilt.notice('error', 'first try failed');
  rebuilt.notice('info', 'an info line stays');
  assert.equal(rebuilt.clearErrors(), true);
  assert.deepEqual(rebuilt.items.map((i) => i.kind), ['user', 'notice']);
  assert.equal(rebuilt.clearErrors(), false);
});

/**
 * What `pi/chat/messages` answers at one point of a recorded stream: the messages that ended before
 * it (Pi's get_messages), and the records since the last of them (the server's run log, for these
 * one-tool-at-a-time turns: everything after the last message_end but the turn and run ends).
 */
function snapshotAt(events: Json[], cut: number): { messages: unknown[]; inFlight: Json[] } {
  const before = events.slice(0, cut);
  const messages = before.filter((e) => e.type === 'message_end').map((e) => e.message);
  let last = -1;
  before.forEach((e, i) => {
    if (e.type === 'message_end' || e.type === 'agent_settled') {
      last = i;
    }
  });
  const inFlight = before.slice(last + 1).filter((e) => e.type !== 'turn_end' && e.type !== 'agent_end');
  return { messages, inFlight };
}

test('a view rebuilt at any point of a turn from the snapshot, then the later events, shows what a view that saw it all shows', () => {
  for (const name of ['tool-turn', 'edit-turn', 'thinking', 'abort', 'tool-error']) {
    const { events } = recording(name);
    const whole = shape(fold(events).items);
    for (let cut = 0; cut <= events.length; cut++) {
      const { messages, inFlight } = snapshotAt(events, cut);
      const t = Transcript.fromSnapshot(messages, inFlight);
      assert.deepEqual(shape(t.items), shape(fold(events.slice(0, cut)).items), `${name}, rebuilt at record ${cut}`);
      for (const e of events.slice(cut)) {
        t.apply(e);
      }
      assert.deepEqual(shape(t.items), whole, `${name}, rebuilt at record ${cut}, then followed to the end`);
    }
  }
});

test('a stopped batch of tool calls folds the same from Pi 1.0.3, whose agent_settled does not say it was aborted', () => {
  const current = recording('abort-batch');
  const old = recording('abort-batch-1.0.3');
  const settled = (events: Json[]): Json | undefined => events.find((e) => e.type === 'agent_settled');
  assert.equal(settled(current.events)?.aborted, true);
  assert.equal('aborted' in (settled(old.events) ?? {}), false);
  const tools = (t: Transcript): unknown[] => of(t, 'tool').map((tool) => [tool.name, tool.status, tool.output.length > 0]);
  assert.deepEqual(tools(fold(old.events)), tools(fold(current.events)));
  // Pi 1.0.3 reports no durations (the view says so: chatCapabilities.test.ts); Pi 1.6.0 does.
  assert.ok(of(fold(current.events), 'tool').every((tool) => tool.durationMs !== null));
  assert.ok(of(fold(old.events), 'tool').every((tool) => tool.durationMs === null));
  // A call Pi 1.0.3 left without a result (its changelog: a stop during a batch) is not shown running forever.
  const unfinished = old.events.filter((e) => !(e.type === 'tool_execution_end' && e.toolCallId === 'call_read'));
  const card = of(fold(unfinished), 'tool').find((tool) => tool.name === 'read');
  assert.equal(card?.status, 'error');
});

test('a transcript rebuilt after a reload keeps "about N after", which only compaction_end says', () => {
  const { events, messages } = recording('compaction');
  const live = fold(events);
  assert.deepEqual([...live.compactionAfter], [[15, 1347]]);
  // Without what the host kept the rebuilt line can only give the tokens before (the session does not record after).
  assert.equal((Transcript.fromMessages(messages).items[0] as EventItem).text, 'Compacted: 15 tokens before');
  const rebuilt = Transcript.fromSnapshot(messages, [], live.compactionAfter);
  assert.equal((rebuilt.items[0] as EventItem).text, 'Compacted: 15 tokens before, about 1,347 after');
});

test("the conversation's first user message is what names it until Pi has a name", () => {
  const { events } = recording('tool-turn');
  const t = fold(events);
  assert.equal(t.firstUserText(), 'Read notes.txt');
  assert.equal(new Transcript().firstUserText(), null);
});
