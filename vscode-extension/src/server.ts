/**
 * The language server process and the client that talks to it: start (after finding the
 * interpreter and checking the install), restart, stop, the custom requests as a `ServerApi`, and
 * long commands with a cancellable progress notification fed by the server's `$/progress`.
 */
import { randomUUID } from 'node:crypto';
import * as os from 'node:os';
import * as vscode from 'vscode';
import {
  ExecuteCommandRequest,
  LanguageClient,
  type LanguageClientOptions,
  ResponseError,
  type ServerOptions,
  State,
  TransportKind,
  WorkDoneProgress,
  WorkDoneProgressCancelNotification,
} from 'vscode-languageclient/node';
import { resolveInterpreter } from './interpreter';
import { checkServerInstalled, type InstallCheck, pipInstall } from './python';
import { ProgressTracker, type WorkDoneValue } from './model/progress';
import { describeInterpreter, expandPath, type InterpreterChoice, serverSettings } from './model/settings';
import type { ContextStore, ServerApi } from './model/store';
import {
  type ContextBudgetParams,
  type ContextBudgetResult,
  Methods,
  type ProjectedRequestResult,
  type PromptSectionsChangedParams,
  type SessionRef,
  type SessionsParams,
  type SessionChangedParams,
  type SessionsResult,
  type SessionTreeResult,
  type SystemPromptParams,
  type SystemPromptResult,
  type TurnLedgerParams,
  type TurnLedgerResult,
} from './protocol.generated';

export const CLIENT_ID = 'piContext';
const CLIENT_NAME = 'Pi Context';

/**
 * The files the server works on: skills, context files, prompt files, Pi settings. By file name
 * only: VS Code 1.100+ gives SKILL.md and AGENTS.md their own language ids (`skill`, `instructions`)
 * instead of `markdown`, so a language filter would miss them.
 */
export const DOCUMENT_SELECTOR = [
  { scheme: 'file', pattern: '**/SKILL.md' },
  { scheme: 'file', pattern: '**/AGENTS*.md' },
  { scheme: 'file', pattern: '**/CLAUDE*.md' },
  { scheme: 'file', pattern: '**/SYSTEM.md' },
  { scheme: 'file', pattern: '**/APPEND_SYSTEM.md' },
  { scheme: 'file', pattern: '**/.pi/**/settings.json' },
];

/** JSON-RPC RequestCancelled: the server stopped the work and wrote nothing. */
export const REQUEST_CANCELLED = -32800;

export function isCancelled(error: unknown): boolean {
  return error instanceof vscode.CancellationError || (error instanceof ResponseError && error.code === REQUEST_CANCELLED);
}

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export function currentServerSettings(folder: vscode.WorkspaceFolder | undefined): ReturnType<typeof serverSettings> {
  const config = vscode.workspace.getConfiguration('piContext', folder?.uri);
  return serverSettings(
    (key) => config.get(key),
    (p) => expandPath(p, os.homedir(), folder?.uri.fsPath ?? null),
  );
}

export class ServerManager implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private starting: Promise<void> | undefined;
  private disposables: vscode.Disposable[] = [];
  interpreter: InterpreterChoice | undefined;
  version: string | undefined;
  lastCheck: InstallCheck | undefined;
  /** The running client, or undefined when the server stopped: for the chat view, which sends its own requests. */
  private readonly clientEmitter = new vscode.EventEmitter<LanguageClient | undefined>();
  readonly onDidChangeClient = this.clientEmitter.event;
  /** Every `pi/sessionChanged` (the client library keeps one handler per notification: this is it). */
  private readonly sessionEmitter = new vscode.EventEmitter<SessionChangedParams>();
  readonly onSessionChanged = this.sessionEmitter.event;

  constructor(
    private readonly log: vscode.LogOutputChannel,
    private readonly store: ContextStore,
    private readonly folder: () => vscode.WorkspaceFolder | undefined,
  ) {}

  get running(): boolean {
    return this.client?.state === State.Running;
  }

  /** The client while the server runs. */
  get runningClient(): LanguageClient | undefined {
    return this.running ? this.client : undefined;
  }

  start(): Promise<void> {
    this.starting ??= this.doStart().finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.store.attach(null);
    this.clientEmitter.fire(undefined);
    for (const d of this.disposables.splice(0)) {
      d.dispose();
    }
    if (client) {
      try {
        await client.stop(5000);
      } catch (e) {
        this.log.warn(`stopping the server: ${errorText(e)}`);
      }
      await client.dispose();
    }
    this.store.setServerState({ state: 'stopped', message: 'The server is stopped.' });
  }

  private async doStart(): Promise<void> {
    const folder = this.folder();
    this.store.setServerState({ state: 'starting' });
    const interpreter = await resolveInterpreter(folder);
    this.interpreter = interpreter;
    this.log.info(`interpreter: ${describeInterpreter(interpreter)}`);
    const check = await checkServerInstalled(interpreter.command, folder?.uri.fsPath);
    this.lastCheck = check;
    if (!check.ok) {
      this.log.error(check.detail);
      this.store.setServerState({ state: 'failed', message: this.failureText(check, interpreter) });
      void this.offerInstall(check, interpreter);
      return;
    }
    this.version = check.version;
    this.log.info(`pi-context ${check.version}`);

    const serverOptions: ServerOptions = {
      command: interpreter.command,
      args: ['-m', 'lsp_server', 'serve'],
      transport: TransportKind.stdio,
      options: { cwd: folder?.uri.fsPath, env: { ...process.env, PYTHONUNBUFFERED: '1' } },
    };
    const clientOptions: LanguageClientOptions = {
      documentSelector: DOCUMENT_SELECTOR,
      outputChannel: this.log,
      initializationOptions: { piContext: currentServerSettings(folder) },
      middleware: {
        workspace: {
          // When the server registers for configuration changes, the client library would push the raw
          // VS Code section (client-only keys, empty strings). We push the server's shape ourselves
          // (`pushSettings`, on every change of `piContext.*`), so the library's push is dropped.
          didChangeConfiguration: async () => {},
          // Answer `workspace/configuration` for our section with the server's shape only.
          configuration: async (params, token, next) => {
            const raw = await next(params, token);
            if (!Array.isArray(raw)) {
              return raw;
            }
            return params.items.map((item, i) => {
              if (item.section !== CLIENT_ID) {
                return raw[i];
              }
              const scope = item.scopeUri ? vscode.workspace.getWorkspaceFolder(vscode.Uri.parse(item.scopeUri)) : folder;
              return currentServerSettings(scope ?? folder);
            });
          },
        },
      },
    };
    const client = new LanguageClient(CLIENT_ID, CLIENT_NAME, serverOptions, clientOptions);
    this.disposables.push(
      client.onDidChangeState((e) => {
        if (e.newState === State.Stopped && this.client === client) {
          this.store.attach(null);
          this.clientEmitter.fire(undefined);
          this.store.setServerState({ state: 'failed', message: 'The server stopped. See the Pi Context output.' });
        }
      }),
      client.onNotification(Methods.PROMPT_SECTIONS_CHANGED, (params: PromptSectionsChangedParams) => {
        void this.store.onSectionsChanged(params);
      }),
      client.onNotification(Methods.SESSION_CHANGED, (params: SessionChangedParams) => {
        void this.store.onSessionChanged(params);
        this.sessionEmitter.fire(params);
      }),
    );
    this.client = client;
    try {
      await client.start();
    } catch (e) {
      this.log.error(`the server did not start: ${errorText(e)}`);
      this.store.setServerState({ state: 'failed', message: `The server did not start: ${errorText(e)}` });
      return;
    }
    this.store.attach(this.api(client));
    this.store.setServerState({ state: 'running' });
    this.clientEmitter.fire(client);
    await this.store.refreshAll();
  }

  private failureText(check: Extract<InstallCheck, { ok: false }>, interpreter: InterpreterChoice): string {
    switch (check.reason) {
      case 'no-python':
        return `Python was not found: ${describeInterpreter(interpreter)}. Set piContext.python.`;
      case 'not-installed':
        return `pi-context is not installed in ${describeInterpreter(interpreter)}.`;
      default:
        return `pi-context cannot be imported in ${describeInterpreter(interpreter)}. See the Pi Context output.`;
    }
  }

  private async offerInstall(check: Extract<InstallCheck, { ok: false }>, interpreter: InterpreterChoice): Promise<void> {
    const actions = check.reason === 'no-python' ? ['Open Settings'] : ['Install', 'Open Settings', 'Show Log'];
    if (vscode.extensions.getExtension('ms-python.python')) {
      actions.splice(1, 0, 'Select Interpreter');
    }
    const choice = await vscode.window.showWarningMessage(this.failureText(check, interpreter), ...actions);
    if (choice === 'Install') {
      await this.install();
    } else if (choice === 'Select Interpreter') {
      await vscode.commands.executeCommand('python.setInterpreter');
    } else if (choice === 'Open Settings') {
      await vscode.commands.executeCommand('workbench.action.openSettings', 'piContext.python');
    } else if (choice === 'Show Log') {
      this.log.show();
    }
  }

  /** pip-install pi-context into the interpreter (from `piContext.server.installSource`), then start. */
  async install(): Promise<void> {
    const folder = this.folder();
    const interpreter = this.interpreter ?? (await resolveInterpreter(folder));
    const raw = vscode.workspace.getConfiguration('piContext', folder?.uri).get<string>('server.installSource') ?? '';
    const source = raw.trim() ? expandPath(raw.trim(), os.homedir(), folder?.uri.fsPath ?? null) : null;
    const code = await vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: `Pi Context: installing ${source ?? 'pi-context'} into ${interpreter.command}`,
        cancellable: true,
      },
      (_progress, token) => pipInstall(interpreter.command, source, this.log, token, folder?.uri.fsPath),
    );
    if (code === 0) {
      await this.restart();
      return;
    }
    const choice = await vscode.window.showErrorMessage(
      `Installing pi-context failed (pip exit code ${code}). The log has pip's output.`,
      'Show Log',
    );
    if (choice === 'Show Log') {
      this.log.show();
    }
  }

  /** Push the settings to the running server (they also answer its `workspace/configuration`). */
  async pushSettings(): Promise<void> {
    if (!this.client || !this.running) {
      return;
    }
    await this.client.sendNotification('workspace/didChangeConfiguration', {
      settings: { [CLIENT_ID]: currentServerSettings(this.folder()) },
    });
  }

  private api(client: LanguageClient): ServerApi {
    return {
      systemPrompt: (p: SystemPromptParams) => client.sendRequest<SystemPromptResult>(Methods.SYSTEM_PROMPT, p),
      contextBudget: (p: ContextBudgetParams) => client.sendRequest<ContextBudgetResult>(Methods.CONTEXT_BUDGET, p),
      projectedRequest: (p: SessionRef) => client.sendRequest<ProjectedRequestResult>(Methods.PROJECTED_REQUEST, p),
      sessions: (p: SessionsParams) => client.sendRequest<SessionsResult>(Methods.SESSIONS, p),
      sessionTree: (p: SessionRef) => client.sendRequest<SessionTreeResult>(Methods.SESSION_TREE, p),
      turnLedger: (p: TurnLedgerParams) => client.sendRequest<TurnLedgerResult>(Methods.TURN_LEDGER, p),
    };
  }

  /**
   * `workspace/executeCommand` with our own work-done token: the server reports `$/progress` on it
   * (shown in `progress`), and cancelling `token` sends both `window/workDoneProgress/cancel` and
   * `$/cancelRequest`, so the server stops and writes nothing.
   */
  async executeCommand<T>(
    command: string,
    args: unknown,
    progress: vscode.Progress<{ message?: string; increment?: number }>,
    token: vscode.CancellationToken,
  ): Promise<T> {
    const client = this.client;
    if (!client || !this.running) {
      throw new Error('The pi-context server is not running.');
    }
    const workDoneToken = `pi-context-client/${randomUUID()}`;
    const tracker = new ProgressTracker();
    const listening = client.onProgress(WorkDoneProgress.type, workDoneToken, (value) => {
      const step = tracker.step(value as WorkDoneValue);
      if (step) {
        progress.report(step);
      }
    });
    const cancelling = token.onCancellationRequested(() => {
      void client.sendNotification(WorkDoneProgressCancelNotification.type, { token: workDoneToken });
    });
    try {
      return (await client.sendRequest(
        ExecuteCommandRequest.type,
        { command, arguments: [args], workDoneToken },
        token,
      )) as T;
    } finally {
      listening.dispose();
      cancelling.dispose();
    }
  }

  dispose(): void {
    void this.stop();
  }
}
