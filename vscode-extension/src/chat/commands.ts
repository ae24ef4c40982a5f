/**
 * The chat input's slash commands: the four the view handles itself (`/compact [focus]`, `/new`,
 * `/model`, `/resume`) and Pi's own from `pi/chat/commands` (skills as `/skill:name`, prompt
 * templates, extension commands), which are sent to Pi as typed. Completion opens while the input
 * is a single word starting with `/`.
 */

export interface Completion {
  /** What the input becomes: "/compact". */
  value: string;
  description: string;
  /** "chat" for ours, else Pi's source ("skill", "prompt", "extension"). */
  source: string;
}

export const OWN_COMMANDS: readonly Completion[] = [
  { value: '/compact', description: 'Preview a compaction, then let Pi compact (optional focus after a space)', source: 'chat' },
  { value: '/new', description: 'Start a new chat in a new session', source: 'chat' },
  { value: '/model', description: "Pick the chat's model", source: 'chat' },
  { value: '/resume', description: 'Resume a session of this workspace', source: 'chat' },
];

/** Pi's `get_commands` items as completions (`name` without the slash). */
export function piCompletions(items: readonly unknown[]): Completion[] {
  const out: Completion[] = [];
  for (const raw of items) {
    if (typeof raw !== 'object' || raw === null) {
      continue;
    }
    const item = raw as Record<string, unknown>;
    if (typeof item.name !== 'string' || item.name.length === 0) {
      continue;
    }
    out.push({
      value: `/${item.name}`,
      description: typeof item.description === 'string' ? item.description : '',
      source: typeof item.source === 'string' ? item.source : 'pi',
    });
  }
  return out;
}

/** The completions for the input, ours first; none once the command word is complete (a space). */
export function completionsFor(input: string, pi: readonly Completion[]): Completion[] {
  if (!input.startsWith('/') || /\s/.test(input)) {
    return [];
  }
  const prefix = input.toLowerCase();
  const seen = new Set<string>();
  const out: Completion[] = [];
  for (const c of [...OWN_COMMANDS, ...pi]) {
    if (c.value.toLowerCase().startsWith(prefix) && !seen.has(c.value)) {
      seen.add(c.value);
      out.push(c);
    }
  }
  return out;
}

export type ChatInput =
  | { kind: 'compact'; focus: string | null }
  | { kind: 'new' }
  | { kind: 'model' }
  | { kind: 'resume' }
  | { kind: 'prompt'; text: string };

/** What the view does with a submitted input: one of its own commands, or a prompt for Pi. */
export function parseInput(text: string): ChatInput {
  const match = /^\/(compact|new|model|resume)(?:\s+([\s\S]*))?$/.exec(text.trim());
  if (!match) {
    return { kind: 'prompt', text };
  }
  const rest = match[2]?.trim() ?? '';
  switch (match[1]) {
    case 'compact':
      return { kind: 'compact', focus: rest.length > 0 ? rest : null };
    case 'new':
      return { kind: 'new' };
    case 'model':
      return { kind: 'model' };
    default:
      return { kind: 'resume' };
  }
}
