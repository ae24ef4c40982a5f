/**
 * Why the budget's "System prompt" and the sections list can show different prompts, and which
 * estimator the view's counts are made with. The budget counts the prompt the *session* carries (Pi
 * replays the `role: "system"` messages it stored; on a session a live chat holds, the prompt that chat's
 * Pi holds); the sections list is the prompt the *workspace's* files make now, what a new session would
 * start with. Whether the two differ is the server's answer (`pi/turnLedger`: `promptUpdate.patch`, Pi's
 * own diff of the sections, or `liveChat.drift`), not a comparison of counts here: the budget's system
 * group also holds the tool declarations, which the workspace's prompt does not (before, a note said the
 * prompts differ when the CLI said they were the same). Every sentence rests on a real-Pi rule: a running
 * Pi keeps the prompt it read, and a Pi that loads the session again records the changed sections before
 * its next request (tests/pi_rpc/test_real_live_changes.py).
 */
import type { ContextBudgetResult, SystemPromptResult, TurnLedgerResult } from '../protocol.generated';
import { breakdownFor } from './budget';
import type { EstimateChoice } from './estimate';
import { formatExact } from './format';

export const PI_ESTIMATE_LABEL = "Pi's estimate (characters / 4)";

/** The system-prompt tokens of a budget breakdown (its `system` group). */
export function budgetSystemTokens(budget: ContextBudgetResult, choice: EstimateChoice): number {
  return breakdownFor(budget, choice)
    .categories.filter((c) => c.group === 'system')
    .reduce((t, c) => t + Math.max(0, c.tokens), 0);
}

/**
 * The "Counts:" line names what the budget (the first numbers under it) was counted with; the
 * prompt's estimator only when there is no budget yet. The sections get their own label when the
 * prompt was counted differently (no session: the family comes from the settings, not the model).
 */
export function estimatorLabels(
  budget: ContextBudgetResult | null,
  prompt: SystemPromptResult | null,
  choice: EstimateChoice,
): { counts: string | null; sections: string | null } {
  if (choice === 'pi') {
    return { counts: PI_ESTIMATE_LABEL, sections: null };
  }
  const budgetLabel = budget ? breakdownFor(budget, choice).estimator.label : null;
  const promptLabel = prompt?.estimator.label ?? null;
  const counts = budgetLabel ?? promptLabel;
  return { counts, sections: promptLabel !== null && promptLabel !== counts ? promptLabel : null };
}

/** The system-prompt tokens of a budget breakdown without the tool declarations (the sections list has none). */
export function budgetPromptTokens(budget: ContextBudgetResult, choice: EstimateChoice): number {
  return breakdownFor(budget, choice)
    .categories.filter((c) => c.group === 'system' && c.id !== 'system.tool_definitions')
    .reduce((t, c) => t + Math.max(0, c.tokens), 0);
}

/**
 * A sentence for the sections list when the budget counts another prompt than the workspace's files make
 * now (a stored or held one), and what Pi does about it; null when there is nothing to explain. The server
 * decides whether they differ (`ledger`); without its answer, the counts are compared (tools left out).
 */
export function promptOriginNote(
  budget: ContextBudgetResult | null,
  prompt: SystemPromptResult | null,
  choice: EstimateChoice,
  ledger: Pick<TurnLedgerResult, 'promptUpdate' | 'liveChat'> | null = null,
): string | null {
  if (!budget || !prompt || budget.systemOrigin !== 'session') {
    return null;
  }
  const stored = formatExact(budgetPromptTokens(budget, choice));
  const workspace = formatExact(choice === 'pi' ? prompt.total.pi : prompt.total.estimate);
  const live = ledger?.liveChat;
  if (live) {
    const drift = live.drift;
    if (!drift || drift.sections.length === 0) {
      return null; // the chat's Pi holds what the files make
    }
    return (
      `The budget's system prompt (${stored} tokens) is the one the chat's Pi holds: its next request sends it. ` +
      `The sections below (${workspace} tokens) are what this workspace's files make now. ${drift.message}`
    );
  }
  const update = ledger?.promptUpdate;
  if (update) {
    if (Object.keys(update.patch).length === 0) {
      return null; // Pi's own diff: the session has this prompt
    }
  } else if (Math.abs(budgetPromptTokens(budget, 'pi') - prompt.total.pi) <= 1) {
    return null; // the same prompt (the two counts may round a separator differently)
  }
  return (
    `The budget's system prompt (${stored} tokens) is the one stored in this session: Pi replays it for the ` +
    `session. The sections below (${workspace} tokens) are the prompt this workspace's files make now: a new ` +
    'session starts with it, and a Pi that opens this session again (resumed, or reloaded in the chat) records ' +
    'the sections that changed before its next request.'
  );
}
