/**
 * The "Sessions" tree: the workspace's Pi sessions, newest first; the current one opens onto its
 * entry tree (chains flat, one nested list per branch, see `model/sessionTree.ts`), with the current
 * leaf, the active path and labels marked. Clicking a session makes it current.
 */
import * as vscode from 'vscode';
import {
  hasChildren,
  indexTree,
  itemChildren,
  nodeDisplay,
  sessionChildren,
  sessionDescription,
  sessionLabel,
  type TreeIndex,
  type TreeItemKey,
} from '../model/sessionTree';
import type { ContextStore } from '../model/store';
import type { SessionSummary } from '../protocol.generated';

export const SESSIONS_VIEW_ID = 'piContext.sessions';

export type SessionsItem =
  | { type: 'session'; summary: SessionSummary; current: boolean }
  | { type: 'node'; key: TreeItemKey; session: string }
  | { type: 'message'; text: string };

const NODE_ICON: Record<string, string> = {
  user: 'account',
  assistant: 'hubot',
  toolResult: 'tools',
  bashExecution: 'terminal',
  compaction: 'fold',
  branch_summary: 'git-merge',
  model_change: 'symbol-class',
  thinking_level_change: 'lightbulb',
  label: 'tag',
  custom_message: 'extensions',
  custom: 'extensions',
  session_info: 'info',
};

export class SessionsProvider implements vscode.TreeDataProvider<SessionsItem>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<SessionsItem | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private index: TreeIndex | null = null;
  private readonly subscription: { dispose(): void };

  constructor(private readonly store: ContextStore) {
    let lastTree = store.tree;
    let lastSessions = store.sessions;
    let lastSession = store.session;
    this.subscription = store.onDidChange(() => {
      if (store.tree !== lastTree || store.sessions !== lastSessions || store.session !== lastSession) {
        lastTree = store.tree;
        lastSessions = store.sessions;
        lastSession = store.session;
        this.index = store.tree ? indexTree(store.tree) : null;
        this.changed.fire(undefined);
      }
    });
  }

  getChildren(element?: SessionsItem): SessionsItem[] {
    if (!element) {
      const sessions = this.store.sessions?.sessions ?? [];
      const items: SessionsItem[] = sessions.map((summary) => ({
        type: 'session',
        summary,
        current: summary.path === this.store.session,
      }));
      // A session picked from a file outside the workspace's session folder is listed too.
      const picked = this.store.session;
      if (picked && !sessions.some((s) => s.path === picked)) {
        items.unshift({
          type: 'session',
          summary: { path: picked, id: picked, modified: 0, size: 0 },
          current: true,
        });
      }
      return items;
    }
    const index = this.index;
    if (element.type === 'session') {
      if (!element.current) {
        return [];
      }
      if (!index || this.store.tree?.session !== element.summary.path) {
        const status = this.store.partStatus('tree');
        return [{ type: 'message', text: status.message ?? 'Loading the session tree…' }];
      }
      const problems = (this.store.tree?.problems ?? []).map((text): SessionsItem => ({ type: 'message', text }));
      return [...problems, ...sessionChildren(index).map((key): SessionsItem => ({ type: 'node', key, session: element.summary.path }))];
    }
    if (element.type === 'node' && index) {
      return itemChildren(index, element.key).map((key) => ({ type: 'node', key, session: element.session }));
    }
    return [];
  }

  getTreeItem(element: SessionsItem): vscode.TreeItem {
    if (element.type === 'message') {
      const item = new vscode.TreeItem(element.text, vscode.TreeItemCollapsibleState.None);
      item.iconPath = new vscode.ThemeIcon('warning');
      return item;
    }
    if (element.type === 'session') {
      const s = element.summary;
      const item = new vscode.TreeItem(
        sessionLabel(s),
        element.current ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None,
      );
      item.id = `session:${s.path}`;
      item.description = s.modified ? sessionDescription(s, Date.now() / 1000) : 'picked file';
      item.tooltip = new vscode.MarkdownString(
        [
          `**${sessionLabel(s)}**`,
          s.firstMessage && s.firstMessage !== sessionLabel(s) ? s.firstMessage.slice(0, 300) : '',
          `\`${s.path}\``,
          s.created ? `created ${s.created}` : '',
          s.model ? `model ${s.model}` : '',
          element.current ? '_current session_' : '',
        ]
          .filter(Boolean)
          .join('\n\n'),
      );
      item.iconPath = new vscode.ThemeIcon(element.current ? 'pass-filled' : 'history');
      item.contextValue = element.current ? 'piContext.session.current' : 'piContext.session';
      if (!element.current) {
        item.command = { command: 'piContext.selectSession', title: 'Select Session', arguments: [s.path] };
      }
      return item;
    }
    const index = this.index;
    const id = element.key.id;
    const display = index ? nodeDisplay(index, id) : null;
    const node = index?.nodes.get(id);
    const expandable = index ? hasChildren(index, element.key) : false;
    const item = new vscode.TreeItem(
      display?.label ?? id,
      expandable
        ? display?.onActivePath
          ? vscode.TreeItemCollapsibleState.Expanded
          : vscode.TreeItemCollapsibleState.Collapsed
        : vscode.TreeItemCollapsibleState.None,
    );
    item.id = `node:${element.session}:${element.key.kind}:${id}`;
    item.description = display?.description;
    item.tooltip = display?.tooltip;
    const kind = node?.type === 'message' ? (node.role ?? 'user') : (node?.type ?? '');
    const icon = display?.isLeaf ? 'target' : (NODE_ICON[kind] ?? 'circle-small');
    item.iconPath = new vscode.ThemeIcon(
      icon,
      display?.onActivePath ? new vscode.ThemeColor('charts.green') : new vscode.ThemeColor('disabledForeground'),
    );
    item.contextValue = display?.isLeaf ? 'piContext.node.leaf' : display?.onActivePath ? 'piContext.node.onPath' : 'piContext.node.offPath';
    return item;
  }

  dispose(): void {
    this.subscription.dispose();
    this.changed.dispose();
  }
}
