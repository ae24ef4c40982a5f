/** Small builders for protocol objects: each test states only the fields its rule is about. */
import type {
  BudgetCategory,
  ContextBudgetResult,
  EstimatorInfo,
  ProjectedMessage,
  PromptSection,
  PromptSectionsChangedParams,
  SectionChange,
  SystemPromptResult,
  TokenCounts,
} from '../src/protocol.generated';

export const tokens = (pi: number, estimate = pi): TokenCounts => ({ pi, estimate });

export const estimator: EstimatorInfo = { name: 'weighted', family: 'gpt', exact: false, label: 'weighted estimate (gpt family)' };

export function category(id: string, group: BudgetCategory['group'], value: number, label = id): BudgetCategory {
  return { id, group, label, tokens: value };
}

export function budget(over: Partial<ContextBudgetResult> = {}, categories?: BudgetCategory[]): ContextBudgetResult {
  const cats = categories ?? [
    category('system.base', 'system', 10_000, 'Base prompt'),
    category('messages.user', 'messages', 20_000, 'User'),
    category('free', 'free', 153_616, 'Free'),
    category('reserve', 'reserve', 16_384, 'Reserve'),
  ];
  const used = cats.filter((c) => c.group === 'system' || c.group === 'messages').reduce((t, c) => t + c.tokens, 0);
  const breakdown = { estimator, categories: cats, used, free: 153_616, overflow: 0 };
  return {
    model: { provider: 'anthropic', id: 'claude-sonnet-4', contextWindow: 200_000, source: 'session' },
    window: 200_000,
    reserveTokens: 16_384,
    threshold: 183_616,
    compactionEnabled: true,
    contextTokens: 30_000,
    contextTokensSource: 'usage',
    shouldCompact: false,
    percentUsed: 15,
    pi: breakdown,
    estimated: breakdown,
    ...over,
  };
}

export function section(name: string, position: number, text = `<${name}>`, t = tokens(text.length)): PromptSection {
  return { name, position, text, tokens: t, sources: [] };
}

export function prompt(sections: PromptSection[], over: Partial<SystemPromptResult> = {}): SystemPromptResult {
  const total = sections.reduce((t, s) => t + s.tokens.pi, 0);
  return {
    cwd: '/repo',
    agentDir: '/home/u/.pi/agent',
    projectTrusted: true,
    sections,
    rendered: sections.map((s) => s.text).join('\n'),
    total: tokens(total),
    estimator,
    ...over,
  };
}

export function change(name: string, status: SectionChange['status'], delta: number): SectionChange {
  return { name, status, delta: tokens(delta) };
}

export function changed(
  changes: SectionChange[],
  patch: Record<string, string | null>,
  over: Partial<PromptSectionsChangedParams> = {},
): PromptSectionsChangedParams {
  return {
    workspaceFolder: 'file:///repo',
    cwd: '/repo',
    patch,
    changes,
    totalBefore: tokens(100),
    totalAfter: tokens(100 + changes.reduce((t, c) => t + c.delta.pi, 0)),
    renderedUpdate: '',
    triggerPaths: ['/repo/AGENTS.md'],
    ...over,
  };
}

export function message(index: number, kind: string, role = kind, text = `m${index}`, t = 10): ProjectedMessage {
  return { index, role, kind, text, tokens: tokens(t), entryId: `e${index}` };
}
