import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { ContextStore, type ServerApi, sameFolder } from '../src/model/store';
import type { PromptSectionsChangedParams, SessionsResult, SystemPromptResult, TurnLedgerResult } from '../src/protocol.generated';
import { budget, change, changed, prompt, section } from './fixtures';

/** A stand-in for the server's side of the wire: answers from fixed data, records what was asked. */
class FakeServer implements ServerApi {
  asked: Array<[string, unknown]> = [];
  promptResult: SystemPromptResult = prompt([section('a', 0, 'old')]);
  sessionsResult: SessionsResult = {
    sessionsDir: '/s',
    sessions: [
      { path: '/s/new.jsonl', id: 'n', modified: 2, size: 10 },
      { path: '/s/old.jsonl', id: 'o', modified: 1, size: 10 },
    ],
  };
  missing = new Set<string>();

  protected answer<T>(method: string, params: unknown, value: T): Promise<T> {
    this.asked.push([method, params]);
    if (this.missing.has(method)) {
      return Promise.reject(Object.assign(new Error('Method Not Found'), { code: -32601 }));
    }
    return Promise.resolve(value);
  }
  systemPrompt(p: unknown) {
    return this.answer('pi/systemPrompt', p, this.promptResult);
  }
  contextBudget(p: unknown) {
    return this.answer('pi/contextBudget', p, budget());
  }
  projectedRequest(p: { session: string }) {
    return this.answer('pi/projectedRequest', p, {
      session: p.session,
      system: this.promptResult,
      messages: [],
      thinkingLevel: 'off',
      model: { contextWindow: 200_000, source: 'default' as const },
      total: { pi: 1, estimate: 1 },
    });
  }
  sessions(p: unknown) {
    return this.answer('pi/sessions', p, this.sessionsResult);
  }
  sessionTree(p: { session: string }) {
    return this.answer('pi/sessionTree', p, { session: p.session, roots: [], nodes: [] });
  }
}

function storeWith(server: ServerApi): ContextStore {
  const store = new ContextStore();
  store.setFolder('file:///repo', 'repo');
  store.attach(server);
  store.setServerState({ state: 'running' });
  return store;
}

test('the newest session becomes current and the budget is asked for it', async () => {
  const server = new FakeServer();
  const store = storeWith(server);
  await store.refreshAll();
  assert.equal(store.session, '/s/new.jsonl');
  assert.deepEqual(server.asked.filter(([m]) => m === 'pi/contextBudget').at(-1)?.[1], {
    workspaceFolder: 'file:///repo',
    session: '/s/new.jsonl',
  });
});

test('a session the user picked is kept when the list is refreshed', async () => {
  const store = storeWith(new FakeServer());
  await store.selectSession('/s/old.jsonl');
  await store.refreshSessions();
  assert.equal(store.session, '/s/old.jsonl');
});

test('without a session the budget is asked for the prompt alone and no request is projected', async () => {
  const server = new FakeServer();
  const store = storeWith(server);
  await store.selectSession(null);
  assert.deepEqual(server.asked.find(([m]) => m === 'pi/contextBudget')?.[1], { workspaceFolder: 'file:///repo' });
  assert.ok(!server.asked.some(([m]) => m === 'pi/projectedRequest'));
  assert.equal(store.view().requestStatus.state, 'empty');
});

test('an older answer never replaces a newer one', async () => {
  const store = storeWith(new FakeServer());
  let releaseSlow: (v: SystemPromptResult) => void = () => {};
  const slow = new Promise<SystemPromptResult>((r) => {
    releaseSlow = r;
  });
  const answers = [slow, Promise.resolve(prompt([section('new', 0)]))];
  class OutOfOrder extends FakeServer {
    override systemPrompt(): Promise<SystemPromptResult> {
      return answers.shift() as Promise<SystemPromptResult>;
    }
  }
  store.attach(new OutOfOrder());
  const first = store.refreshPrompt();
  await store.refreshPrompt();
  releaseSlow(prompt([section('stale', 0)]));
  await first;
  assert.equal(store.prompt?.sections[0]?.name, 'new');
});

test('a method the server does not offer is shown as unavailable, not as a failure', async () => {
  const server = new FakeServer();
  server.missing.add('pi/contextBudget');
  const store = storeWith(server);
  await store.refreshAll();
  assert.equal(store.view().budgetStatus.state, 'unavailable');
  assert.match(store.view().budgetStatus.message ?? '', /does not offer pi\/contextBudget/);
  assert.equal(store.view().sectionsStatus.state, 'ready');
});

test('a sections-changed notification highlights the section and keeps the old text for the diff', async () => {
  const server = new FakeServer();
  const store = storeWith(server);
  await store.refreshPrompt();
  server.promptResult = prompt([section('a', 0, 'new')]);
  const diff = await store.onSectionsChanged(changed([change('a', 'changed', 4)], { a: 'new' }));
  assert.deepEqual([diff.entries[0]?.before, diff.entries[0]?.after], ['old', 'new']);
  const view = store.view();
  assert.equal(view.sections[0]?.change?.deltaLabel, '+4');
  assert.equal(view.lastChange?.diffId, diff.id);
  assert.equal(store.diffById(diff.id), diff);
});

test('clearing the highlights keeps the diffs for the diff command', async () => {
  const store = storeWith(new FakeServer());
  await store.refreshPrompt();
  const diff = await store.onSectionsChanged(changed([change('a', 'changed', 1)], { a: 'x' }));
  store.clearHighlights();
  assert.equal(store.view().sections[0]?.change, null);
  assert.ok(store.diffById(diff.id));
});

test('a notification for another workspace folder is ignored', async () => {
  const store = storeWith(new FakeServer());
  await store.onSectionsChanged(changed([change('a', 'changed', 1)], { a: 'x' }, { workspaceFolder: 'file:///other' }));
  assert.equal(store.lastChange, null);
});

test('folder URIs and paths compare after decoding', () => {
  assert.equal(sameFolder('file:///a%20b/', '/a b'), true);
  assert.equal(sameFolder('file:///a', 'file:///ab'), false);
});

test('the diff of a change can be opened as soon as the rows are highlighted', async () => {
  const server = new FakeServer();
  const store = storeWith(server);
  await store.refreshPrompt();
  let release: (v: SystemPromptResult) => void = () => {};
  class SlowPrompt extends FakeServer {
    override systemPrompt(): Promise<SystemPromptResult> {
      return new Promise((r) => {
        release = r;
      });
    }
  }
  store.attach(new SlowPrompt());
  const pending = store.onSectionsChanged(changed([change('a', 'changed', 4)], { a: 'new' }));
  assert.equal(store.view().sections[0]?.change?.deltaLabel, '+4');
  assert.equal(store.diffs[0]?.entries[0]?.after, 'new');
  release(prompt([section('a', 0, 'new')]));
  const diff = await pending;
  assert.equal(store.diffs[0], diff);
  assert.equal(diff.renderedAfter, 'new');
});

test('a change of the current session refreshes its views, a change of another only the list', async () => {
  const server = new FakeServer();
  const store = storeWith(server);
  await store.refreshAll();
  server.asked = [];
  await store.onSessionChanged({ session: '/s/old.jsonl', reason: 'disk' });
  assert.deepEqual(
    server.asked.map(([m]) => m),
    ['pi/sessions'],
  );
  server.asked = [];
  await store.onSessionChanged({ session: '/s/new.jsonl', reason: 'compaction', entryId: 'e1', size: 10 });
  assert.deepEqual(server.asked.map(([m]) => m).sort(), ['pi/contextBudget', 'pi/projectedRequest', 'pi/sessionTree', 'pi/sessions']);
});

test("the projected request carries the turn ledger's next-request price", async () => {
  // `pi-context session examples/sessions/inventory-fix.jsonl --costs --json`: a real server answer.
  const file = path.join(__dirname, '..', '..', 'test', 'fixtures', 'cost', 'inventory-fix.turnLedger.json');
  const ledger = JSON.parse(fs.readFileSync(file, 'utf8')) as TurnLedgerResult;
  class Priced extends FakeServer {
    turnLedger(p: { session: string }) {
      return this.answer('pi/turnLedger', p, ledger);
    }
  }
  const store = storeWith(new Priced());
  await store.refreshAll();
  const price = store.view().requestPrice;
  assert.equal(price?.line, 'Next request: 0 cached + 54k new · cache lifetime unknown · cost unknown');
  assert.match(price?.title ?? '', /Byte-identical prefix with the previous request/);
  const bare = storeWith(new FakeServer());
  await bare.refreshAll();
  assert.equal(bare.view().requestPrice ?? null, null);
});

test('after a save the change banner says what it costs new sessions and the selected session', async () => {
  // Real server answers (scripts/record_cost_fixtures.py): an AGENTS.md line added, and the ledger of the session
  // real Pi wrote, whose model takes the patch mid-conversation.
  const fixtures = path.join(__dirname, '..', '..', 'test', 'fixtures', 'cost');
  const ledger = JSON.parse(fs.readFileSync(path.join(fixtures, 'real-pi.turnLedger.json'), 'utf8')) as TurnLedgerResult;
  const saved = JSON.parse(fs.readFileSync(path.join(fixtures, 'inventory-fix.sectionsChanged.json'), 'utf8')) as PromptSectionsChangedParams;
  class Priced extends FakeServer {
    turnLedger(p: { session: string }) {
      return this.answer('pi/turnLedger', p, ledger);
    }
  }
  const server = new Priced();
  const store = storeWith(server);
  store.setChoice('pi');
  await store.refreshAll();
  server.asked = [];
  await store.onSectionsChanged({ ...saved, workspaceFolder: 'file:///repo' });
  assert.ok(server.asked.some(([m]) => m === 'pi/turnLedger'), 'the ledger is asked again: its promptUpdate changed');
  const banner = store.view().lastChange;
  assert.match(banner?.newSessionsCost ?? '', /^New sessions: the prompt first differs at token 676 of 712;/);
  assert.match(banner?.sessionCost ?? '', /^This session: its model takes the change as a patch\./);
  assert.match(banner?.costTitle ?? '', /Pi's patch for a session that had the old prompt: 109 tokens\./);
  assert.equal(store.diffs[0]?.cacheLabel, 'patch 109 tokens; new sessions differ from token 676');
});
