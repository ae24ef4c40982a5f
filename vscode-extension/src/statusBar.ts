/** The budget in the status bar ("62% of 200k"), warning colours past Pi's compaction threshold. */
import * as vscode from 'vscode';
import type { ContextStore } from './model/store';

export class BudgetStatusBar implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private readonly subscription: { dispose(): void };

  constructor(private readonly store: ContextStore) {
    this.item = vscode.window.createStatusBarItem('piContext.budget', vscode.StatusBarAlignment.Right, 100);
    this.item.name = 'Pi Context Budget';
    this.item.command = 'piContext.openView';
    this.subscription = store.onDidChange(() => this.update());
    this.update();
  }

  update(): void {
    const enabled = vscode.workspace.getConfiguration('piContext').get<boolean>('statusBar.enabled', true);
    const view = this.store.statusBar();
    if (!enabled || !view) {
      this.item.hide();
      return;
    }
    this.item.text = view.text;
    this.item.tooltip = view.tooltip;
    this.item.accessibilityInformation = { label: view.tooltip.split('\n')[0] ?? view.text, role: 'button' };
    this.item.backgroundColor =
      view.level === 'error'
        ? new vscode.ThemeColor('statusBarItem.errorBackground')
        : view.level === 'warning'
          ? new vscode.ThemeColor('statusBarItem.warningBackground')
          : undefined;
    this.item.show();
  }

  dispose(): void {
    this.subscription.dispose();
    this.item.dispose();
  }
}
