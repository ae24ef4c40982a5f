/**
 * Messages between the sidebar webview and the extension host. The webview is untrusted input:
 * `parseWebviewMessage` accepts only these shapes and drops everything else. The host only ever
 * posts a `SidebarView` (display data built by the view models), never settings or secrets.
 */
import type { BudgetView } from '../model/budget';
import type { EstimateChoice } from '../model/estimate';
import type { CostChartView } from '../model/ledger';
import type { NextRequestText } from '../model/nextRequest';
import type { RequestView } from '../model/requestMessages';
import type { SectionRow } from '../model/sections';
import { messageObject } from '../webviewMessage';

export type WebviewMessage =
  | { type: 'ready' }
  | { type: 'openSource'; path: string; uri: string | null }
  | { type: 'setEstimate'; choice: EstimateChoice }
  | { type: 'showSectionDiff'; name: string | null }
  | { type: 'showSystemPrompt' }
  | { type: 'showProjectedRequest' }
  | { type: 'showMessage'; index: number }
  | { type: 'compact' }
  | { type: 'refresh' }
  | { type: 'selectSession' }
  | { type: 'clearHighlights' }
  | { type: 'restartServer' }
  | { type: 'showOutput' }
  /** Make the chat's Pi take up the files as they are now (Reload Pi / Restart Pi in the Chat view). */
  | { type: 'reloadChat' };

const SIMPLE = new Set([
  'ready',
  'showSystemPrompt',
  'showProjectedRequest',
  'compact',
  'refresh',
  'selectSession',
  'clearHighlights',
  'restartServer',
  'showOutput',
  'reloadChat',
]);

const MAX_STRING = 4096;

export function parseWebviewMessage(raw: unknown): WebviewMessage | undefined {
  const m = messageObject(raw);
  if (m === undefined) {
    return undefined;
  }
  const type = m.type;
  if (SIMPLE.has(type)) {
    return { type } as WebviewMessage;
  }
  switch (type) {
    case 'openSource':
      if (isText(m.path) && (m.uri === undefined || m.uri === null || isText(m.uri))) {
        return { type, path: m.path, uri: m.uri ?? null };
      }
      return undefined;
    case 'setEstimate':
      return m.choice === 'pi' || m.choice === 'estimated' ? { type, choice: m.choice } : undefined;
    case 'showSectionDiff':
      if (m.name === undefined || m.name === null) {
        return { type, name: null };
      }
      return isText(m.name) ? { type, name: m.name } : undefined;
    case 'showMessage':
      return typeof m.index === 'number' && Number.isInteger(m.index) && m.index >= 0 ? { type, index: m.index } : undefined;
    default:
      return undefined;
  }
}

function isText(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= MAX_STRING;
}

/** What one part of the view shows when it has no data. */
export interface PartStatus {
  state: 'loading' | 'ready' | 'empty' | 'unavailable' | 'error';
  message?: string;
}

export interface ChangeSummary {
  diffId: number;
  triggerPaths: string[];
  totalDeltaLabel: string;
  changedCount: number;
  /** What the change costs new sessions (`cache` of the notification; docs/cost.md "What a save costs"). */
  newSessionsCost?: string | null;
  /** What Pi does with it in the selected session (`pi/turnLedger`'s `promptUpdate`). */
  sessionCost?: string | null;
  /** Both with their details, for the hover. */
  costTitle?: string;
  /** The session is open in a chat whose Pi does not hold the change yet: the button that makes it take it up. */
  liveAction?: { label: string; action: 'reload' | 'restart' } | null;
}

export interface SidebarView {
  server: { state: 'starting' | 'running' | 'stopped' | 'failed'; message?: string };
  folderName: string | null;
  sessionLabel: string | null;
  choice: EstimateChoice;
  /** What the budget's counts were made with (the prompt's estimator before there is a budget). */
  estimatorLabel: string | null;
  /** The sections' estimator, only when it is not the budget's (e.g. another model family). */
  sectionsEstimatorLabel: string | null;
  /** Why the budget's stored system prompt and the workspace's sections differ, and what Pi does. */
  promptOriginNote: string | null;
  budget: BudgetView | null;
  budgetStatus: PartStatus;
  sections: SectionRow[];
  sectionsStatus: PartStatus;
  promptTokens: number | null;
  /** Whether the project's .pi/ files count, and why (Pi's decision or the override). */
  trust: { trusted: boolean; reason: string | null } | null;
  /** Pi's warnings while loading the prompt's files. */
  promptWarnings: string[];
  lastChange: ChangeSummary | null;
  request: RequestView | null;
  requestStatus: PartStatus;
  /** The "Cost" chart from `pi/turnLedger` (absent: no session, or a server without the method). */
  cost?: CostChartView | null;
  costStatus?: PartStatus;
  /** The next request's price (`pi/turnLedger`'s `nextRequest`), shown under the projected request's title. */
  requestPrice?: NextRequestText | null;
}

export type HostMessage = { type: 'view'; view: SidebarView };

/**
 * Each webview message runs one extension command (the same ones the palette and toolbar run), so
 * the webview can do nothing a user could not do from the palette. `ready` only asks for the view.
 */
export function commandFor(message: WebviewMessage): { command: string; args: unknown[] } | null {
  switch (message.type) {
    case 'ready':
      return null;
    case 'openSource':
      return { command: 'piContext.openSource', args: [message.path, message.uri] };
    case 'setEstimate':
      return { command: 'piContext.setEstimate', args: [message.choice] };
    case 'showSectionDiff':
      return { command: 'piContext.showSectionDiff', args: message.name === null ? [] : [null, message.name] };
    case 'showSystemPrompt':
      return { command: 'piContext.showSystemPrompt', args: [] };
    case 'showProjectedRequest':
      return { command: 'piContext.showProjectedRequest', args: [] };
    case 'showMessage':
      return { command: 'piContext.showProjectedRequest', args: [message.index] };
    case 'compact':
      return { command: 'piContext.compact', args: [] };
    case 'refresh':
      return { command: 'piContext.refresh', args: [] };
    case 'selectSession':
      return { command: 'piContext.selectSession', args: [] };
    case 'clearHighlights':
      return { command: 'piContext.clearHighlights', args: [] };
    case 'restartServer':
      return { command: 'piContext.restartServer', args: [] };
    case 'showOutput':
      return { command: 'piContext.showOutput', args: [] };
    case 'reloadChat':
      return { command: 'piContext.chat.reload', args: [] };
  }
}
