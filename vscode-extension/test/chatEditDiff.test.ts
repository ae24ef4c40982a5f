import assert from 'node:assert/strict';
import { test } from 'node:test';
import { editSides, editSidesNote, parseEditArgs } from '../src/chat/editDiff';

test("the edit tool's arguments are read in every form Pi 1.6.0 accepts", () => {
  const edits = [{ oldText: 'a', newText: 'b' }];
  assert.deepEqual(parseEditArgs(JSON.stringify({ path: 'f.ts', edits })), { path: 'f.ts', edits });
  assert.deepEqual(parseEditArgs(JSON.stringify({ path: 'f.ts', edits: JSON.stringify(edits) })), { path: 'f.ts', edits });
  assert.deepEqual(parseEditArgs(JSON.stringify({ path: 'f.ts', edits: edits[0] })), { path: 'f.ts', edits });
  assert.deepEqual(parseEditArgs(JSON.stringify({ path: 'f.ts', oldText: 'a', newText: 'b' })), { path: 'f.ts', edits });
  assert.equal(parseEditArgs('{"path": "f.ts", "edits": [{"oldText": 1}]}'), null);
  assert.equal(parseEditArgs('{"path": "f.t'), null); // still streaming
});

test('the before side is the file now with each new text put back to its old text', () => {
  const now = 'const a = 2;\nconst b = "two";\nexport { a, b };\n';
  const call = { path: 'f.ts', edits: [{ oldText: '= 1', newText: '= 2' }, { oldText: '"one"', newText: '"two"' }] };
  const sides = editSides(now, call);
  assert.deepEqual(sides, { source: 'file', before: 'const a = 1;\nconst b = "one";\nexport { a, b };\n', after: now });
  assert.equal(editSidesNote(sides), 'Diff: the file as it is now, against the same file with this edit reversed.');
});

test('CRLF files and a BOM are compared as Pi matched them (LF, no BOM)', () => {
  const sides = editSides('\uFEFFONE\r\ntwo\r\n', { path: 'f', edits: [{ oldText: 'one', newText: 'ONE' }] });
  assert.deepEqual(sides, { source: 'file', before: 'one\ntwo\n', after: 'ONE\ntwo\n' });
});

test('when the file cannot give the before side honestly, the snippets are shown and the card says why', () => {
  const call = { path: 'f', edits: [{ oldText: 'x = 1', newText: 'x = 2' }, { oldText: 'y', newText: 'z' }] };
  const cases: [string | null, string][] = [
    [null, 'the file cannot be read now'],
    ['x = 3; z', 'no longer in the file'],
    ['x = 2; z z', 'occurs more than once'],
  ];
  for (const [file, reason] of cases) {
    const sides = editSides(file, call);
    assert.equal(sides.source, 'snippets');
    assert.equal(sides.before, 'x = 1\n⋯\ny');
    assert.equal(sides.after, 'x = 2\n⋯\nz');
    assert.match(editSidesNote(sides), new RegExp(`^Diff of the edit's old and new text only: .*${reason}`));
  }
  const removed = editSides('abc', { path: 'f', edits: [{ oldText: 'gone', newText: '' }] });
  assert.equal(removed.source === 'snippets' && removed.reason, 'an edit removed its text, so where it was cannot be found in the file');
});
