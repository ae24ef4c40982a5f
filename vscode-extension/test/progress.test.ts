import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ProgressTracker } from '../src/model/progress';

test('absolute server percentages become increments that sum to the last percentage', () => {
  const t = new ProgressTracker();
  const steps = [
    t.step({ kind: 'begin', title: 'Compacting', percentage: 0 }),
    t.step({ kind: 'report', percentage: 30, message: 'summarizing' }),
    t.step({ kind: 'report', percentage: 80 }),
  ];
  assert.deepEqual(steps, [undefined, { message: 'summarizing', increment: 30 }, { increment: 50 }]);
});

test('a percentage that goes back is not reported as a negative increment', () => {
  const t = new ProgressTracker();
  t.step({ kind: 'report', percentage: 50 });
  assert.deepEqual(t.step({ kind: 'report', percentage: 40, message: 'retry' }), { message: 'retry' });
});

test('the end of the work reports nothing', () => {
  assert.equal(new ProgressTracker().step({ kind: 'end', message: 'done' }), undefined);
});
