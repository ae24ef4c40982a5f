/**
 * Read-only documents under the `pi-context:` scheme: the assembled system prompt, the before and
 * after texts of a prompt change (for VS Code's diff editor), the projected request, and summary
 * previews. They are virtual, so nothing is written to disk and the user cannot edit them by mistake.
 */
import * as vscode from 'vscode';
import { requestMarkdown } from './model/requestMessages';
import type { ContextStore } from './model/store';

export const SCHEME = 'pi-context';

export const SYSTEM_PROMPT_URI = vscode.Uri.from({ scheme: SCHEME, path: '/System Prompt.md' });
export const REQUEST_URI = vscode.Uri.from({ scheme: SCHEME, path: '/Projected Request.md' });

/** Marker for the whole rendered prompt in a diff (section names never start with a space). */
export const WHOLE_PROMPT = ' whole prompt';

export function diffUri(diffId: number, side: 'before' | 'after', name: string): vscode.Uri {
  const label = name === WHOLE_PROMPT ? 'System Prompt' : name.replace(/[/\\]/g, '∕');
  return vscode.Uri.from({
    scheme: SCHEME,
    path: `/diff/${diffId}/${side}/${label}.md`,
    query: new URLSearchParams({ name }).toString(),
  });
}

export class VirtualDocuments implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.changed.event;
  private previews = new Map<string, string>();
  private previewCounter = 0;
  private subscription: { dispose(): void };

  constructor(private readonly store: ContextStore) {
    let lastPrompt = store.prompt;
    let lastRequest = store.request;
    this.subscription = store.onDidChange(() => {
      if (store.prompt !== lastPrompt) {
        lastPrompt = store.prompt;
        this.changed.fire(SYSTEM_PROMPT_URI);
      }
      if (store.request !== lastRequest) {
        lastRequest = store.request;
        this.changed.fire(REQUEST_URI);
      }
    });
  }

  /** A new read-only document holding `text` (a summary preview); returns its URI. */
  addPreview(title: string, text: string): vscode.Uri {
    const id = ++this.previewCounter;
    const uri = vscode.Uri.from({ scheme: SCHEME, path: `/preview/${id}/${title}.md` });
    this.previews.set(uri.toString(), text);
    return uri;
  }

  /** Replace a preview's text (the outcome of the user's decision) and tell open editors. */
  updatePreview(uri: vscode.Uri, text: string): void {
    if (this.previews.has(uri.toString())) {
      this.previews.set(uri.toString(), text);
      this.changed.fire(uri);
    }
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    if (uri.path === SYSTEM_PROMPT_URI.path) {
      return this.store.prompt?.rendered ?? '(The pi-context server has not assembled the prompt yet.)';
    }
    if (uri.path === REQUEST_URI.path) {
      return this.store.request ? requestMarkdown(this.store.request) : '(No session selected, or no projection yet.)';
    }
    const preview = this.previews.get(uri.toString());
    if (preview !== undefined) {
      return preview;
    }
    const diff = /^\/diff\/(\d+)\/(before|after)\//.exec(uri.path);
    if (diff) {
      const record = this.store.diffById(Number(diff[1]));
      const name = new URLSearchParams(uri.query).get('name') ?? '';
      const side = diff[2] as 'before' | 'after';
      if (!record) {
        return '(This change is too old to show: only the last 20 are kept.)';
      }
      if (name === WHOLE_PROMPT) {
        return (side === 'before' ? record.renderedBefore : record.renderedAfter) ?? '';
      }
      const entry = record.entries.find((e) => e.name === name);
      return entry ? entry[side] : '';
    }
    return '';
  }

  dispose(): void {
    this.subscription.dispose();
    this.changed.dispose();
  }
}
