import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { diffCacheLabel, liveSessionText, newSessionsText, saveCostText, sessionText } from '../src/model/saveCost';
import type { LiveChatInfo, PromptSectionsChangedParams, SessionPromptUpdateInfo, TurnLedgerResult } from '../src/protocol.generated';

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
      'Next request if its cache holds: 1,320 cached + 296 new, ≈ $0.001506 (≈ $0.0004222 without the change).',
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

test('a session open in a chat: one price for the next request (the prompt Pi holds) and the reload apart', () => {
  // The issue: the banner priced the next request "with the change" ($0.0027) beside the Next Request line ($0.0009),
  // and said Pi records the changed sections, which a running Pi in RPC mode does not do.
  const live: LiveChatInfo = {
    chatId: '1',
    heldSince: 1,
    drift: {
      sections: ['project_context', 'cwd'],
      files: ['AGENTS.md'],
      settings: [],
      trust: false,
      action: 'reload',
      actionLabel: 'Reload Pi',
      message: 'AGENTS.md changed since this Pi read its files.',
    },
    reload: patch.promptUpdate,
  };
  assert.equal(
    liveSessionText(live, patch.nextRequest, 'pi'),
    'This session is open in the chat, whose Pi read its files before this change: its next request is sent with the ' +
      'prompt Pi holds (1,320 cached + 7 new, ≈ $0.0004222). Reload Pi to take the change up: Pi then records ' +
      'project_context, cwd and appends it (131 tokens) at the end of its next request, keeping the cached prefix; ' +
      'its next request then costs ≈ $0.001506 if the cache holds.',
  );
  const text = saveCostText(change, { ...patch.promptUpdate!, patch: {} }, patch.nextRequest, 'pi', live);
  assert.equal(text.session, liveSessionText(live, patch.nextRequest, 'pi'));
  assert.deepEqual(text.liveAction, { label: 'Reload Pi', action: 'reload' });
  assert.doesNotMatch(text.title, /When Pi next loads the files/);
  const held = saveCostText(change, patch.promptUpdate, patch.nextRequest, 'pi', { ...live, drift: null, reload: null });
  assert.match(held.session ?? '', /^This session is open in the chat, whose Pi holds this prompt: its next request sends it/);
  assert.equal(held.liveAction, null);
});

test("the diff editor's title carries the patch size and where new sessions differ", () => {
  assert.equal(diffCacheLabel(change.cache, 'pi'), 'patch 109 tokens; new sessions differ from token 676');
  assert.equal(diffCacheLabel({ ...change.cache!, firstDifference: null }, 'pi'), 'patch 109 tokens');
  assert.equal(diffCacheLabel(null, 'pi'), null);
});
