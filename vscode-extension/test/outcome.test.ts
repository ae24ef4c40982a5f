import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ResponseError } from 'vscode-jsonrpc';
import { appliedText, confirmText, failedText, previewDocument, settledDocument } from '../src/model/outcome';
import type { CommandOutcome } from '../src/protocol.generated';

const outcome: CommandOutcome = {
  written: false,
  previewOnly: true,
  summary: '## Goal\nShip it.',
  summarizer: 'offline (extractive)',
  tokensBefore: 12345,
  firstKeptEntryId: 'abc',
  sessionSize: 999,
};

test('the preview says nothing is written yet and ends with the summary itself', () => {
  const doc = previewDocument('compaction', outcome, 's.jsonl');
  assert.match(doc, /Nothing has been written to s.jsonl yet/);
  assert.match(doc, /offline \(extractive\) · context before: 12,345 tokens · first kept entry: `abc`/);
  assert.ok(doc.trimEnd().endsWith('## Goal\nShip it.'));
});

test("the confirmation names the summarizer and the summary's size as the server counted it by Pi's rule", () => {
  // The server's count, not the text's length: 1234 is not ceil(16 / 4), so a client-side chars/4 would fail.
  const counted = { ...outcome, summaryTokens: { pi: 1234, estimate: 1100 } };
  assert.equal(
    confirmText('branch', counted, 's.jsonl'),
    'Append this branch summary (about 1,234 tokens, offline (extractive)) to s.jsonl?',
  );
});

test('without the server count the confirmation states no size rather than computing one', () => {
  assert.equal(
    confirmText('compaction', { ...outcome, summaryTokens: null }, 's.jsonl'),
    'Append this compaction summary (offline (extractive)) to s.jsonl?',
  );
  assert.equal(confirmText('branch', outcome, 's.jsonl'), 'Append this branch summary (offline (extractive)) to s.jsonl?');
});

test('the applied message names the new entry and says whether it is the previewed summary', () => {
  assert.equal(
    appliedText('compaction', { ...outcome, written: true, entry: { id: 'e9' }, fromPreview: true }, 's.jsonl'),
    'Compaction appended to s.jsonl as entry e9 (the previewed summary).',
  );
  assert.match(appliedText('branch', { ...outcome, written: true }, 's.jsonl'), /summarized again/);
});

const live: CommandOutcome = {
  written: false,
  previewOnly: true,
  summary: '',
  summarizer: 'Pi in chat 3 (fake/fake-1)',
  tokensBefore: 2048,
  firstKeptEntryId: 'k1',
  sessionSize: 4000,
  chatId: '3',
  plan: {
    firstKeptEntryId: 'k1',
    tokensBefore: 2048,
    keptTokens: 300,
    messagesToSummarize: 4,
    turnPrefixMessages: 2,
    isSplitTurn: true,
    keptEntries: 3,
    readFiles: ['a.ts'],
    modifiedFiles: [],
  },
};

test("a session a chat holds is previewed as Pi's plan, with no summary of pi-context's", () => {
  const doc = previewDocument('compaction', live, 's.jsonl');
  assert.match(doc, /Nothing has been written to s.jsonl yet\. It is open in chat 3, so Pi writes the compaction itself/);
  assert.match(doc, /Have Pi in chat 3 \(fake\/fake-1\) compact s.jsonl now\?/);
  assert.match(doc, /\*\*Summarized by Pi:\*\* 4 message\(s\) and the first 2 of the current turn's messages\./);
  assert.match(doc, /\*\*Kept as they are:\*\* 3 entries, about 300 tokens/);
  assert.match(doc, /read `a\.ts`; modified —/);
  assert.doesNotMatch(doc, /Append this/);
});

test("Pi's compaction, once applied, is shown as Pi's, with Pi's summary", () => {
  const applied = { ...live, written: true, previewOnly: false, summary: '## Goal\nPi wrote this.', entry: { id: 'c9' } };
  assert.equal(appliedText('compaction', applied, 's.jsonl'), 'Pi in chat 3 (fake/fake-1) compacted s.jsonl as entry c9.');
  const doc = settledDocument('compaction', live, 's.jsonl', { state: 'appended', applied });
  assert.match(doc, /Compaction — done by Pi\.\*\* Pi in chat 3 \(fake\/fake-1\) wrote it to s.jsonl as entry `c9`/);
  assert.ok(doc.trimEnd().endsWith('## Goal\nPi wrote this.'));
  const discarded = settledDocument('compaction', live, 's.jsonl', { state: 'discarded' });
  assert.match(discarded, /discarded\.\*\* Nothing was written/);
  assert.match(discarded, /Summarized by Pi/);
});

test('a summary the server refuses because Pi would fail says so, naming the entry', () => {
  // What the language client rejects with when pi.branchSummary answers an error (-32803).
  const refused = new ResponseError(
    -32803,
    'Pi would fail on this session: content is not iterable (entry a1): nothing written to /w/s.jsonl',
  );
  assert.equal(
    failedText('Summarizing the branch', refused),
    'Pi Context: summarizing the branch failed: Pi would fail on this session: content is not iterable (entry a1): ' +
      'nothing written to /w/s.jsonl',
  );
});
