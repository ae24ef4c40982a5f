import assert from 'node:assert/strict';
import { test } from 'node:test';
import { promptDiff, relativeLabel, sectionRows } from '../src/model/sections';
import { change, changed, prompt, section, tokens } from './fixtures';

test('rows follow the prompt position', () => {
  const rows = sectionRows(prompt([section('b', 1), section('a', 0)]), null, 'pi');
  assert.deepEqual(
    rows.map((r) => r.name),
    ['a', 'b'],
  );
});

test('a changed section is highlighted with its signed delta in the chosen estimate', () => {
  const p = prompt([section('/repo/AGENTS.md', 0)]);
  const c = changed([{ ...change('/repo/AGENTS.md', 'changed', 0), delta: tokens(340, 300) }], { '/repo/AGENTS.md': 'x' });
  assert.deepEqual(sectionRows(p, c, 'pi')[0]?.change, { status: 'changed', delta: 340, deltaLabel: '+340' });
  assert.equal(sectionRows(p, c, 'estimated')[0]?.change?.deltaLabel, '+300');
});

test('an untouched section has no highlight', () => {
  const p = prompt([section('a', 0), section('b', 1)]);
  const rows = sectionRows(p, changed([change('b', 'changed', 5)], { b: 'x' }), 'pi');
  assert.equal(rows[0]?.change, null);
});

test('a removed section stays as a ghost row where it was', () => {
  const before = prompt([section('a', 0), section('gone', 1), section('c', 2)]);
  const after = prompt([section('a', 0), section('c', 1)]);
  const rows = sectionRows(after, changed([change('gone', 'removed', -7)], { gone: null }), 'pi', before);
  assert.deepEqual(
    rows.map((r) => [r.name, r.removed]),
    [
      ['a', false],
      ['gone', true],
      ['c', false],
    ],
  );
});

test('a removed section the client never saw goes last', () => {
  const rows = sectionRows(prompt([section('a', 0)]), changed([change('x', 'removed', -3)], { x: null }), 'pi');
  assert.equal(rows.at(-1)?.name, 'x');
  assert.equal(rows.at(-1)?.removed, true);
});

test('source paths inside the cwd are shown relative to it', () => {
  assert.equal(relativeLabel('/repo/pkg/AGENTS.md', '/repo'), 'pkg/AGENTS.md');
  assert.equal(relativeLabel('/home/u/.pi/agent/AGENTS.md', '/repo'), '/home/u/.pi/agent/AGENTS.md');
  assert.equal(relativeLabel('/repository/AGENTS.md', '/repo'), '/repository/AGENTS.md');
});

test('the diff takes the new text from the patch and the old from the prompt held before', () => {
  const before = prompt([section('a', 0, 'old a')]);
  const after = prompt([section('a', 0, 'new a')]);
  const diff = promptDiff(1, changed([change('a', 'changed', 1)], { a: 'patched a' }), before, after, 'pi');
  assert.deepEqual(
    diff.entries.map((e) => [e.before, e.after]),
    [['old a', 'patched a']],
  );
});

test('an added section diffs from empty and a removed one to empty', () => {
  const before = prompt([section('gone', 0, 'bye')]);
  const diff = promptDiff(
    2,
    changed([change('new', 'added', 2), change('gone', 'removed', -1)], { new: 'hi', gone: null }),
    before,
    null,
    'pi',
  );
  assert.deepEqual(
    diff.entries.map((e) => [e.name, e.before, e.after]),
    [
      ['new', '', 'hi'],
      ['gone', 'bye', ''],
    ],
  );
});

test('the total delta is after minus before', () => {
  const diff = promptDiff(3, changed([change('a', 'changed', 5)], { a: 'x' }, { totalBefore: tokens(100), totalAfter: tokens(95) }), null, null, 'pi');
  assert.equal(diff.totalDeltaLabel, '-5');
});
