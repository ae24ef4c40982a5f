/**
 * What the extension tells the server about the user's settings. The server decides everything;
 * the client only forwards `piContext.*` in the server's shape, which is pi-context's own settings
 * object (`lsp_server/settings/pi_context.py`, camelCase, unknown keys rejected): the same nesting as
 * the VS Code keys (`piContext.tokens.estimator` -> `tokens.estimator`), minus the keys only the
 * client uses (interpreter, install source, trace, status bar), with empty strings as null.
 * The same object goes in `initializationOptions`, answers `workspace/configuration` for the section
 * `piContext`, and rides on `workspace/didChangeConfiguration`.
 *
 * Secrets never pass through here: the summarizer's key stays in the environment, and only the *name*
 * of the variable that holds it is forwarded (the server inherits the extension host's environment).
 */

import { DEFAULT_RULE_PROFILE, DEFAULT_WIRE_FORMAT, WIRE_FORMATS, type WireFormat } from './vocabularies.generated';

export type { RuleProfile, WireFormat } from './vocabularies.generated';
export type TrustSetting = 'pi' | 'trusted' | 'untrusted';

export interface SummarizerSettings {
  mode: 'offline' | 'endpoint';
  url: string | null;
  model: string | null;
  apiKeyEnv: string | null;
  wireFormat: WireFormat;
  timeoutSeconds: number;
  deadlineSeconds: number;
  retries: number;
}

export interface ServerSettings {
  ruleProfile: string;
  tokens: { estimator: string; modelFamily: string };
  summarizer: SummarizerSettings;
  agentDir: string | null;
  trust: TrustSetting;
  debounceMs: number;
  limits: { skillMaxBytes: number; bodyMaxLines: number; contextMaxBytes: number; contextMaxTokens: number; sessionMaxBytes: number; checkBudgetMs: number };
  check: { exclude: string[]; fixtureFolders: string[] };
  budget: { contextWindows: Record<string, number>; defaultContextWindow: number | null };
  pi: { command: string | null; reattachGraceSeconds: number; detachedTurnLimitSeconds: number };
}

/** Reads one `piContext.*` key (without the prefix), e.g. `get('tokens.modelFamily')`. */
export type SettingGetter = (key: string) => unknown;

export const CLIENT_ONLY_KEYS = ['server.python', 'python', 'server.installSource', 'trace.server', 'statusBar.enabled'] as const;

/** Keys whose change needs a new server process (a different interpreter or install). */
export const RESTART_KEYS = ['server.python', 'python', 'server.installSource'] as const;

/** The user's own Python that runs the server instead of the bundled one. */
export const OWN_PYTHON_KEY = 'server.python';
/**
 * The first name of that setting, still read (after `server.python`) so that a user who set it
 * keeps their installation; VS Code shows it as deprecated.
 */
export const DEPRECATED_PYTHON_KEY = 'python';

export interface OwnPythonSetting {
  /** The value as written (not yet expanded). */
  value: string;
  /** Which key held it, with the prefix: `piContext.server.python`, or the deprecated `piContext.python`. */
  key: string;
}

/** `piContext.server.python`, else the deprecated `piContext.python`; null when both are empty. */
export function ownPythonSetting(get: SettingGetter): OwnPythonSetting | null {
  for (const key of [OWN_PYTHON_KEY, DEPRECATED_PYTHON_KEY]) {
    const value = text(get(key));
    if (value) {
      return { value, key: `piContext.${key}` };
    }
  }
  return null;
}

/** `expand` may refuse a path (null: as if unset), see `expandUserPath`. */
export function serverSettings(get: SettingGetter, expand: (path: string) => string | null = (p) => p): ServerSettings {
  const agentDir = text(get('agentDir'));
  const trust = get('trust');
  return {
    ruleProfile: text(get('ruleProfile')) ?? DEFAULT_RULE_PROFILE,
    tokens: {
      estimator: text(get('tokens.estimator')) ?? 'weighted',
      modelFamily: text(get('tokens.modelFamily')) ?? 'auto',
    },
    summarizer: {
      mode: get('summarizer.mode') === 'endpoint' ? 'endpoint' : 'offline',
      url: text(get('summarizer.url')),
      model: text(get('summarizer.model')),
      apiKeyEnv: envName(get('summarizer.apiKeyEnv')),
      wireFormat: oneOf(get('summarizer.wireFormat'), WIRE_FORMATS, DEFAULT_WIRE_FORMAT),
      timeoutSeconds: bounded(get('summarizer.timeoutSeconds'), 30, 1, 3600),
      deadlineSeconds: bounded(get('summarizer.deadlineSeconds'), 120, 1, 86_400),
      retries: bounded(get('summarizer.retries'), 2, 0, 10),
    },
    agentDir: agentDir ? expand(agentDir) : null,
    trust: trust === 'trusted' || trust === 'untrusted' ? trust : 'pi',
    debounceMs: bounded(get('debounceMs'), 300, 0, 60_000),
    limits: {
      skillMaxBytes: bounded(get('limits.skillMaxBytes'), 8 * 1024 * 1024, 0, Number.MAX_SAFE_INTEGER),
      bodyMaxLines: bounded(get('limits.bodyMaxLines'), 500, 0, Number.MAX_SAFE_INTEGER),
      contextMaxBytes: bounded(get('limits.contextMaxBytes'), 32 * 1024, 0, Number.MAX_SAFE_INTEGER),
      contextMaxTokens: bounded(get('limits.contextMaxTokens'), 8000, 0, Number.MAX_SAFE_INTEGER),
      sessionMaxBytes: bounded(get('limits.sessionMaxBytes'), 512 * 1024 * 1024, 0, Number.MAX_SAFE_INTEGER),
      checkBudgetMs: bounded(get('limits.checkBudgetMs'), 2000, 0, Number.MAX_SAFE_INTEGER),
    },
    check: {
      exclude: strings(get('check.exclude'), []),
      fixtureFolders: strings(get('check.fixtureFolders'), ['fixtures', '__fixtures__', 'testdata']),
    },
    budget: {
      contextWindows: windows(get('budget.contextWindows')),
      defaultContextWindow: positiveOrNull(get('budget.defaultContextWindow')),
    },
    pi: {
      command: text(get('pi.command')),
      reattachGraceSeconds: bounded(get('pi.reattachGraceSeconds'), 90, 0, 3600),
      detachedTurnLimitSeconds: bounded(get('pi.detachedTurnLimitSeconds'), 1800, 1, 86_400),
    },
  };
}

/** Only positive whole windows keyed by a non-empty model name are forwarded. */
function windows(value: unknown): Record<string, number> {
  const out: Record<string, number> = {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return out;
  }
  for (const [key, n] of Object.entries(value as Record<string, unknown>)) {
    const w = positiveOrNull(n);
    if (key.trim() !== '' && w !== null) {
      out[key.trim()] = w;
    }
  }
  return out;
}

/** A list of non-empty strings (trimmed), else `fallback` (a value that is not a list). */
function strings(value: unknown, fallback: string[]): string[] {
  if (!Array.isArray(value)) {
    return fallback;
  }
  return value.filter((item): item is string => typeof item === 'string' && item.trim() !== '').map((item) => item.trim());
}

function positiveOrNull(value: unknown): number | null {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : null;
}

/** Which of the changed keys (without prefix) require restarting the server process. */
export function needsRestart(affected: (key: string) => boolean): boolean {
  return RESTART_KEYS.some((k) => affected(k));
}

/** `value` when it is one of `choices` (the server's table), else `fallback`. */
function oneOf<T extends string>(value: unknown, choices: readonly T[], fallback: T): T {
  return choices.find((choice) => choice === value) ?? fallback;
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
}

/** Only a plausible variable name is forwarded: a pasted key (spaces, `sk-...`, long) is dropped. */
export function envName(value: unknown): string | null {
  const name = text(value);
  return name && /^[A-Za-z_][A-Za-z0-9_]{0,127}$/.test(name) && !looksLikeKey(name) ? name : null;
}

function looksLikeKey(name: string): boolean {
  return /^(sk|pk|rk)[-_]/i.test(name) || (name.length >= 32 && /\d/.test(name) && /[a-z]/.test(name) && /[A-Z]/.test(name));
}

function bounded(value: unknown, fallback: number, min: number, max: number): number {
  return typeof value === 'number' && Number.isFinite(value) ? Math.min(max, Math.max(min, Math.round(value))) : fallback;
}

/**
 * A user-level path setting, expanded; null when it names `${workspaceFolder}` and the workspace is not
 * trusted. The value comes from the user's own settings, but `${workspaceFolder}` turns it into a path
 * inside whichever repository is open: a Python, a wheel or an agent dir there would be run or read from
 * a folder nobody vouched for. The caller then uses what it uses when the setting is empty.
 */
export function expandUserPath(path: string, home: string, workspaceFolder: string | null, trusted: boolean): string | null {
  return !trusted && usesWorkspaceFolder(path) ? null : expandPath(path, home, workspaceFolder);
}

/** A path that names the workspace: `${workspaceFolder}`, or a relative path with a folder in it (`.venv/bin/python`),
 *  which resolves against the server's working folder, the workspace. A bare name (`python3`) is looked up on PATH. */
export function usesWorkspaceFolder(path: string): boolean {
  if (path.includes('${workspaceFolder}')) {
    return true;
  }
  if (path.includes('://')) {
    return false; // an install source given as a URL (git+https://..., https://.../x.whl)
  }
  const relative = !(path.startsWith('/') || path.startsWith('~') || path.startsWith('${userHome}') || /^[A-Za-z]:[\\/]/.test(path) || path.startsWith('\\\\'));
  return relative && /[\\/]/.test(path);
}

/** Expand `~` and `${workspaceFolder}` / `${userHome}` in a path setting. */
export function expandPath(path: string, home: string, workspaceFolder: string | null): string {
  let out = path;
  if (out === '~' || out.startsWith('~/')) {
    out = home + out.slice(1);
  }
  out = out.replace(/\$\{userHome\}/g, home);
  if (workspaceFolder !== null) {
    out = out.replace(/\$\{workspaceFolder\}/g, workspaceFolder);
  }
  return out;
}

export type InterpreterSource = 'setting' | 'python-extension' | 'path' | 'bundled';

export interface InterpreterChoice {
  command: string;
  source: InterpreterSource;
  /** For `setting`: the key that named it (`piContext.server.python` or the deprecated `piContext.python`). */
  key?: string;
}

/** The user's setting, else the Python extension's active interpreter, else `python3` on PATH. */
export function chooseInterpreter(setting: string | null, pythonExtension: string | null, key = `piContext.${OWN_PYTHON_KEY}`): InterpreterChoice {
  if (setting && setting.trim() !== '') {
    return { command: setting.trim(), source: 'setting', key };
  }
  if (pythonExtension && pythonExtension.trim() !== '') {
    return { command: pythonExtension.trim(), source: 'python-extension' };
  }
  return { command: 'python3', source: 'path' };
}

export function describeInterpreter(choice: InterpreterChoice): string {
  switch (choice.source) {
    case 'setting':
      return `${choice.command} (${choice.key ?? `piContext.${OWN_PYTHON_KEY}`})`;
    case 'python-extension':
      return `${choice.command} (the Python extension's interpreter)`;
    case 'bundled':
      return `${choice.command} (the bundled server's environment)`;
    default:
      return `${choice.command} (from PATH)`;
  }
}
