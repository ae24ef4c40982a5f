/**
 * Which of the two token counts the views show. Every count on the wire carries both Pi's own
 * chars/4 heuristic (what Pi decides with) and pi-context's better estimate; the user switches.
 */
import type { TokenCounts } from '../protocol.generated';

export type EstimateChoice = 'pi' | 'estimated';

export function pick(counts: TokenCounts | null | undefined, choice: EstimateChoice): number {
  if (!counts) {
    return 0;
  }
  return choice === 'pi' ? counts.pi : counts.estimate;
}

export function otherChoice(choice: EstimateChoice): EstimateChoice {
  return choice === 'pi' ? 'estimated' : 'pi';
}

export function isEstimateChoice(value: unknown): value is EstimateChoice {
  return value === 'pi' || value === 'estimated';
}
