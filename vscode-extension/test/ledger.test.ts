import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { CHART_HEIGHT, CHART_WIDTH, costChart, nextLine, turnTitle } from '../src/model/ledger';
import { formatUsd } from '../src/model/money';
import type { LedgerRequest, LedgerTotals, TurnLedgerResult } from '../src/protocol.generated';

// `pi-context session examples/sessions/inventory-fix.jsonl --costs --json`: a real server answer.
const FIXTURE = path.join(__dirname, '..', '..', 'test', 'fixtures', 'cost', 'inventory-fix.turnLedger.json');
const real = JSON.parse(fs.readFileSync(FIXTURE, 'utf8')) as TurnLedgerResult;

function nth<T>(items: T[], index: number): T {
  const item = items[index];
  assert.ok(item !== undefined, `no item ${index}`);
  return item;
}

function turn(index: number, counts: Partial<LedgerRequest>): LedgerRequest {
  return {
    entryId: `e${index}`,
    kind: 'turn',
    index,
    input: 0,
    output: 0,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: 0,
    cost: 0.01,
    costSource: 'recorded',
    cacheHitRatio: null,
    ...counts,
  };
}

const totals: LedgerTotals = { requests: 2, input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0.5, unknownCost: 1 };

function ledger(turns: LedgerRequest[], extra: Partial<TurnLedgerResult> = {}): TurnLedgerResult {
  return { session: '/s.jsonl', turns, totals, branchTotals: totals, sessionTotals: totals, ...extra };
}

test('one bar per turn, stacked cached, new input (input + cache writes), output', () => {
  const chart = costChart(
    ledger([turn(0, { input: 100, cacheWrite: 900, output: 50, totalTokens: 1050 }), turn(1, { cacheRead: 1000, input: 20, output: 30, totalTokens: 1050 })]),
  );
  assert.equal(chart.bars.length, 2);
  const [first, second] = [nth(chart.bars, 0), nth(chart.bars, 1)];
  assert.deepEqual(first.parts.map((p) => p.kind), ['input', 'output']);
  assert.deepEqual(second.parts.map((p) => p.kind), ['cached', 'input', 'output']);
  const scale = chart.scaleMax;
  assert.equal(scale, 1050 * 1.05);
  const [cached, fresh, out] = [nth(second.parts, 0), nth(second.parts, 1), nth(second.parts, 2)];
  assert.ok(Math.abs(cached.height - (1000 / scale) * CHART_HEIGHT) < 1e-9);
  assert.ok(Math.abs(cached.y - (CHART_HEIGHT - cached.height)) < 1e-9); // from the bottom up
  assert.ok(Math.abs(fresh.y + fresh.height - cached.y) < 1e-9 && Math.abs(out.y + out.height - fresh.y) < 1e-9);
  assert.ok(second.x >= CHART_WIDTH / 2 && second.x + second.width <= CHART_WIDTH);
});

test('a threshold far above the data is named instead of squashing the bars', () => {
  const chart = costChart(ledger([turn(0, { input: 1000, totalTokens: 1000 })], { threshold: 183_616 }));
  assert.equal(chart.scaleMax, 1000 * 1.05);
  assert.equal(chart.thresholdY, null);
  assert.equal(chart.thresholdNote, 'Pi compacts above 184k tokens, 184× the largest turn here');
});

test('the threshold sets the scale when it is above the data, and the marks sit between turns', () => {
  const chart = costChart(
    ledger([turn(0, { input: 400, totalTokens: 400 }), turn(1, { input: 400, totalTokens: 400 })], {
      threshold: 1000,
      markers: [{ kind: 'compaction', entryId: 'c1', afterTurn: 1, tokensBefore: 900 }],
    }),
  );
  assert.equal(chart.scaleMax, 1050);
  assert.ok(chart.thresholdY !== null && Math.abs(chart.thresholdY - (CHART_HEIGHT - (1000 / 1050) * CHART_HEIGHT)) < 1e-9);
  assert.equal(chart.thresholdTitle, 'Pi compacts above 1k tokens');
  assert.equal(chart.thresholdNote, null);
  assert.deepEqual(chart.marks, [{ kind: 'compaction', x: CHART_WIDTH / 2, title: 'Compaction (c1) after turn 1: 900 before' }]);
  assert.equal(chart.contextLine.split(' ').length, 2);
});

test('a session of 150,000 turns is charted (the largest turn is not found by spreading every turn into Math.max)', () => {
  const turns = Array.from({ length: 150_000 }, (_, i) => turn(i, { input: 10, output: 5, totalTokens: i === 77_777 ? 9000 : 15 }));
  const chart = costChart(ledger(turns));
  assert.equal(chart.bars.length, 150_000);
  assert.equal(chart.scaleMax, 9000 * 1.05);
});

test('the hover text has the numbers, the cost source and the gap', () => {
  const title = turnTitle(
    turn(2, { cacheRead: 33_637, input: 1, cacheWrite: 7594, output: 2526, totalTokens: 43_758, cost: 0.127436, cacheHitRatio: 0.8158, sincePreviousMs: 4464, model: 'claude-opus-4-5' }),
  );
  assert.equal(
    title,
    'Turn 3 · e2 · claude-opus-4-5\ncache read 34k · new input 7.6k · output 2.5k\n' +
      'cost $0.1274 (as Pi recorded it) · 82% of the prompt cached\ncontext 44k\n4.5 s after the previous request',
  );
  assert.match(turnTitle(turn(0, { cost: null, costSource: 'unknown' })), /cost unknown \(unknown\)/);
});

test('the summary counts unknown costs apart and the next request compares with the clock', () => {
  const next = real.nextRequest;
  assert.ok(next);
  const chart = costChart(real, (next.expiresAt ?? 0) + 1);
  assert.equal(chart.bars.length, real.turns.length);
  assert.equal(chart.marks.map((m) => m.kind).join(), 'branchPoint');
  assert.match(chart.summary, /^15 turns · \$0 /);
  assert.match(chart.next ?? '', /^Next request: cache lifetime unknown; cached 0 \+ new 54k ≈ unknown, or unknown if it expired/);
  assert.match(nextLine({ ...next, expiresAt: 10_000 }, 4_000), /cache alive for 6\.0 s/);
  assert.match(nextLine({ ...next, expiresAt: 10_000 }, 10_000), /cache probably expired/);
  assert.match(costChart(ledger([turn(0, {})])).summary, /1 turn · \$0\.5 \(\+1 unknown\)/);
  assert.equal(formatUsd(123.456), '$123.46');
});
