import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { cacheExpired, formatDuration, nextRequestText } from '../src/model/nextRequest';
import type { ChatPreflightResult, NextRequestCostInfo, TurnLedgerResult } from '../src/protocol.generated';

const FIXTURES = path.join(__dirname, '..', '..', 'test', 'fixtures', 'cost');
// Real server answers, written by scripts/record_cost_fixtures.py (tests/cost/test_extension_fixtures.py keeps
// them current). Priced: `pi-context session tests/fixtures/pi/before-compaction.jsonl --costs --json
// --agent-dir DIR` with DIR/models.json = before-compaction.models.json (5-minute cache, Opus rates).
const priced = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'before-compaction.nextRequest.json'), 'utf8')) as NextRequestCostInfo;
// Unpriced: the example session on a model no catalog lists (no prices, no cache lifetime).
const ledger = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'inventory-fix.turnLedger.json'), 'utf8')) as TurnLedgerResult;
const unpriced = ledger.nextRequest as NextRequestCostInfo;

const expiresAt = priced.expiresAt as number;

test('while the cache lives, the line gives the warm split and its cost', () => {
  const text = nextRequestText(priced, expiresAt - 100_000);
  assert.equal(text.expired, false);
  assert.equal(text.line, 'Next request: 168k cached + 33k new · cache alive for 1 min 40 s · ≈ $0.2898');
  assert.equal(text.summary, '168k cached + 33k new · cache alive for 1 min 40 s · ≈ $0.2898');
  assert.match(text.title, /^Next request: about 200,900 prompt tokens/);
  assert.match(text.title, /Byte-identical prefix with the previous request \(the request of reply 000003e8\): the whole previous request, about 167,988 tokens\./);
  assert.match(text.title, /Cache: cache alive for 1 min 40 s; lifetime 5 min for short retention, from models\.json\./);
  assert.match(text.title, /If the cache holds: 167,978 cache-read \+ 32,922 new input tokens, ≈ \$0\.2898\./);
  assert.match(text.title, /If it expired: 200,900 new input tokens, ≈ \$1\.26\./);
  assert.match(text.title, /prices from models\.json/);
});

test('once the expiry instant has passed, the line gives the cold price', () => {
  const text = nextRequestText(priced, expiresAt + 60_000);
  assert.equal(text.expired, true);
  assert.equal(text.line, 'Next request: 0 cached + 201k new · cache probably expired 1 min ago · ≈ $1.26');
  assert.equal(cacheExpired(priced, expiresAt), true);
  assert.equal(cacheExpired(priced, expiresAt - 1), false);
});

test('no lifetime and no prices: said so, never guessed', () => {
  const text = nextRequestText(unpriced, Date.now());
  assert.equal(text.expired, null);
  assert.equal(text.line, 'Next request: 0 cached + 54k new · cache lifetime unknown · cost unknown');
  assert.match(text.title, /Cache: cache lifetime unknown; lifetime unknown \(no source gives one\)\./);
  assert.match(text.title, /No prices known for this model/);
  assert.match(text.title, /no cache lifetime known/);
});

test('a first request has nothing cached', () => {
  const first: NextRequestCostInfo = { ...unpriced, prefix: null, previousEntryId: null, notes: [] };
  const text = nextRequestText(first, 0);
  assert.match(text.line, /nothing cached yet/);
  assert.match(text.title, /No earlier request on this branch: nothing is cached\./);
});

test('a broken prefix names where it breaks', () => {
  const prefix = priced.prefix!;
  const broken: NextRequestCostInfo = {
    ...priced,
    prefix: { ...prefix, wholePrevious: false, segments: 1, brokenAt: { kind: 'systemUpdate', entryId: 'x', offset: 3 } },
  };
  assert.match(nextRequestText(broken, 0).title, /: 1 of its 439 segments, then it differs in a systemUpdate segment, about/);
});

test('durations read in whole units', () => {
  assert.equal(formatDuration(45_000), '45 s');
  assert.equal(formatDuration(240_000), '4 min');
  assert.equal(formatDuration(250_400), '4 min 10 s');
  assert.equal(formatDuration(5_400_000), '1.5 h');
  assert.equal(formatDuration(47 * 3_600_000), '47.0 h');
  assert.equal(formatDuration(320 * 86_400_000 + 5_000_000), '320 days');
  assert.equal(formatDuration(-5), '0 s');
});

test("the chat's preflight answer, from the real Pi's session, words the price of sending the prompt", () => {
  // pi/chat/preflight on the session Pi 1.6.0 wrote against the loopback model (tests/cost/golden/real-pi.session.jsonl,
  // three replies, the last with 1,280 tokens read from the cache) with 400 characters typed; its models.json
  // prices the fake model at Sonnet's rates with a 5-minute cache.
  const found = JSON.parse(fs.readFileSync(path.join(FIXTURES, 'chat-preflight.json'), 'utf8')) as ChatPreflightResult;
  const next = found.nextRequest as NextRequestCostInfo;
  const text = nextRequestText(next, (next.lastRequestAt ?? 0) + 1000);
  assert.equal(text.expired, false);
  assert.equal(text.line, 'Next request: 1.3k cached + 230 new · cache alive for 4 min 59 s · ≈ $0.001259');
  assert.match(text.title, /Byte-identical prefix with the previous request \(the request of reply acb4f35a\): the whole previous request, about 1,320 tokens\./);
  assert.match(text.title, /If it expired: 1,550 new input tokens, ≈ \$0\.005812\./);
  assert.match(text.title, /prices from models\.json/);
});
