/**
 * The extension's picture of the server's answers: the assembled prompt, the last section change,
 * the budget, the projected request, the sessions and the current session's tree. It asks the
 * server (through the typed client's `ServerApi` members, so it runs without VS Code in unit tests), keeps only the newest
 * answer of each kind (a slow old answer never overwrites a newer one), and builds the sidebar's
 * view data. No decision about Pi's rules is taken here; every number comes from the server.
 */
import type { PiContextClient } from '../client.generated';
import type {
  ContextBudgetParams,
  ContextBudgetResult,
  ProjectedRequestResult,
  PromptSectionsChangedParams,
  SessionChangedParams,
  SessionsResult,
  SessionSummary,
  SessionTreeResult,
  SystemPromptResult,
  TurnLedgerResult,
  UsageParams,
  UsageResult,
} from '../protocol.generated';
import type { ChangeSummary, PartStatus, SidebarView } from '../sidebar/messages';
import { budgetView, modelLabel, statusBarView, type StatusBarView } from './budget';
import type { EstimateChoice } from './estimate';
import { costChart } from './ledger';
import { nextRequestText } from './nextRequest';
import { requestView } from './requestMessages';
import { saveCostText } from './saveCost';
import { estimatorLabels, promptOriginNote } from './promptOrigin';
import { promptDiff, type PromptDiff, sectionRows } from './sections';
import { sessionLabel } from './sessionTree';

/**
 * What the store asks of the server: members of the typed client (`client.generated.ts`). The cost chart's and
 * the Usage panel's are optional so that a test's server (answering from recordings) may leave them out.
 */
export type ServerApi = Pick<PiContextClient, 'systemPrompt' | 'contextBudget' | 'projectedRequest' | 'sessions' | 'sessionTree'> &
  Partial<Pick<PiContextClient, 'turnLedger' | 'usage'>>;

export type ServerState = SidebarView['server'];

type Part = 'prompt' | 'budget' | 'request' | 'sessions' | 'tree' | 'ledger';

/** JSON-RPC "method not found": the server is older than the extension (or the method is not built yet). */
const METHOD_NOT_FOUND = -32601;
const KEEP_DIFFS = 20;

export function describeError(method: string, error: unknown): PartStatus {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  if (code === METHOD_NOT_FOUND) {
    return { state: 'unavailable', message: `This pi-context server does not offer ${method}.` };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { state: 'error', message: `${method} failed: ${message}` };
}

type Listener = () => void;

export class ContextStore {
  private api: ServerApi | null = null;
  private listeners = new Set<Listener>();
  private sessionListeners = new Set<Listener>();
  private generation: Record<Part, number> = { prompt: 0, budget: 0, request: 0, sessions: 0, tree: 0, ledger: 0 };
  private status: Record<Part, PartStatus> = {
    prompt: { state: 'loading' },
    budget: { state: 'loading' },
    request: { state: 'empty' },
    sessions: { state: 'loading' },
    tree: { state: 'empty' },
    ledger: { state: 'empty' },
  };

  server: ServerState = { state: 'starting' };
  folderUri: string | null = null;
  folderName: string | null = null;
  choice: EstimateChoice = 'estimated';
  /** The selected session file; `undefined` until the user or the newest session decides. */
  session: string | null | undefined = undefined;
  /** True once the user picked a session (or none): the newest session no longer replaces it. */
  sessionPinned = false;
  /** The session of the chat in the Chat view: shown rather than the newest while nothing is pinned. */
  private chatSession: string | null = null;

  prompt: SystemPromptResult | null = null;
  /** The prompt as it was before the last change notification (for ghost rows and diffs). */
  promptBefore: SystemPromptResult | null = null;
  lastChange: PromptSectionsChangedParams | null = null;
  diffs: PromptDiff[] = [];
  budget: ContextBudgetResult | null = null;
  request: ProjectedRequestResult | null = null;
  sessions: SessionsResult | null = null;
  tree: SessionTreeResult | null = null;
  ledger: TurnLedgerResult | null = null;
  private diffCounter = 0;

  onDidChange(listener: Listener): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  private emit(): void {
    for (const l of [...this.listeners]) {
      l();
    }
  }

  attach(api: ServerApi | null): void {
    this.api = api;
  }

  /** `pi/usage` on the running server; null when there is none (or it has no such method). */
  usage(params: UsageParams): Promise<UsageResult> | null {
    return this.api?.usage ? this.api.usage(params) : null;
  }

  /** Called after every `pi/sessionChanged` (any session appeared, grew or went). */
  onAnySessionChanged(listener: Listener): { dispose(): void } {
    this.sessionListeners.add(listener);
    return { dispose: () => this.sessionListeners.delete(listener) };
  }

  setServerState(state: ServerState): void {
    this.server = state;
    if (state.state !== 'running') {
      this.api = state.state === 'starting' ? this.api : null;
    }
    this.emit();
  }

  setFolder(uri: string | null, name: string | null): void {
    this.folderUri = uri;
    this.folderName = name;
  }

  setChoice(choice: EstimateChoice): void {
    if (choice !== this.choice) {
      this.choice = choice;
      this.emit();
    }
  }

  /** Pick a session (or `null` for the prompt alone); the pick sticks until the next pick. */
  async selectSession(path: string | null): Promise<void> {
    this.session = path;
    this.sessionPinned = true;
    this.request = null;
    this.tree = null;
    this.emit();
    await Promise.all([this.refreshBudget(), this.refreshRequest(), this.refreshTree(), this.refreshLedger()]);
  }

  /**
   * The chat's session (a chat started, taken up or forked): the view shows it, so the Context view, the status
   * bar and the chat's gauge draw the same budget. A session the user picked stays.
   */
  followChat(path: string): void {
    this.chatSession = path;
    if (this.sessionPinned || this.session === path) {
      return;
    }
    this.session = path;
    this.request = null;
    this.tree = null;
    this.emit();
    void Promise.all([this.refreshBudget(), this.refreshRequest(), this.refreshTree(), this.refreshLedger()]);
  }

  clearHighlights(): void {
    this.lastChange = null;
    this.promptBefore = null;
    this.emit();
  }

  async refreshAll(): Promise<void> {
    await Promise.all([this.refreshPrompt(), this.refreshSessions()]);
    await Promise.all([this.refreshBudget(), this.refreshRequest(), this.refreshTree(), this.refreshLedger()]);
  }

  /** Everything that depends on the session files (one grew, a new one appeared, or compaction). */
  async refreshSession(): Promise<void> {
    await this.refreshSessions();
    await Promise.all([this.refreshBudget(), this.refreshRequest(), this.refreshTree(), this.refreshLedger()]);
  }

  /**
   * `pi/promptSectionsChanged`: remember the prompt it replaces, record the diff, then ask for the
   * new prompt, the budget (whose system-prompt categories changed with it) and the ledger (whose
   * `promptUpdate` says what Pi sends the selected session now).
   */
  async onSectionsChanged(params: PromptSectionsChangedParams): Promise<PromptDiff> {
    if (this.folderUri && params.workspaceFolder && !sameFolder(params.workspaceFolder, this.folderUri)) {
      // Another folder of a multi-root workspace: not what this view shows.
      return promptDiff(0, params, null, null, this.choice);
    }
    const before = this.prompt;
    this.promptBefore = before;
    this.lastChange = params;
    const id = ++this.diffCounter;
    // The diff exists as soon as the rows are highlighted (the patch has the new texts); the whole
    // rendered prompt after the change completes it once the server answers.
    this.diffs = [promptDiff(id, params, before, null, this.choice), ...this.diffs].slice(0, KEEP_DIFFS);
    this.emit();
    await this.refreshPrompt();
    const diff = promptDiff(id, params, before, this.prompt, this.choice);
    this.diffs = this.diffs.map((d) => (d.id === id ? diff : d));
    this.emit();
    // The ledger's promptUpdate says what Pi sends the selected session with the new files.
    await Promise.all([this.refreshBudget(), this.refreshRequest(), this.refreshLedger()]);
    return diff;
  }

  /**
   * `pi/sessionChanged`: the server appended to a session or saw one change on disk. Only the
   * current session's views depend on its content; any session changes the list (sizes, order).
   */
  async onSessionChanged(params: SessionChangedParams): Promise<void> {
    for (const l of [...this.sessionListeners]) {
      l();
    }
    if (params.session === this.session) {
      await this.refreshSession();
    } else {
      await this.refreshSessions();
    }
  }

  diffById(id: number): PromptDiff | undefined {
    return this.diffs.find((d) => d.id === id);
  }

  async refreshPrompt(): Promise<void> {
    await this.fetch('prompt', 'pi/systemPrompt', (api) => api.systemPrompt(this.folderParams()), (r) => {
      this.prompt = r;
    });
  }

  async refreshBudget(): Promise<void> {
    const params: ContextBudgetParams = { ...this.folderParams() };
    if (this.session) {
      params.session = this.session;
    }
    await this.fetch('budget', 'pi/contextBudget', (api) => api.contextBudget(params), (r) => {
      this.budget = r;
    });
  }

  async refreshRequest(): Promise<void> {
    const session = this.session;
    if (!session) {
      this.request = null;
      this.status.request = { state: 'empty', message: 'No session selected.' };
      this.emit();
      return;
    }
    await this.fetch('request', 'pi/projectedRequest', (api) => api.projectedRequest({ session }), (r) => {
      this.request = r;
    });
  }

  /** `pi/turnLedger` for the "Cost" chart (see `model/ledger.ts`); skipped by servers without it. */
  async refreshLedger(): Promise<void> {
    const session = this.session;
    if (!session || !this.api?.turnLedger) {
      this.ledger = null;
      this.status.ledger = { state: 'empty' };
      return;
    }
    await this.fetch('ledger', 'pi/turnLedger', (api) => api.turnLedger!({ session }), (r) => {
      this.ledger = r;
    });
  }

  async refreshTree(): Promise<void> {
    const session = this.session;
    if (!session) {
      this.tree = null;
      this.status.tree = { state: 'empty', message: 'No session selected.' };
      this.emit();
      return;
    }
    await this.fetch('tree', 'pi/sessionTree', (api) => api.sessionTree({ session }), (r) => {
      this.tree = r;
    });
  }

  /** The session list; unless the user pinned a session, the newest one becomes current. */
  async refreshSessions(): Promise<void> {
    await this.fetch('sessions', 'pi/sessions', (api) => api.sessions(this.folderParams()), (r) => {
      this.sessions = r;
      if (!this.sessionPinned) {
        const chat = r.sessions.find((item) => item.path === this.chatSession);
        this.session = chat?.path ?? r.sessions[0]?.path ?? null;
      }
    });
  }

  partStatus(part: Part): PartStatus {
    return this.status[part];
  }

  currentSession(): SessionSummary | null {
    return this.sessions?.sessions.find((s) => s.path === this.session) ?? null;
  }

  statusBar(): StatusBarView | null {
    return this.budget ? statusBarView(this.budget) : null;
  }

  view(): SidebarView {
    const choice = this.choice;
    const budget = this.budget ? budgetView(this.budget, choice) : null;
    const diff = this.diffs[0];
    const ledger = this.session ? this.ledger : null;
    const saveCost = this.lastChange
      ? saveCostText(this.lastChange, ledger?.promptUpdate, ledger?.nextRequest, choice, ledger?.liveChat)
      : null;
    const lastChange: ChangeSummary | null =
      this.lastChange && diff
        ? {
            diffId: diff.id,
            triggerPaths: diff.triggerPaths,
            totalDeltaLabel: diff.totalDeltaLabel,
            changedCount: diff.entries.length,
            newSessionsCost: saveCost?.newSessions ?? null,
            sessionCost: saveCost?.session ?? null,
            costTitle: saveCost?.title ?? '',
            liveAction: saveCost?.liveAction ?? null,
          }
        : null;
    const current = this.currentSession();
    const labels = estimatorLabels(this.budget, this.prompt, choice);
    return {
      server: this.server,
      folderName: this.folderName,
      sessionLabel: current ? sessionLabel(current) : this.session ? baseName(this.session) : null,
      choice,
      estimatorLabel: labels.counts,
      sectionsEstimatorLabel: labels.sections,
      promptOriginNote: promptOriginNote(this.budget, this.prompt, choice, ledger),
      budget,
      budgetStatus: this.status.budget,
      sections: this.prompt ? sectionRows(this.prompt, this.lastChange, choice, this.promptBefore) : [],
      sectionsStatus: this.status.prompt,
      promptTokens: this.prompt ? (choice === 'pi' ? this.prompt.total.pi : this.prompt.total.estimate) : null,
      trust: this.prompt ? { trusted: this.prompt.projectTrusted, reason: this.prompt.trustReason ?? null } : null,
      promptWarnings: this.prompt?.warnings ?? [],
      lastChange,
      request:
        this.request && this.session
          ? requestView(this.request, choice, this.budget ? modelLabel(this.budget) : (this.request.model.id ?? ''))
          : null,
      requestStatus: this.status.request,
      cost: this.ledger && this.session ? costChart(this.ledger) : null,
      costStatus: this.status.ledger,
      requestPrice:
        this.ledger?.nextRequest && this.session ? nextRequestText(this.ledger.nextRequest, Date.now()) : null,
    };
  }

  private folderParams(): { workspaceFolder?: string } {
    return this.folderUri ? { workspaceFolder: this.folderUri } : {};
  }

  private async fetch<T>(
    part: Part,
    method: string,
    call: (api: ServerApi) => Promise<T>,
    apply: (result: T) => void,
  ): Promise<void> {
    const api = this.api;
    if (!api) {
      return;
    }
    const generation = ++this.generation[part];
    try {
      const result = await call(api);
      if (generation !== this.generation[part]) {
        return; // a newer request for the same part was sent meanwhile
      }
      apply(result);
      this.status[part] = { state: 'ready' };
    } catch (error) {
      if (generation !== this.generation[part]) {
        return;
      }
      this.status[part] = describeError(method, error);
    }
    this.emit();
  }
}

/** Folder URIs or paths, compared after decoding (`file:///a%20b` is `/a b`). */
export function sameFolder(a: string, b: string): boolean {
  const norm = (s: string): string => {
    let out = s.startsWith('file://') ? s.slice('file://'.length) : s;
    try {
      out = decodeURIComponent(out);
    } catch {
      // keep it as it is
    }
    return out.replace(/\/+$/, '');
  };
  return norm(a) === norm(b);
}

function baseName(path: string): string {
  const i = path.lastIndexOf('/');
  return i >= 0 ? path.slice(i + 1) : path;
}
