import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { diffCacheLabel, newSessionsText, saveCostText, sessionText } from '../src/model/saveCost';
import type { PromptSectionsChangedParams, SessionPromptUpdateInfo, TurnLedgerResult } from '../src/protocol.generated';

// Real server answers (scripts/record_cost_fixtures.py). A line added to the example workspace's AGENTS.md:
// pi/promptSectionsChanged; then pi/turnLedger of the example session (recorded elsewhere, Anthropic's API, no
// prices: Pi resends the prompt) and of the session real Pi wrote (a model with mid-conversation system
// messages, Sonnet's rates: Pi appends the patch).
const FIXTURES = path.join(__dirname, '..', '..', 'test', 'fixtures', 'cost');
const read = <T>(name: string): T => JSON.parse(fs.readFileSync(path.join(FIXTURES, name), 'utf8')) as T;
const change = read<PromptSectionsChangedParams>('inventory-fix.sectionsChanged.json');
const replay = read<TurnLedgerResult>('inventory-fix.turnLedger.json');
const patch = read<TurnLedgerResult>('real-pi.turnLedger.json');

test('new sessions: where the prompt first differs, in tokens from the start', () => {
  assert.equal(
    newSessionsText(change.cache!, 'pi'),
    'New sessions: the prompt first differs at token 676 of 712; the 36 tokens from there on miss the prompt cache in every new session.',
  );
  assert.match(newSessionsText(change.cache!, 'estimated'), /first differs at token 621 of 657;/);
  const same = { ...change.cache!, firstDifference: null };
  assert.equal(newSessionsText(same, 'pi'), 'New sessions: the rendered prompt is unchanged, nothing more to pay.');
});

test('a session on a model without mid-conversation system messages gets the whole prompt again', () => {
  const update = replay.promptUpdate as SessionPromptUpdateInfo;
  assert.equal(update.mode, 'replay');
  assert.equal(
    sessionText(update, replay.nextRequest, 'pi'),
    'This session: its model gets the whole prompt again. When Pi next loads the files the prompt (project_context, cwd changed) ' +
      'is sent at the start of the next request: the cache holds its first 49 tokens at most, the rest and the whole ' +
      'conversation are new input. Next request if its cache holds: 0 cached + 53,821 new, cost unknown (cost unknown without the change).',
  );
});

test('a session on a model with mid-conversation system messages gets the patch and keeps its cached prefix', () => {
  const update = patch.promptUpdate as SessionPromptUpdateInfo;
  assert.equal(update.mode, 'patch');
  assert.equal(
    sessionText(update, patch.nextRequest, 'pi'),
    'This session: its model takes the change as a patch. When Pi next loads the files it appends project_context, cwd ' +
      '(131 tokens) at the end of the next request and the cached prefix (1,320 tokens) is kept. ' +
      'Next request if its cache holds: 1,320 cached + 296 new, ≈ $0.0015 (≈ $0.0004 without the change).',
  );
  const current: SessionPromptUpdateInfo = { ...update, patch: {}, nextRequest: null };
  assert.equal(sessionText(current, patch.nextRequest, 'pi'), 'This session already has this prompt: Pi sends it no patch.');
});

test('the banner text has both sentences and the hover says which case and what a new session reads', () => {
  const text = saveCostText(change, patch.promptUpdate, patch.nextRequest, 'pi');
  assert.match(text.newSessions ?? '', /^New sessions: /);
  assert.match(text.session ?? '', /^This session: its model takes the change as a patch\./);
  assert.match(text.title, /Pi's patch for a session that had the old prompt: 109 tokens\./);
  assert.match(text.title, /its model takes system messages mid-conversation\); a new session on it reads 566 tokens of that prompt/);
  const anthropic = saveCostText(change, replay.promptUpdate, replay.nextRequest, 'pi');
  assert.match(anthropic.title, /a new session on it reads 0 tokens of that prompt from the cache/);
  assert.equal(saveCostText(change, null, null, 'pi').session, null);
});

test("the diff editor's title carries the patch size and where new sessions differ", () => {
  assert.equal(diffCacheLabel(change.cache, 'pi'), 'patch 109 tokens; new sessions differ from token 676');
  assert.equal(diffCacheLabel({ ...change.cache!, firstDifference: null }, 'pi'), 'patch 109 tokens');
  assert.equal(diffCacheLabel(null, 'pi'), null);
});
