import assert from 'node:assert/strict';
import { test } from 'node:test';
import { gaugeView, modelHasPrices, usageText } from '../src/chat/replyUsage';
import { readUsage } from '../src/chat/transcript';

// The usage of the second reply in test/fixtures/chat/tool-turn.jsonl (a model priced 3/15 per M).
const recorded = readUsage({
  input: 150,
  output: 20,
  cacheRead: 0,
  cacheWrite: 0,
  reasoning: 0,
  totalTokens: 170,
  cost: { input: 0.00045, output: 0.00030000000000000003, cacheRead: 0, cacheWrite: 0, total: 0.00075 },
});

test('the per-reply line has tokens in and out, cache reads, and the cost when the model has prices', () => {
  assert.deepEqual(usageText(recorded, true), {
    text: 'in 150 · out 20 · cache read 0 · $0.00075',
    title: "150 input tokens, 20 output tokens, 0 read from the cache, cost $0.00075 at the model's prices",
  });
  assert.equal(usageText(recorded, false)?.text, 'in 150 · out 20 · cache read 0');
  const cached = readUsage({ input: 1200, output: 30000, cacheRead: 45000, cacheWrite: 800, totalTokens: 77000, cost: { total: 1.234 } });
  assert.equal(usageText(cached, true)?.text, 'in 1.2k · out 30k · cache read 45k · cache write 800 · $1.23');
});

test('no usage line when Pi reported none', () => {
  assert.equal(usageText(null, true), null);
  assert.equal(usageText(readUsage({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { total: 0 } }), true), null);
});

test("a model's prices are known when any of them is positive", () => {
  assert.equal(modelHasPrices({ cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 } }), false);
  assert.equal(modelHasPrices({ cost: { input: 3, output: 15 } }), true);
  assert.equal(modelHasPrices({}), false);
  assert.equal(modelHasPrices(null), false);
});

test("the gauge shows Pi's context tokens against the window and warns past the threshold", () => {
  const budget = { contextTokens: 941, window: 128000, threshold: 111616 };
  assert.deepEqual(gaugeView(budget), {
    tokens: 941,
    window: 128000,
    threshold: 111616,
    percent: 0.7,
    level: 'ok',
    label: '<1% of 128k',
    title: '941 of 128,000 tokens in the context; Pi compacts past 111,616',
  });
  assert.equal(gaugeView({ ...budget, contextTokens: 64000 })?.label, '50% of 128k');
  assert.equal(gaugeView({ ...budget, contextTokens: 120000 })?.level, 'warning');
  assert.equal(gaugeView({ ...budget, contextTokens: 130000 })?.level, 'error');
  assert.equal(gaugeView(null), null);
});

test('the gauge is the figure the status bar shows for the same budget, whatever a reply streams', () => {
  // The issue: after a compaction the gauge showed the last reply's usage (18%) while the status bar showed 6%.
  const budget = { contextTokens: 1969, window: 32000, threshold: 15616 };
  assert.equal(gaugeView(budget)?.label, '6% of 32k');
  assert.equal(gaugeView(budget)?.tokens, 1969);
});
