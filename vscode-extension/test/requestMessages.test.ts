import assert from 'node:assert/strict';
import { test } from 'node:test';
import { clipText, fence, groupMessages, requestMarkdown, requestView } from '../src/model/requestMessages';
import { estimator, message, prompt, section, tokens } from './fixtures';

test('a user message opens a turn and the replies and tool results after it join it', () => {
  const groups = groupMessages(
    [message(0, 'user'), message(1, 'assistant'), message(2, 'toolResult'), message(3, 'user'), message(4, 'assistant')],
    'pi',
  );
  assert.deepEqual(
    groups.map((g) => [g.title, g.rows.map((r) => r.index)]),
    [
      ['Turn 1', [0, 1, 2]],
      ['Turn 2', [3, 4]],
    ],
  );
});

test('a compaction summary stands alone and is marked', () => {
  const groups = groupMessages([message(0, 'compactionSummary', 'user'), message(1, 'user'), message(2, 'assistant')], 'pi');
  assert.equal(groups[0]?.kind, 'summary');
  assert.equal(groups[0]?.marker, 'compaction');
  assert.equal(groups[1]?.title, 'Turn 1');
});

test('a branch summary is marked as a branch summary', () => {
  const groups = groupMessages([message(0, 'user'), message(1, 'branchSummary', 'user')], 'pi');
  assert.equal(groups[1]?.marker, 'branch');
});

test('messages before any user message form a preamble group', () => {
  const groups = groupMessages([message(0, 'custom', 'user'), message(1, 'user')], 'pi');
  assert.equal(groups[0]?.kind, 'preamble');
  assert.equal(groups[1]?.title, 'Turn 1');
});

test('a group counts the tokens of its messages in the chosen estimate', () => {
  const m0 = { ...message(0, 'user'), tokens: tokens(10, 12) };
  const m1 = { ...message(1, 'assistant'), tokens: tokens(5, 7) };
  assert.equal(groupMessages([m0, m1], 'pi')[0]?.tokens, 15);
  assert.equal(groupMessages([m0, m1], 'estimated')[0]?.tokens, 19);
});

test('long texts are cut for the view and the rest is counted', () => {
  const groups = groupMessages([message(0, 'user', 'user', 'x'.repeat(50))], 'pi', 20);
  assert.equal(groups[0]?.rows[0]?.text.length, 20);
  assert.equal(groups[0]?.rows[0]?.omitted, 30);
});

test('a cut never splits a surrogate pair', () => {
  const clipped = clipText('ab😀cd', 3);
  assert.equal(clipped.text, 'ab');
  assert.equal(clipped.omitted, 4);
});

test('a fence is longer than any backtick run inside the text', () => {
  assert.equal(fence('a ``` b'), '````text\na ``` b\n````');
});

test('the request document has the system prompt and every message in order', () => {
  const doc = requestMarkdown({
    session: '/s.jsonl',
    leafId: 'e1',
    system: prompt([section('a', 0, 'SYSTEM TEXT')]),
    messages: [message(1, 'assistant', 'assistant', 'second'), message(0, 'user', 'user', 'first')],
    thinkingLevel: 'off',
    model: { contextWindow: 1000, source: 'default' },
    total: tokens(30),
  });
  assert.ok(doc.indexOf('SYSTEM TEXT') < doc.indexOf('first'));
  assert.ok(doc.indexOf('first') < doc.indexOf('second'));
  assert.match(doc, new RegExp(estimator.label.replace(/[()]/g, '\\$&')));
});

test('the request says where its system prompt comes from', () => {
  const result = {
    session: '/s.jsonl',
    system: prompt([section('a', 0)]),
    messages: [],
    thinkingLevel: 'off',
    model: { contextWindow: 1000, source: 'default' as const },
    total: tokens(3),
    systemOrigin: 'session' as const,
  };
  assert.equal(requestView(result, 'pi', 'm').systemLabel, 'System prompt (stored in the session)');
  assert.deepEqual(requestView(result, 'pi', 'm').systemSections, [{ name: 'a', tokens: 3 }]);
});
