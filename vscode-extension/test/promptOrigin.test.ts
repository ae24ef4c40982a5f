import assert from 'node:assert/strict';
import { test } from 'node:test';
import { estimatorLabels, PI_ESTIMATE_LABEL, promptOriginNote } from '../src/model/promptOrigin';
import { ContextStore, type ServerApi } from '../src/model/store';
import type { Breakdown, ContextBudgetResult, EstimatorInfo } from '../src/protocol.generated';
import { budget, category, estimator, prompt, section, tokens } from './fixtures';

const claude: EstimatorInfo = { name: 'weighted', family: 'claude', exact: false, label: 'weighted estimate (claude family)' };

/** A budget whose two breakdowns count the system prompt as `pi` and `estimate` tokens. */
function sessionBudget(pi: number, estimate: number, over: Partial<ContextBudgetResult> = {}): ContextBudgetResult {
  const base = budget();
  const withSystem = (b: Breakdown, n: number, est: EstimatorInfo): Breakdown => ({
    ...b,
    estimator: est,
    categories: [category('system.preamble', 'system', n - 1), category('system.tools', 'system', 1), ...b.categories.slice(1)],
  });
  return {
    ...base,
    systemOrigin: 'session',
    pi: withSystem(base.pi, pi, { ...estimator, name: 'pi', label: 'pi' }),
    estimated: withSystem(base.estimated, estimate, claude),
    ...over,
  };
}

test("'Counts:' names the budget's estimator, and the sections say theirs when it differs", () => {
  const labels = estimatorLabels(sessionBudget(63, 70), prompt([section('a', 0)]), 'estimated');
  assert.equal(labels.counts, 'weighted estimate (claude family)');
  assert.equal(labels.sections, 'weighted estimate (gpt family)');
});

test('the same estimator for both: one label; before a budget: the prompt’s; Pi’s count: chars/4', () => {
  const same = estimatorLabels(budget(), prompt([section('a', 0)]), 'estimated');
  assert.deepEqual(same, { counts: 'weighted estimate (gpt family)', sections: null });
  assert.deepEqual(estimatorLabels(null, prompt([section('a', 0)]), 'estimated'), {
    counts: 'weighted estimate (gpt family)',
    sections: null,
  });
  assert.deepEqual(estimatorLabels(sessionBudget(63, 70), prompt([section('a', 0)]), 'pi'), {
    counts: PI_ESTIMATE_LABEL,
    sections: null,
  });
  assert.deepEqual(estimatorLabels(null, null, 'estimated'), { counts: null, sections: null });
});

test('a stored prompt of another size than the workspace’s is explained with both numbers', () => {
  const p = prompt([section('preamble', 0, 'x'.repeat(3000), tokens(900, 927))], { total: tokens(900, 927) });
  const note = promptOriginNote(sessionBudget(63, 70), p, 'estimated');
  assert.ok(note);
  assert.match(note, /\(70 tokens\) is the one stored in this session/);
  assert.match(note, /sections below \(927 tokens\)/);
  assert.match(note, /new session starts with it/);
  assert.match(note, /a Pi that opens this session again \(resumed, or reloaded in the chat\) records the sections that changed/);
  const piNote = promptOriginNote(sessionBudget(63, 70), p, 'pi');
  assert.match(piNote ?? '', /\(63 tokens\).*\(900 tokens\)/);
});

test("the server's diff decides: no note when Pi's patch is empty, whatever the counts say", () => {
  // The issue: the budget's system group holds the tool declarations too, so the counts differed and a note said
  // the stored and workspace prompts differ where `pi-context session --costs` said Pi sends no patch.
  const p = prompt([section('preamble', 0, 'x', tokens(900, 927))]);
  const same = { promptUpdate: { patch: {} } as never, liveChat: null };
  assert.equal(promptOriginNote(sessionBudget(1200, 1250), p, 'estimated', same), null);
  const changed = { promptUpdate: { patch: { project_context: 'new' } } as never, liveChat: null };
  assert.match(promptOriginNote(sessionBudget(63, 70), p, 'estimated', changed) ?? '', /stored in this session/);
});

test("without the server's diff, the tool declarations are left out of the comparison", () => {
  const p = prompt([section('preamble', 0, 'x', tokens(63, 70))]);
  const withTools = sessionBudget(63, 70);
  withTools.pi.categories.push(category('system.tool_definitions', 'system', 500));
  assert.equal(promptOriginNote(withTools, p, 'pi'), null);
});

test("a session a live chat holds: the note says what its Pi holds and the server's drift sentence", () => {
  const p = prompt([section('preamble', 0, 'x', tokens(900, 927))]);
  const drift = {
    sections: ['project_context'],
    files: ['AGENTS.md'],
    settings: [],
    trust: false,
    action: 'reload' as const,
    actionLabel: 'Reload Pi',
    message: 'AGENTS.md changed since this Pi read its files, and Pi keeps what it read: Reload Pi to take the change up.',
  };
  const live = { promptUpdate: { patch: {} } as never, liveChat: { chatId: '1', heldSince: 1, drift } };
  const note = promptOriginNote(sessionBudget(63, 70), p, 'estimated', live) ?? '';
  assert.match(note, /^The budget's system prompt \(70 tokens\) is the one the chat's Pi holds: its next request sends it\./);
  assert.match(note, /AGENTS\.md changed since this Pi read its files/);
  assert.doesNotMatch(note, /records the sections/);
  const inSync = { promptUpdate: { patch: {} } as never, liveChat: { chatId: '1', heldSince: 1, drift: null } };
  assert.equal(promptOriginNote(sessionBudget(63, 70), p, 'estimated', inSync), null);
});

test('no note when the prompts agree, when the workspace prompt stands in, or without a session prompt', () => {
  const p = prompt([section('preamble', 0, 'x', tokens(64, 70))]);
  assert.equal(promptOriginNote(sessionBudget(63, 70), p, 'estimated'), null);
  const other = prompt([section('preamble', 0, 'x', tokens(900, 927))]);
  assert.equal(promptOriginNote(sessionBudget(63, 70, { systemOrigin: 'workspace' }), other, 'estimated'), null);
  assert.equal(promptOriginNote(sessionBudget(63, 70, { systemOrigin: 'none' }), other, 'estimated'), null);
  assert.equal(promptOriginNote(null, other, 'estimated'), null);
});

test('the store’s view carries the budget’s label and the note once both answers are in', async () => {
  const p = prompt([section('preamble', 0, 'x', tokens(900, 927))]);
  const b = sessionBudget(63, 70);
  const api: ServerApi = {
    systemPrompt: async () => p,
    contextBudget: async () => b,
    projectedRequest: async () => {
      throw new Error('not asked here');
    },
    sessions: async () => ({ sessionsDir: '/s', sessions: [] }),
    sessionTree: async () => {
      throw new Error('not asked here');
    },
  };
  const store = new ContextStore();
  store.attach(api);
  store.setServerState({ state: 'running' });
  await store.refreshPrompt();
  assert.equal(store.view().estimatorLabel, 'weighted estimate (gpt family)');
  await store.refreshBudget();
  const view = store.view();
  assert.equal(view.estimatorLabel, 'weighted estimate (claude family)');
  assert.equal(view.sectionsEstimatorLabel, 'weighted estimate (gpt family)');
  assert.match(view.promptOriginNote ?? '', /stored in this session/);
});
