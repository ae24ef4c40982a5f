/**
 * LSP `$/progress` reports an absolute percentage; VS Code's progress API wants increments.
 * This keeps the running total so the notification's bar matches what the server said.
 */

export interface WorkDoneValue {
  kind: 'begin' | 'report' | 'end';
  title?: string;
  message?: string;
  percentage?: number;
}

export interface ProgressStep {
  message?: string;
  increment?: number;
}

export class ProgressTracker {
  private reported = 0;

  /** The VS Code progress step for one server value (undefined when there is nothing to show). */
  step(value: WorkDoneValue): ProgressStep | undefined {
    if (value.kind === 'end') {
      return undefined;
    }
    const step: ProgressStep = {};
    if (value.message) {
      step.message = value.message;
    }
    if (typeof value.percentage === 'number' && Number.isFinite(value.percentage)) {
      const target = Math.min(100, Math.max(0, value.percentage));
      if (target > this.reported) {
        step.increment = target - this.reported;
        this.reported = target;
      }
    }
    return step.message !== undefined || step.increment !== undefined ? step : undefined;
  }
}
