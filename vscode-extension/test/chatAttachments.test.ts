import assert from 'node:assert/strict';
import { test } from 'node:test';
import { addsLine, Attachments, chipLabel, splitFileBlocks } from '../src/chat/attachments';
import type { ChatPreflightResult } from '../src/protocol.generated';

test('a chip reads the file name, with the lines of a selection', () => {
  assert.equal(chipLabel('/w/src/a.py', null, null), 'a.py');
  assert.equal(chipLabel('/w/src/a.py', 3, 9), 'a.py:3-9');
  assert.equal(chipLabel('/w/src/a.py', 3, 3), 'a.py:3');
});

test('the same file or lines attached twice is one chip, and removing it leaves the others', () => {
  const a = new Attachments();
  assert.equal(a.add('/w/a.py'), true);
  assert.equal(a.add('/w/a.py'), false);
  assert.equal(a.add('/w/a.py', { start: 2, end: 4, text: 'x' }), true);
  assert.deepEqual(a.wire(), [{ path: '/w/a.py' }, { path: '/w/a.py', startLine: 2, endLine: 4, text: 'x' }]);
  assert.equal(a.remove(a.list[0]?.id ?? ''), true);
  assert.deepEqual(a.list.map((c) => c.label), ['a.py:2-4']);
});

test("the preflight's counts go to their chips, a refusal too", () => {
  const a = new Attachments();
  a.add('/w/a.py');
  a.add('/w/b.bin');
  a.counted([
    { path: '/w/a.py', tokens: { pi: 10, estimate: 12 } },
    { path: '/w/b.bin', refused: 'b.bin is not attached: it is a binary file (it holds NUL bytes), not text.' },
  ]);
  assert.equal(a.list[0]?.tokens, 12);
  assert.equal(a.list[1]?.refused?.startsWith('b.bin is not attached'), true);
});

test('the line under the input says what the message adds, from its attachments, and the price line', () => {
  const result = {
    textTokens: { pi: 130, estimate: 120 },
    contextTokens: 1000,
    afterPrompt: 1130,
    threshold: 100_000,
    window: 128_000,
    crossesThreshold: false,
    attachments: [{ path: '/w/a.py', tokens: { pi: 100, estimate: 95 } }],
  } as ChatPreflightResult;
  const line = addsLine(result, { line: 'Next request: x', summary: '1k cached + 120 new · cache alive for 4 min · ≈ $0.0012', title: 't', expired: false });
  assert.equal(line.line, 'Adds 120 tokens (95 from 1 attachment)');
  assert.ok(line.title.endsWith('\nt'), "the hover ends with the next request's");
  assert.equal(addsLine({ ...result, attachments: [] }, null).line, 'Adds 120 tokens');
});

test('a sent message shows its file blocks as chips and the typed text after them', () => {
  const sent = '<file name="/w/a.py">\nx = 1\n\n</file>\n<file name="/w/a.py" lines="2-3">\ny\nz\n</file>\nexplain';
  assert.deepEqual(splitFileBlocks(sent), {
    files: [
      { name: '/w/a.py', label: 'a.py', selection: false, startLine: null, endLine: null, content: 'x = 1\n' },
      { name: '/w/a.py', label: 'a.py:2-3', selection: true, startLine: 2, endLine: 3, content: 'y\nz' },
    ],
    text: 'explain',
  });
  assert.deepEqual(splitFileBlocks('<file name="/w/a.py">\nno end'), { files: [], text: '<file name="/w/a.py">\nno end' });
  assert.deepEqual(splitFileBlocks('plain'), { files: [], text: 'plain' });
});
