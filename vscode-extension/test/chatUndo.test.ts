import assert from 'node:assert/strict';
import { test } from 'node:test';
import { turnChanges, undoDecision, type UndoRecord } from '../src/chat/undo';

const edit: UndoRecord = { tool: 'edit', path: '/w/notes.txt', before: 'line two\n', after: 'line 2\n' };

test('undo restores the content from before the call while the file is what the tool wrote', () => {
  assert.deepEqual(undoDecision(edit, 'line 2\n'), { kind: 'restore', content: 'line two\n' });
});

test("undo keeps the file's CRLF line endings and BOM, as Pi's tools do", () => {
  assert.deepEqual(undoDecision(edit, '\uFEFFline 2\r\n'), { kind: 'restore', content: '\uFEFFline two\r\n' });
});

test('undo is refused with one sentence when the file changed on disk since the tool wrote it', () => {
  assert.deepEqual(undoDecision(edit, 'line 2\nmore\n'), {
    kind: 'refuse',
    reason: "Cannot undo: notes.txt changed on disk since Pi's edit wrote it.",
  });
});

test('undo is refused when the file was deleted since', () => {
  assert.deepEqual(undoDecision(edit, null), { kind: 'refuse', reason: 'Cannot undo: notes.txt was deleted since Pi wrote it.' });
});

test('undo of a write that created the file removes it', () => {
  const created: UndoRecord = { tool: 'write', path: '/w/new.md', before: null, after: '# new\n' };
  assert.deepEqual(undoDecision(created, '# new\n'), { kind: 'delete' });
});

test('undo says why when nothing is known of the file before the call', () => {
  assert.deepEqual(undoDecision({ unknown: 'the file was not read before Pi wrote it', path: '/w/a.txt' }, 'x'), {
    kind: 'refuse',
    reason: 'Cannot undo this change to a.txt: the file was not read before Pi wrote it.',
  });
});

test("a turn's changes are its done edits and writes, each file once, with the first card that changed it", () => {
  const items = [
    { kind: 'user' as const, id: 'u1' },
    { kind: 'tool' as const, id: 't0', name: 'edit', status: 'done', path: '/w/old.txt' },
    { kind: 'user' as const, id: 'u2' },
    { kind: 'tool' as const, id: 't1', name: 'edit', status: 'done', path: '/w/a.txt' },
    { kind: 'tool' as const, id: 't2', name: 'read', status: 'done', path: '/w/b.txt' },
    { kind: 'tool' as const, id: 't3', name: 'write', status: 'done', path: '/w/c.txt' },
    { kind: 'tool' as const, id: 't4', name: 'edit', status: 'done', path: '/w/a.txt' },
    { kind: 'tool' as const, id: 't5', name: 'edit', status: 'error', path: '/w/d.txt' },
    { kind: 'other' as const, id: 'a1' },
    { kind: 'user' as const, id: 'u3' },
    { kind: 'tool' as const, id: 't6', name: 'edit', status: 'done', path: '/w/e.txt' },
  ];
  assert.deepEqual(turnChanges(items, 't4'), [
    { path: '/w/a.txt', firstItemId: 't1' },
    { path: '/w/c.txt', firstItemId: 't3' },
  ]);
  assert.deepEqual(turnChanges(items, 'missing'), []);
});
