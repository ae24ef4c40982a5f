/**
 * The palette and toolbar commands. Long ones (compaction, branch summary) follow one pattern:
 * ask, run on the server in preview mode under a cancellable progress notification, show the
 * result in a read-only editor, and append only after the user confirms; a cancelled or failed
 * run writes nothing (the server guarantees it, the client never writes a session file).
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { isEstimateChoice, otherChoice } from './model/estimate';
import {
  appliedText,
  confirmText,
  failedText,
  type PreviewSettlement,
  previewDocument,
  previewTitle,
  settledDocument,
  type SummaryKind,
} from './model/outcome';
import { branchTargets, indexTree, nodeDisplay, sessionDescription, sessionLabel } from './model/sessionTree';
import type { ContextStore } from './model/store';
import type { PiContextClient, CommandOptions } from './client.generated';
import type { BranchSummaryArgs, CommandOutcome, CompactArgs } from './protocol.generated';
import { PreviewConfirmations } from './previewConfirm';
import { errorText, isCancelled, type ServerManager } from './server';
import type { SessionsItem } from './sessions/provider';
import type { SidebarProvider } from './sidebar/provider';
import { diffUri, REQUEST_URI, SYSTEM_PROMPT_URI, type VirtualDocuments, WHOLE_PROMPT } from './virtualDocuments';

export interface CommandContext {
  store: ContextStore;
  server: ServerManager;
  docs: VirtualDocuments;
  sidebar: SidebarProvider;
  log: vscode.LogOutputChannel;
  remember(): void;
}

/** The commands' own state: the summary previews waiting for Append or Discard. */
interface Commands extends CommandContext {
  confirmations: PreviewConfirmations;
}

/** A preview the user saw: its document and the facts to rewrite it with once decided. */
interface ShownPreview {
  uri: vscode.Uri;
  kind: SummaryKind;
  preview: CommandOutcome;
  sessionName: string;
}

export function registerCommands(context: CommandContext): vscode.Disposable[] {
  const confirmations = new PreviewConfirmations();
  const c: Commands = { ...context, confirmations };
  const reg = (id: string, fn: (...args: never[]) => unknown): vscode.Disposable =>
    vscode.commands.registerCommand(id, async (...args: never[]) => {
      try {
        await fn(...args);
      } catch (error) {
        c.log.error(`${id}: ${errorText(error)}`);
        void showError(c, `Pi Context: ${errorText(error)}`);
      }
    });
  return [
    confirmations,
    reg('piContext.compact', () => compact(c)),
    reg('piContext.branchSummary', (target?: string) => branchSummary(c, target)),
    reg('piContext.branchSummaryTo', (item?: SessionsItem) =>
      branchSummary(c, item && item.type === 'node' ? item.key.id : undefined),
    ),
    reg('piContext.showSystemPrompt', () => showSystemPrompt(c)),
    reg('piContext.showSectionDiff', (diffId?: number | null, name?: string | null) => showSectionDiff(c, diffId, name)),
    reg('piContext.showProjectedRequest', (index?: number) => showProjectedRequest(c, index)),
    reg('piContext.restartServer', () => c.server.restart()),
    reg('piContext.installServer', () => c.server.install()),
    reg('piContext.selectSession', (p?: string) => selectSession(c, p)),
    reg('piContext.refresh', () => c.store.refreshAll()),
    reg('piContext.toggleEstimator', () => {
      c.store.setChoice(otherChoice(c.store.choice));
      c.remember();
    }),
    reg('piContext.setEstimate', (choice?: unknown) => {
      if (isEstimateChoice(choice)) {
        c.store.setChoice(choice);
        c.remember();
      }
    }),
    reg('piContext.clearHighlights', () => c.store.clearHighlights()),
    reg('piContext.showOutput', () => c.log.show()),
    reg('piContext.openView', () => vscode.commands.executeCommand('piContext.context.focus')),
    reg('piContext.openSource', (p?: string, uri?: string | null) => openSource(p, uri)),
  ];
}

async function showError(c: CommandContext, message: string): Promise<void> {
  if ((await vscode.window.showErrorMessage(message, 'Show Log')) === 'Show Log') {
    c.log.show();
  }
}

/** The session's name as the Sessions view shows it (its Pi name, else its file name). */
function sessionName(c: CommandContext, p: string): string {
  const summary = c.store.sessions?.sessions.find((s) => s.path === p);
  return summary ? sessionLabel(summary) : path.basename(p);
}

async function requireSession(c: CommandContext): Promise<string | undefined> {
  if (c.store.session) {
    return c.store.session;
  }
  await selectSession(c);
  return c.store.session ?? undefined;
}

async function compact(c: Commands): Promise<void> {
  const session = await requireSession(c);
  if (!session) {
    return;
  }
  const instructions = await vscode.window.showInputBox({
    title: `Compact Session — ${sessionName(c, session)}`,
    prompt: 'Optional: what the summary should focus on (Enter for none, Escape to cancel)',
    placeHolder: 'e.g. keep the API design decisions and the open TODOs',
    ignoreFocusOut: true,
  });
  if (instructions === undefined) {
    return;
  }
  const args: CompactArgs = { session, previewOnly: true };
  if (instructions.trim()) {
    args.instructions = instructions.trim();
  }
  const preview = await runLong(c, 'Compacting session', (api, options) => api.compact(args, options));
  if (!preview) {
    return;
  }
  const shown = await showPreview(c, 'compaction', preview, session);
  if (!(await confirm(c, shown))) {
    return;
  }
  const apply: CompactArgs = { ...args, previewOnly: false };
  if (typeof preview.sessionSize === 'number') {
    apply.expectedSize = preview.sessionSize;
  }
  // On a session a chat holds, the server has that chat's Pi compact (Pi writes it, with its own model).
  const title = preview.chatId ? `Pi (chat ${preview.chatId}) is compacting the session` : 'Appending the compaction';
  const applied = await runLong(c, title, (api, options) => api.compact(apply, options));
  await finish(c, shown, applied);
}

async function branchSummary(c: Commands, target?: string): Promise<void> {
  const session = await requireSession(c);
  if (!session) {
    return;
  }
  if (!c.store.tree || c.store.tree.session !== session) {
    await c.store.refreshTree();
  }
  const tree = c.store.tree;
  if (!tree || tree.session !== session) {
    throw new Error(c.store.partStatus('tree').message ?? 'The session tree is not available.');
  }
  const index = indexTree(tree);
  const fromId = tree.leafId;
  if (!fromId) {
    void vscode.window.showInformationMessage('Pi Context: this session has no current leaf to summarize from.');
    return;
  }
  let toId = target;
  if (!toId) {
    const items = branchTargets(index).map((n) => {
      const d = nodeDisplay(index, n.id);
      return {
        label: d.label,
        description: [d.onActivePath ? 'on the current path' : 'other branch', d.description].filter(Boolean).join(' · '),
        detail: n.id,
        id: n.id,
      };
    });
    const picked = await vscode.window.showQuickPick(items, {
      title: `Summarize Branch — move from the current leaf to…`,
      placeHolder: 'The entry to go to; the branch being left is summarized',
      matchOnDescription: true,
      matchOnDetail: true,
    });
    if (!picked) {
      return;
    }
    toId = picked.id;
  }
  if (toId === fromId) {
    void vscode.window.showInformationMessage('Pi Context: that entry is the current leaf; there is no branch to leave.');
    return;
  }
  const instructions = await vscode.window.showInputBox({
    title: 'Summarize Branch',
    prompt: 'Optional: what the summary should focus on (Enter for none, Escape to cancel)',
    ignoreFocusOut: true,
  });
  if (instructions === undefined) {
    return;
  }
  const args: BranchSummaryArgs = { session, fromId, toId, previewOnly: true };
  if (instructions.trim()) {
    args.instructions = instructions.trim();
  }
  const preview = await runLong(c, 'Summarizing the branch', (api, options) => api.branchSummary(args, options));
  if (!preview) {
    return;
  }
  const shown = await showPreview(c, 'branch', preview, session);
  if (!(await confirm(c, shown))) {
    return;
  }
  const apply: BranchSummaryArgs = { ...args, previewOnly: false };
  if (typeof preview.sessionSize === 'number') {
    apply.expectedSize = preview.sessionSize;
  }
  const applied = await runLong(c, 'Appending the branch summary', (api, options) => api.branchSummary(apply, options));
  await finish(c, shown, applied);
}

/** Runs a server command under a cancellable notification; undefined when cancelled or failed. */
async function runLong<T>(
  c: CommandContext,
  title: string,
  command: (api: PiContextClient, options: CommandOptions) => Promise<T>,
): Promise<T | undefined> {
  try {
    return await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Pi Context: ${title}`, cancellable: true },
      (progress, token) => c.server.runCommand(command, progress, token),
    );
  } catch (error) {
    if (isCancelled(error)) {
      void vscode.window.showInformationMessage(`Pi Context: ${title.toLowerCase()} cancelled; the session is unchanged.`);
    } else {
      c.log.error(`${title}: ${errorText(error)}`);
      void showError(c, failedText(title, error));
    }
    return undefined;
  }
}

/** Opens the preview beside the current editor; its buttons are added by `confirm`. */
async function showPreview(c: Commands, kind: SummaryKind, preview: CommandOutcome, session: string): Promise<ShownPreview> {
  const name = sessionName(c, session);
  const uri = c.docs.addPreview(previewTitle(kind), previewDocument(kind, preview, name));
  const doc = await vscode.workspace.openTextDocument(uri);
  await vscode.languages.setTextDocumentLanguage(doc, 'markdown');
  await vscode.window.showTextDocument(doc, { preview: false, viewColumn: vscode.ViewColumn.Beside });
  return { uri, kind, preview, sessionName: name };
}

/** Waits for Append to Session or Discard on the preview's editor; a discard is written into it. */
async function confirm(c: Commands, shown: ShownPreview): Promise<boolean> {
  const append = await c.confirmations.ask(shown.uri, confirmText(shown.kind, shown.preview, shown.sessionName));
  if (!append) {
    settle(c, shown, { state: 'discarded' });
  }
  return append;
}

function settle(c: Commands, shown: ShownPreview, settlement: PreviewSettlement): void {
  c.docs.updatePreview(shown.uri, settledDocument(shown.kind, shown.preview, shown.sessionName, settlement));
}

async function finish(c: Commands, shown: ShownPreview, applied: CommandOutcome | undefined): Promise<void> {
  const what = shown.kind === 'compaction' ? 'compaction' : 'branch summary';
  if (!applied) {
    settle(c, shown, { state: 'not-written', reason: `Appending the ${what} was cancelled or failed (see the notification).` });
    return;
  }
  if (!applied.written) {
    settle(c, shown, { state: 'not-written', reason: `The server did not append the ${what}.` });
    void showError(c, `Pi Context: the server did not append the ${what}.`);
    return;
  }
  settle(c, shown, { state: 'appended', applied });
  void vscode.window.showInformationMessage(appliedText(shown.kind, applied, shown.sessionName));
  await c.store.refreshSession();
}

async function showSystemPrompt(c: CommandContext): Promise<void> {
  if (!c.store.prompt) {
    await c.store.refreshPrompt();
  }
  if (!c.store.prompt) {
    throw new Error(c.store.partStatus('prompt').message ?? 'The server has not assembled the prompt.');
  }
  const doc = await vscode.workspace.openTextDocument(SYSTEM_PROMPT_URI);
  await vscode.languages.setTextDocumentLanguage(doc, 'markdown');
  await vscode.window.showTextDocument(doc, { preview: true });
}

async function showProjectedRequest(c: CommandContext, index?: number): Promise<void> {
  if (!c.store.session) {
    await selectSession(c);
  }
  if (!c.store.request) {
    await c.store.refreshRequest();
  }
  if (!c.store.request) {
    throw new Error(c.store.partStatus('request').message ?? 'No projected request.');
  }
  const doc = await vscode.workspace.openTextDocument(REQUEST_URI);
  await vscode.languages.setTextDocumentLanguage(doc, 'markdown');
  const editor = await vscode.window.showTextDocument(doc, { preview: true });
  if (typeof index === 'number') {
    const text = doc.getText();
    const at = text.indexOf(`\n## ${index}. `);
    if (at >= 0) {
      const pos = doc.positionAt(at + 1);
      editor.selection = new vscode.Selection(pos, pos);
      editor.revealRange(new vscode.Range(pos, pos), vscode.TextEditorRevealType.AtTop);
    }
  }
}

async function showSectionDiff(c: CommandContext, diffId?: number | null, name?: string | null): Promise<void> {
  // Arguments may arrive as null rather than undefined when the command is run from elsewhere.
  const diff = typeof diffId === 'number' ? c.store.diffById(diffId) : c.store.diffs[0];
  if (!diff) {
    void vscode.window.showInformationMessage(
      'Pi Context: no prompt change yet. Save a context file (AGENTS.md, SKILL.md, …) to see what it changes.',
    );
    return;
  }
  let section = typeof name === 'string' ? name : undefined;
  if (section === undefined) {
    const items = [
      ...diff.entries.map((e) => ({ label: e.name, description: `${e.status} · ${e.deltaLabel} tokens`, name: e.name })),
      { label: 'Whole system prompt', description: `${diff.totalDeltaLabel} tokens`, name: WHOLE_PROMPT },
    ];
    const picked =
      items.length === 2
        ? items[0]
        : await vscode.window.showQuickPick(items, { title: 'Show Prompt Section Diff', placeHolder: 'Which section?' });
    if (!picked) {
      return;
    }
    section = picked.name;
  }
  const entry = diff.entries.find((e) => e.name === section);
  const label = section === WHOLE_PROMPT ? 'System prompt' : section;
  const delta = entry ? entry.deltaLabel : diff.totalDeltaLabel;
  // The cache figures are about the whole prompt: the patch Pi sends and where new sessions' prompts differ.
  const cache = diff.cacheLabel ? `; ${diff.cacheLabel}` : '';
  await vscode.commands.executeCommand(
    'vscode.diff',
    diffUri(diff.id, 'before', section),
    diffUri(diff.id, 'after', section),
    `${label} (${delta} tokens${cache})`,
    { preview: true },
  );
}

async function selectSession(c: CommandContext, picked?: string): Promise<void> {
  if (picked) {
    await c.store.selectSession(picked);
    c.remember();
    return;
  }
  if (!c.store.sessions) {
    await c.store.refreshSessions();
  }
  const now = Date.now() / 1000;
  type Item = vscode.QuickPickItem & { value: string | null }; // a session path, none, or 'open' (a file dialog)
  const items: Item[] = (c.store.sessions?.sessions ?? []).map((s) => ({
    label: `${s.path === c.store.session ? '$(pass-filled) ' : ''}${sessionLabel(s)}`,
    description: sessionDescription(s, now),
    detail: s.path,
    value: s.path,
  }));
  items.push(
    { label: '$(circle-slash) No session (the system prompt alone)', value: null },
    { label: '$(folder-opened) Open a session file…', value: 'open' },
  );
  const choice = await vscode.window.showQuickPick(items, {
    title: 'Select Session',
    placeHolder: c.store.sessions ? `Sessions in ${c.store.sessions.sessionsDir}, newest first` : 'No session list from the server',
    matchOnDetail: true,
  });
  if (!choice) {
    return;
  }
  let value = choice.value;
  if (value === 'open') {
    const files = await vscode.window.showOpenDialog({
      title: 'Open a Pi session file',
      canSelectMany: false,
      filters: { 'Pi sessions': ['jsonl'] },
      defaultUri: c.store.sessions ? vscode.Uri.file(c.store.sessions.sessionsDir) : undefined,
    });
    if (!files?.[0]) {
      return;
    }
    value = files[0].fsPath;
  }
  await c.store.selectSession(value);
  c.remember();
}

async function openSource(p?: string, uri?: string | null): Promise<void> {
  if (!p && !uri) {
    return;
  }
  const target = uri ? vscode.Uri.parse(uri) : vscode.Uri.file(p as string);
  await vscode.window.showTextDocument(target, { preview: true });
}
