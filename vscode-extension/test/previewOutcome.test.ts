import assert from 'node:assert/strict';
import { test } from 'node:test';
import { previewDocument, settledDocument } from '../src/model/outcome';
import type { CommandOutcome } from '../src/protocol.generated';

const preview: CommandOutcome = {
  written: false,
  previewOnly: true,
  summary: '## Goal\nShip it.',
  summarizer: 'offline (extractive)',
  tokensBefore: 12345,
  firstKeptEntryId: 'abc',
  sessionSize: 999,
};

test('the preview asks its question in the document and points at its own buttons, not a notification', () => {
  const doc = previewDocument('compaction', preview, 's.jsonl');
  assert.match(doc, /Append this compaction summary \(.*offline \(extractive\)\) to s\.jsonl\?/);
  assert.match(doc, /\*\*Append to Session\*\* \(✓\) at the top of this editor or in its title bar/);
  assert.doesNotMatch(doc, /notification/);
});

test('after the append the preview names the entry written and no longer says nothing was written', () => {
  const applied: CommandOutcome = { ...preview, written: true, previewOnly: false, entry: { id: 'e1f2' }, fromPreview: true };
  const doc = settledDocument('compaction', preview, 's.jsonl', { state: 'appended', applied });
  assert.match(doc, /^> \*\*Compaction summary — appended\.\*\* Written to s\.jsonl as entry `e1f2`; the summary below is the one previewed\./);
  assert.doesNotMatch(doc, /Nothing has been written/);
  assert.ok(doc.trimEnd().endsWith('## Goal\nShip it.'));
});

test('a summary made again at append time replaces the previewed text in the document', () => {
  const applied: CommandOutcome = { ...preview, written: true, summary: 'New text.', entry: { id: 'x' }, fromPreview: false };
  const doc = settledDocument('branch', preview, 's.jsonl', { state: 'appended', applied });
  assert.match(doc, /Branch summary — appended.*summarizer was asked again/);
  assert.ok(doc.trimEnd().endsWith('New text.'));
});

test('a discard or a failed append says that nothing was written', () => {
  const discarded = settledDocument('branch', preview, 's.jsonl', { state: 'discarded' });
  assert.match(discarded, /^> \*\*Branch summary — discarded\.\*\* Nothing was written to s\.jsonl\./);
  const failed = settledDocument('compaction', preview, 's.jsonl', { state: 'not-written', reason: 'The server did not append it.' });
  assert.match(failed, /not appended\.\*\* The server did not append it\. Nothing was written to s\.jsonl\./);
});
