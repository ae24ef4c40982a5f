/**
 * Names and the lens: a conversation's title (the rule the server's `pi/sessions` title follows), the history's
 * items (dates, model, cost, the first message searchable) and the header's one-line lens.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { lensView } from '../src/chat/lens';
import { sessionDate, sessionItems } from '../src/chat/pickers';
import { gaugeView } from '../src/chat/replyUsage';
import { sessionTitle, TITLE_MAX_CHARS } from '../src/model/sessionTitle';
import type { NextRequestCostInfo, SessionsResult } from '../src/protocol.generated';

test('a title is the name, else the first message on one line and bounded, else the fallback', () => {
  assert.equal(sessionTitle('Named', 'first message', 'id'), 'Named');
  assert.equal(sessionTitle(null, '  fix\tthe\n\n  bug \u0007 now ', 'id'), 'fix the bug now');
  const long = sessionTitle(null, 'word '.repeat(40), 'id');
  assert.equal(long.length, TITLE_MAX_CHARS);
  assert.ok(long.endsWith('…'));
  assert.equal(sessionTitle(undefined, undefined, '0197-abc'), '0197-abc');
  assert.equal(sessionTitle('', ' \n ', '0197-abc'), '0197-abc');
});

const NOW = new Date(2026, 11, 6, 17, 30);

test('the history says when: today, yesterday, else the date', () => {
  const at = (d: Date): number => d.getTime() / 1000;
  assert.equal(sessionDate(at(new Date(2026, 11, 6, 9, 5)), NOW), 'today 09:05');
  assert.equal(sessionDate(at(new Date(2026, 11, 5, 23, 59)), NOW), 'yesterday 23:59');
  assert.equal(sessionDate(at(new Date(2026, 10, 28, 8, 0)), NOW), '2026-11-28 08:00');
});

test('history items: the title, then when, the model and the cost; the first message under a named session', () => {
  const result: SessionsResult = {
    sessionsDir: '/s',
    sessions: [
      {
        path: '/s/a.jsonl',
        id: 'a',
        name: 'Inventory fix',
        title: 'Inventory fix',
        firstMessage: 'the report\ncrashes',
        model: 'anthropic/claude-sonnet-4-5',
        cost: 0.013021,
        modified: new Date(2026, 11, 6, 14, 5).getTime() / 1000,
        size: 2048,
        entryCount: 12,
      },
      { path: '/s/b.jsonl', id: 'b', title: 'say hello', firstMessage: 'say hello', modified: new Date(2026, 11, 1, 9, 0).getTime() / 1000, size: 100, entryCount: 2 },
    ],
  };
  const [a, b] = sessionItems(result, '/s/b.jsonl', NOW);
  assert.deepEqual(a, {
    label: 'Inventory fix',
    description: 'today 14:05 · anthropic/claude-sonnet-4-5 · $0.01302',
    detail: 'the report crashes',
    path: '/s/a.jsonl',
  });
  assert.deepEqual(b, { label: 'say hello', description: 'this chat · 2026-12-01 09:00', detail: '2 entries · 100 bytes', path: '/s/b.jsonl' });
});

test("the lens: the gauge, the next request's price and the cache's state in one line", () => {
  const gauge = gaugeView({ contextTokens: 124_000, window: 200_000, threshold: 183_616 });
  const next = {
    prefix: { tokens: 100 },
    expiresAt: 1_000_000,
    warm: { cacheRead: 120_000, newInput: 4_000, cost: 0.0475 },
    cold: { cacheRead: 0, newInput: 124_000, cost: 0.465 },
    cacheSource: 'pi',
  } as unknown as NextRequestCostInfo;
  const warm = lensView(gauge, next, 999_000);
  assert.equal(warm?.text, '62% of 200k · next ≈ $0.0475 · cache warm');
  assert.equal(warm?.cache, 'warm');
  const cold = lensView(gauge, next, 1_000_001);
  assert.equal(cold?.text, '62% of 200k · next ≈ $0.465 · cache cold');
  assert.match(cold?.title ?? '', /Click: the Context view/);
  assert.equal(lensView(null, null, 0), null);
  assert.equal(lensView(gauge, null, 0)?.text, '62% of 200k');
});
