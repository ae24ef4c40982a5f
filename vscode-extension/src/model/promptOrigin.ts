/**
 * Why the budget's "System prompt" and the sections list can show different prompts, and which
 * estimator the view's counts are made with. The budget counts the prompt the *session* carries (Pi
 * replays the `role: "system"` messages it stored); the sections list is the prompt the *workspace's*
 * files make now, what a new session would start with. Pi reconciles the two itself: before its next
 * request in the session it diffs the replayed sections against a fresh build and records only the
 * changed ones (pi-coding-agent `_preparePromptAndToolLoadout`; spec pi-behavior §2.6). Without this
 * sentence a user sees 63 tokens beside 927 and cannot tell which one is right (both are).
 */
import type { ContextBudgetResult, SystemPromptResult } from '../protocol.generated';
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

/**
 * A sentence for the sections list when the budget counts the session's stored prompt and the
 * workspace now makes another one (compared by Pi's chars/4 count, which does not depend on the
 * estimator's family); null when there is nothing to explain.
 */
export function promptOriginNote(
  budget: ContextBudgetResult | null,
  prompt: SystemPromptResult | null,
  choice: EstimateChoice,
): string | null {
  if (!budget || !prompt || budget.systemOrigin !== 'session') {
    return null;
  }
  const storedPi = budgetSystemTokens(budget, 'pi');
  if (Math.abs(storedPi - prompt.total.pi) <= 1) {
    return null; // the same prompt (the two counts may round a separator differently)
  }
  const stored = budgetSystemTokens(budget, choice);
  const workspace = choice === 'pi' ? prompt.total.pi : prompt.total.estimate;
  return (
    `The budget's system prompt (${formatExact(stored)} tokens) is the one stored in this session: ` +
    `it is what Pi replays for the session now. The sections below (${formatExact(workspace)} tokens) are the ` +
    "prompt this workspace's files make: a new session starts with it, and before its next request in this " +
    'session Pi records the sections that changed, so the model gets them from then on.'
  );
}
