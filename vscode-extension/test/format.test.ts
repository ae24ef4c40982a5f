import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatDelta, formatExact, formatPercent, formatTokens } from '../src/model/format';

test('token counts below a thousand are written in full', () => {
  assert.equal(formatTokens(812), '812');
});

test('token counts below ten thousand keep one decimal of k', () => {
  assert.equal(formatTokens(1234), '1.2k');
  assert.equal(formatTokens(2000), '2k');
});

test('token counts below a million are whole k', () => {
  assert.equal(formatTokens(200_000), '200k');
  assert.equal(formatTokens(128_000), '128k');
});

test('a count that rounds to 1000k is written in M', () => {
  assert.equal(formatTokens(999_999), '1M');
  assert.equal(formatTokens(1_048_576), '1.05M');
});

test('deltas carry their sign and zero is ±0', () => {
  assert.equal(formatDelta(340), '+340');
  assert.equal(formatDelta(-1200), '-1.2k');
  assert.equal(formatDelta(0), '±0');
});

test('exact counts group thousands', () => {
  assert.equal(formatExact(1234567), '1,234,567');
  assert.equal(formatExact(-1000), '-1,000');
});

test('a non-zero share never reads 0% and a partial one never 100%', () => {
  assert.equal(formatPercent(1, 1000), '<1%');
  assert.equal(formatPercent(995, 1000), '99%');
  assert.equal(formatPercent(124_000, 200_000), '62%');
  assert.equal(formatPercent(5, 0), '0%');
});
