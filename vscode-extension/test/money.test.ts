import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { formatUsd } from '../src/model/money';

const ROOT = path.join(__dirname, '..', '..', '..');
const TABLE = JSON.parse(fs.readFileSync(path.join(ROOT, 'tests', 'fixtures', 'cost', 'format_usd.json'), 'utf8')) as {
  cases: { value: number | null; text: string }[];
};

test('formatUsd gives the shared table text for every case (the CLI is tested against the same table)', () => {
  assert.ok(TABLE.cases.length > 10);
  for (const c of TABLE.cases) {
    assert.equal(formatUsd(c.value), c.text, `value ${String(c.value)}`);
  }
});

test('ties round up, as the Python side does on purpose', () => {
  assert.equal(formatUsd(0.015625), '$0.01563');
  assert.equal(formatUsd(1.125), '$1.13');
});
