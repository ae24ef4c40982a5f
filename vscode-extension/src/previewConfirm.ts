/**
 * Confirming a summary where it is read: the preview document's own editor carries the
 * "Append to Session" and "Discard" buttons (editor title bar, and a code lens above the text), so
 * the question cannot slide away into the notification centre while the user reads. A preview
 * stays pending until one button is pressed or its tab is closed (closing discards). The context key
 * `piContext.pendingPreviews` (the pending documents' paths) decides where the buttons show.
 */
import * as vscode from 'vscode';
import { SCHEME } from './virtualDocuments';

export const APPEND_COMMAND = 'piContext.preview.append';
export const DISCARD_COMMAND = 'piContext.preview.discard';
const CONTEXT_KEY = 'piContext.pendingPreviews';

export class PreviewConfirmations implements vscode.CodeLensProvider, vscode.Disposable {
  private readonly pending = new Map<string, { resolve: (append: boolean) => void; question: string }>();
  private readonly lensesChanged = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.lensesChanged.event;
  private readonly disposables: vscode.Disposable[];

  constructor() {
    this.disposables = [
      vscode.languages.registerCodeLensProvider({ scheme: SCHEME }, this),
      vscode.commands.registerCommand(APPEND_COMMAND, (uri?: vscode.Uri) => this.decide(uri, true)),
      vscode.commands.registerCommand(DISCARD_COMMAND, (uri?: vscode.Uri) => this.decide(uri, false)),
      // A closed preview tab is a "no": nothing is written for a summary nobody can see.
      vscode.window.tabGroups.onDidChangeTabs((e) => {
        if (e.closed.length) {
          this.discardClosed();
        }
      }),
    ];
  }

  /** Resolves true when the user presses Append to Session on the document at `uri`, false otherwise. */
  ask(uri: vscode.Uri, question: string): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      this.pending.get(uri.toString())?.resolve(false);
      this.pending.set(uri.toString(), { resolve, question });
      this.changed();
    });
  }

  isPending(uri: vscode.Uri): boolean {
    return this.pending.has(uri.toString());
  }

  provideCodeLenses(document: vscode.TextDocument): vscode.CodeLens[] {
    const question = this.pending.get(document.uri.toString())?.question;
    if (question === undefined) {
      return [];
    }
    const top = new vscode.Range(0, 0, 0, 0);
    const args = [document.uri];
    return [
      new vscode.CodeLens(top, { title: '✓ Append to Session', tooltip: question, command: APPEND_COMMAND, arguments: args }),
      new vscode.CodeLens(top, { title: '✕ Discard', tooltip: 'Write nothing', command: DISCARD_COMMAND, arguments: args }),
    ];
  }

  private decide(uri: vscode.Uri | undefined, append: boolean): void {
    const target = uri ?? vscode.window.activeTextEditor?.document.uri;
    const entry = target ? this.pending.get(target.toString()) : undefined;
    if (!target || !entry) {
      void vscode.window.showInformationMessage('Pi Context: this summary is not waiting for a decision any more.');
      return;
    }
    this.pending.delete(target.toString());
    this.changed();
    entry.resolve(append);
  }

  private discardClosed(): void {
    const open = new Set<string>();
    for (const group of vscode.window.tabGroups.all) {
      for (const tab of group.tabs) {
        if (tab.input instanceof vscode.TabInputText) {
          open.add(tab.input.uri.toString());
        }
      }
    }
    for (const [key, entry] of [...this.pending]) {
      if (!open.has(key)) {
        this.pending.delete(key);
        entry.resolve(false);
      }
    }
    this.changed();
  }

  private changed(): void {
    const paths = [...this.pending.keys()].map((key) => vscode.Uri.parse(key).path);
    void vscode.commands.executeCommand('setContext', CONTEXT_KEY, paths);
    this.lensesChanged.fire();
  }

  dispose(): void {
    for (const entry of this.pending.values()) {
      entry.resolve(false);
    }
    this.pending.clear();
    for (const d of this.disposables) {
      d.dispose();
    }
    this.lensesChanged.dispose();
  }
}
