import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { economicsMarkdown, economicsText } from '../src/model/economics';
import { previewDocument, settledDocument } from '../src/model/outcome';
import type { ChatCompactPreview, CommandOutcome, CompactionEconomicsInfo } from '../src/protocol.generated';

// Real server answers (scripts/record_cost_fixtures.py): `pi.compact {previewOnly}` of the example session with
// the offline summarizer, and `pi/chat/compactPreview` of the same session, both at Sonnet's rates (models.json).
const FIXTURES = path.join(__dirname, '..', '..', 'test', 'fixtures', 'cost');
const compact = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'inventory-fix.compact.json'), 'utf8')) as CommandOutcome;
const chat = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'inventory-fix.chatCompactPreview.json'), 'utf8')) as ChatCompactPreview;
const economics = compact.economics as CompactionEconomicsInfo;

test('a compaction preview says what the summary requests cost, what every later request saves and when it pays off', () => {
  const text = economicsText(economics);
  assert.equal(
    text.request,
    "2 summary requests: 2,415 tokens in (all new input: Pi sends them without caching), 357 out; ≈ $0.0126 " +
      "(anthropic/claude-sonnet-4-5's prices from models.json).",
  );
  assert.equal(
    text.saving,
    'Every later request carries 31,123 fewer tokens (53,949 → 22,826): ≈ $0.009337 less each with a warm cache; ' +
      'the first one writes the new context to the cache (≈ $0.06941 more than reading the old one).',
  );
  assert.equal(text.breakEven, 'Pays for itself after 9 later turns (one request to the model each).');
});

test('the preview document carries the cost under the facts, and keeps it once settled', () => {
  const doc = previewDocument('compaction', compact, 's.jsonl');
  const lines = doc.split('\n');
  const facts = lines.findIndex((l) => l.startsWith('> Summarizer: offline (extractive)'));
  assert.deepEqual(lines.slice(facts + 1, facts + 5), ['>', ...economicsMarkdown(economics)]);
  assert.ok(lines.indexOf('---') > facts + 4, 'the cost comes before the summary');
  const settled = settledDocument('compaction', compact, 's.jsonl', { state: 'discarded' });
  assert.match(settled, /> \*\*Cost\.\*\* 2 summary requests: 2,415 tokens in/);
  assert.match(settled, /> Pays for itself after 9 later turns/);
});

test("the chat's preview says its summary length is an estimate", () => {
  const text = economicsText(chat.economics as CompactionEconomicsInfo);
  assert.match(text.request, /^2 summary requests: 2,434 tokens in .*, 1,000 out \(estimated: an assumed length, no summary yet\); ≈ \$0\.0223 /);
  assert.equal(text.breakEven, 'Pays for itself after 11 later turns (one request to the model each).');
  const previous: CompactionEconomicsInfo = { ...economics, summaryOutputSource: 'previous' };
  assert.match(economicsText(previous).request, /357 out \(estimated: as long as the previous summary\)/);
});

test("a run with pi-context's summarizer is priced at that model's prices, with the provider's counts", () => {
  const run: CompactionEconomicsInfo = {
    ...economics,
    summaryModel: 'anthropic/claude-haiku-4-5',
    summaryPriceSource: 'pi',
    summaryTokensSource: 'reported',
    summaryCost: 0.0042,
  };
  assert.equal(
    economicsText(run).request,
    "2 summary requests: 2,415 tokens in (all new input: Pi sends them without caching), 357 out as the provider " +
      "reported them; ≈ $0.0042 (anthropic/claude-haiku-4-5's prices from Pi's model catalog).",
  );
});

test('without prices the tokens are given and the money and break-even are said to be unknown', () => {
  const unknown: CompactionEconomicsInfo = {
    ...economics,
    summaryCost: null,
    rewriteCost: null,
    savingPerRequest: null,
    breakEvenRequests: null,
    priceSource: 'unknown',
  };
  const text = economicsText(unknown);
  assert.match(text.request, /357 out; cost unknown \(no prices known for anthropic\/claude-sonnet-4-5\)\.$/);
  assert.match(text.saving, /^Every later request carries 31,123 fewer tokens .*: cost unknown less each/);
  assert.equal(text.breakEven, 'Break-even: unknown without prices.');
});

test('a branch summary only adds, and a summary longer than what it replaces never pays off', () => {
  const branch: CompactionEconomicsInfo = { ...economics, removedPerRequest: -420, contextBefore: 0, contextAfter: 0, breakEvenRequests: null };
  assert.equal(economicsText(branch).saving, 'Every later request carries the summary: 420 more tokens.');
  assert.match(economicsText(branch).breakEven, /a branch summary adds context and removes none/);
  const longer: CompactionEconomicsInfo = { ...economics, removedPerRequest: -71, breakEvenRequests: null };
  assert.match(economicsText(longer).saving, /71 more tokens: the summary is longer than the messages it replaces/);
});

test('an outcome without economics (an older server) has no cost lines', () => {
  const { economics: _, ...older } = compact;
  assert.doesNotMatch(previewDocument('compaction', older, 's.jsonl'), /Cost\./);
});
