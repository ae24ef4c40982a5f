import assert from 'node:assert/strict';
import { test } from 'node:test';
import { budgetView, statusBarView } from '../src/model/budget';
import { budget, category, estimator } from './fixtures';

test('segments are laid out system, messages, free, then reserve, whatever the server order', () => {
  const view = budgetView(
    budget({}, [
      category('reserve', 'reserve', 16_384),
      category('free', 'free', 153_616),
      category('messages.user', 'messages', 20_000),
      category('system.base', 'system', 10_000),
    ]),
    'pi',
  );
  assert.deepEqual(
    view.segments.map((s) => s.group),
    ['system', 'messages', 'free', 'reserve'],
  );
});

test('segments tile the bar: each starts where the previous one ends and all widths sum to 100', () => {
  const view = budgetView(budget(), 'pi');
  let at = 0;
  for (const s of view.segments) {
    assert.ok(Math.abs(s.start - at) < 1e-9);
    at += s.width;
  }
  assert.ok(Math.abs(at - 100) < 1e-9);
  assert.equal(view.reconciles, true);
});

test('the compaction threshold marker sits at the free/reserve boundary', () => {
  const view = budgetView(budget(), 'pi');
  const reserve = view.segments.find((s) => s.group === 'reserve');
  assert.ok(reserve);
  assert.ok(Math.abs(view.thresholdAt - reserve.start) < 1e-9);
});

test('categories that do not add up to the window are reported, not hidden', () => {
  const view = budgetView(budget({}, [category('system.base', 'system', 10_000), category('free', 'free', 100_000)]), 'pi');
  assert.equal(view.reconciles, false);
  assert.match(view.equation, /≠ 200k window/);
  assert.match(view.textEquivalent, /add up to 110,000, not to the 200,000-token window/);
});

test('an overflow beyond a full window extends the bar and the window mark moves left', () => {
  const over = budget({}, [category('messages.user', 'messages', 183_616), category('reserve', 'reserve', 16_384)]);
  over.pi = { ...over.pi, overflow: 20_000 };
  const view = budgetView(over, 'pi');
  assert.equal(view.segments.at(-1)?.group, 'overflow');
  assert.ok(Math.abs(view.windowAt - (200_000 / 220_000) * 100) < 1e-9);
  assert.equal(view.reconciles, true);
});

test('the switch picks the breakdown of the chosen estimator', () => {
  const b = budget();
  b.estimated = { ...b.estimated, estimator: { ...estimator, label: 'other' }, categories: [category('free', 'free', 200_000)] };
  assert.equal(budgetView(b, 'estimated').segments.length, 1);
  assert.equal(budgetView(b, 'pi').segments.length, 4);
});

test('the text equivalent names the model, Pi context tokens, the threshold and every group', () => {
  const text = budgetView(budget(), 'pi').textEquivalent;
  assert.match(text, /anthropic\/claude-sonnet-4 · 200k window/);
  assert.match(text, /Pi counts 30,000 context tokens/);
  assert.match(text, /compacts above 183,616/);
  for (const group of ['System prompt', 'Messages', 'Free', 'Reserved for the reply']) {
    assert.match(text, new RegExp(group));
  }
});

test('the status bar reads percent of window and is plain below the threshold', () => {
  const view = statusBarView(budget({ contextTokens: 124_000 }));
  assert.equal(view.text, '$(dashboard) 62% of 200k');
  assert.equal(view.level, 'normal');
});

test('the status bar warns past the compaction threshold', () => {
  assert.equal(statusBarView(budget({ contextTokens: 183_617 })).level, 'warning');
  assert.equal(statusBarView(budget({ contextTokens: 183_616 })).level, 'normal');
});

test('the status bar turns to error past the window', () => {
  assert.equal(statusBarView(budget({ contextTokens: 200_001 })).level, 'error');
});

test('provider usage above the estimates shows as its own group between messages and free', () => {
  const view = budgetView(
    budget({}, [
      category('free', 'free', 150_000),
      category('other.unattributed', 'other', 3_616),
      category('messages.user', 'messages', 20_000),
      category('system.base', 'system', 10_000),
      category('reserve', 'reserve', 16_384),
    ]),
    'pi',
  );
  assert.deepEqual(
    view.legend.map((g) => g.group),
    ['system', 'messages', 'other', 'free', 'reserve'],
  );
});

test("the server's notes and the estimator's caveat are carried as notes, problems apart", () => {
  const b = budget({ systemOrigin: 'session', problems: ['models.json: bad'] });
  b.pi = { ...b.pi, notes: ['Counted from usage.'], estimator: { ...b.pi.estimator, note: 'quicktok missing: weighted' } };
  const view = budgetView(b, 'pi');
  assert.deepEqual(view.notes, ['Counted from usage.', 'quicktok missing: weighted']);
  assert.deepEqual(view.problems, ['models.json: bad']);
  assert.match(view.textEquivalent, /Counted from usage\./);
});
