import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import {
  addDays,
  MAX_DAYS,
  rangeSince,
  USAGE_CHART_HEIGHT,
  USAGE_CHART_WIDTH,
  usageChart,
  usageView,
} from '../src/model/usage';
import { parseUsageMessage } from '../src/usage/messages';
import type { UsageGroup, UsageResult } from '../src/protocol.generated';

// `pi/usage` answers computed by the server's code (scripts/record_usage_fixtures.py): Pi's two fixture
// sessions by day and by model, and the real Pi's forks and clones by session.
function fixture(name: string): UsageResult {
  const file = path.join(__dirname, '..', '..', 'test', 'fixtures', 'usage', name);
  return JSON.parse(fs.readFileSync(file, 'utf8')) as UsageResult;
}

function day(key: string, counts: Partial<UsageGroup> = {}): UsageGroup {
  return {
    key,
    sessions: 1,
    turns: 1,
    requests: 1,
    input: 10,
    output: 5,
    cacheRead: 85,
    cacheWrite: 0,
    cost: 0.01,
    unknownCost: 0,
    cacheShare: 0.85,
    ...counts,
  };
}

test('the headline gives the cost, the turns and the cache share of the whole answer', () => {
  const view = usageView(fixture('pi-fixtures.day.json'));
  assert.equal(view.headline, '$72.93 · 937 turns · 94.2% of the prompt from the cache');
  assert.match(view.detail, /^2 sessions · 97.92M cached · 5.99M new · 271k out · UTC$/);
  assert.equal(view.empty, null);
});

test('one bar per calendar day from the first to the last, empty days included', () => {
  const result = fixture('pi-fixtures.day.json');
  const chart = usageChart(result.days);
  assert.ok(chart);
  assert.equal(chart.firstDay, '2025-11-20');
  assert.equal(chart.lastDay, '2025-12-09');
  assert.equal(chart.bars.length, 20);
  const drawn = chart.bars.filter((bar) => bar.parts.length > 0);
  assert.deepEqual(drawn.map((bar) => bar.day), result.days.map((d) => d.key));
  assert.equal(chart.bars.find((bar) => bar.day === '2025-11-25')?.title, '2025-11-25: no requests');
  // The tallest day reaches the top; every bar's parts stack from the bottom without a gap.
  const heights = drawn.map((bar) => bar.parts.reduce((sum, part) => sum + part.height, 0));
  assert.ok(Math.abs(Math.max(...heights) - USAGE_CHART_HEIGHT) < 1e-9);
  for (const bar of drawn) {
    assert.deepEqual(bar.parts.map((part) => part.kind), ['cached', 'input', 'output']);
    const bottom = bar.parts[0];
    assert.ok(bottom && Math.abs(bottom.y + bottom.height - USAGE_CHART_HEIGHT) < 1e-9);
    assert.ok(bar.x >= 0 && bar.x + bar.width <= USAGE_CHART_WIDTH);
  }
  // The cache share line has one point per day with a prompt, at the share's height.
  const points = chart.shareLine.split(' ').map((p) => p.split(',').map(Number));
  assert.equal(points.length, 4);
  const first = result.days[0];
  assert.ok(first && points[0]);
  assert.ok(Math.abs((points[0][1] ?? 0) - USAGE_CHART_HEIGHT * (1 - (first.cacheShare ?? 0))) < 0.06);
  assert.match(drawn[1]?.title ?? '', /^2025-11-21: \$29\.47 · 423 turns · 91\.0% from the cache · /);
});

test('the chart keeps the last days when the range is long, and says so', () => {
  const days = [day('2024-01-01'), day('2025-01-01', { cacheRead: 500 })];
  const chart = usageChart(days);
  assert.ok(chart);
  assert.equal(chart.bars.length, MAX_DAYS);
  assert.equal(chart.lastDay, '2025-01-01');
  assert.equal(chart.firstDay, addDays('2025-01-01', -(MAX_DAYS - 1)));
  assert.equal(chart.note, `the last ${MAX_DAYS} of 367 days`);
  assert.equal(usageChart([day('unknown')]), null);
});

test('a few days are bars of a bar\'s width, centred in their day', () => {
  const chart = usageChart([day('2025-01-01')]);
  const bar = chart?.bars[0];
  assert.ok(bar);
  assert.equal(bar.width, 24);
  assert.equal(bar.x, (USAGE_CHART_WIDTH - 24) / 2);
});

test('rows are the groups, with the model names and their costs', () => {
  const view = usageView(fixture('pi-fixtures.model.json'));
  assert.equal(view.groupTitle, 'Model');
  assert.deepEqual(
    view.rows.map((row) => [row.label, row.turns, row.cost]),
    [
      ['anthropic/claude-opus-4-5', '484', '$42.60'],
      ['anthropic/claude-sonnet-4-5', '452', '$30.33'],
      ['openai/gpt-5.1-codex', '1', '$0'],
    ],
  );
  assert.equal(view.rows[2]?.cached, '–'); // a reply with no prompt tokens has no share
});

test('sessions made by a fork or clone are named, and the copies counted once are said', () => {
  const view = usageView(fixture('forks.session.json'));
  assert.equal(view.rows.length, 4);
  assert.ok(view.rows.every((row) => row.label.startsWith('workspace · 2026-12-06T02-52-')));
  assert.deepEqual(view.rows.map((row) => row.turns), ['2', '1', '1', '1']);
  assert.match(view.detail, / · 5 requests copied by forks and clones counted once$/);
  assert.match(view.headline, /^\$0\.007392 · 5 turns · /);
});

test('unknown costs are counted apart, and an empty answer says where nothing was found', () => {
  const result = fixture('pi-fixtures.day.json');
  const unknown = usageView({ ...result, totals: { ...result.totals, unknownCost: 3 } });
  assert.match(unknown.headline, /^\$72\.93 \+ 3 unknown · /);
  const empty = usageView({
    ...result,
    since: '2030-01-01',
    totals: { ...result.totals, requests: 0, turns: 0 },
    groups: [],
    days: [],
  });
  assert.equal(empty.headline, 'No paid requests');
  assert.equal(empty.chart, null);
  assert.equal(empty.empty, `No paid requests in ${result.roots[0]} · 2030-01-01 to ….`);
});

test('ranges end today in the user\'s calendar', () => {
  assert.equal(rangeSince('all', '2025-03-01'), null);
  assert.equal(rangeSince('7', '2025-03-01'), '2025-02-23');
  assert.equal(rangeSince('30', '2024-03-01'), '2024-02-01'); // 2024 has a 29 February
});

test('the webview may only ask for a grouping and a range from the lists', () => {
  assert.deepEqual(parseUsageMessage({ type: 'group', by: 'model' }), { type: 'group', by: 'model' });
  assert.deepEqual(parseUsageMessage({ type: 'range', range: '7' }), { type: 'range', range: '7' });
  assert.deepEqual(parseUsageMessage({ type: 'refresh' }), { type: 'refresh' });
  assert.equal(parseUsageMessage({ type: 'group', by: 'hour' }), undefined);
  assert.equal(parseUsageMessage({ type: 'range', range: 365 }), undefined);
  assert.equal(parseUsageMessage({ type: 'run', command: 'rm' }), undefined);
  assert.equal(parseUsageMessage('ready'), undefined);
});
