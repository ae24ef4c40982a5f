/**
 * The language server process and the client that talks to it: start (the user's own Python, or
 * the bundled server in its private environment, see `environment.ts`), restart, stop, the typed client every view and
 * command calls the server through (`client.generated.ts`), and long commands with a cancellable progress
 * notification fed by the server's `$/progress`.
 */
import { randomUUID } from 'node:crypto';
import * as os from 'node:os';
import * as readline from 'node:readline';
import * as vscode from 'vscode';
import {
  LanguageClient,
  type LanguageClientOptions,
  ResponseError,
  type ServerOptions,
  State,
  TransportKind,
  WorkDoneProgress,
  WorkDoneProgressCancelNotification,
} from 'vscode-languageclient/node';
import { type Bundle, ensureEnvironment, readBundle } from './environment';
import {
  expandSetting,
  installSourceSetting,
  ownInterpreterSetting,
  pythonExtensionInterpreter,
  resolveInterpreter,
  workspaceFolderPathSettings,
} from './interpreter';
import { isolatedEnv, pythonCandidates, versionMismatch } from './bundle';
import { checkServerInstalled, type InstallCheck, resolveCommand } from './python';
import { ServerLogReader } from './serverLog';
import { ProgressTracker } from './model/progress';
import {
  DEPRECATED_PYTHON_KEY,
  describeInterpreter,
  type InterpreterChoice,
  OWN_PYTHON_KEY,
  serverSettings,
} from './model/settings';
import type { ContextStore, ServerState } from './model/store';
import { type CommandOptions, PiContextClient } from './client.generated';
import type { SessionChangedParams } from './protocol.generated';
import { SESSIONS_VIEW_ID } from './sessions/provider';
import { VIEW_ID } from './sidebar/provider';
export const CLIENT_ID = 'piContext';

/** Each line of a stream (the server's stdout or stderr), as vscode-languageclient's own handlers read them. */
function lines(input: NodeJS.ReadableStream, each: (line: string) => void): void {
  readline.createInterface({ input, crlfDelay: Infinity, terminal: false, historySize: 0 }).on('line', each);
}
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

import { errorText } from './errorText';

export { errorText };

export function currentServerSettings(folder: vscode.WorkspaceFolder | undefined): ReturnType<typeof serverSettings> {
  const config = vscode.workspace.getConfiguration('piContext', folder?.uri);
  return serverSettings(
    (key) => config.get(key),
    (p) => expandSetting(p, folder),
  );
}

const USE_BUNDLED = 'Use Bundled Server';

/** Where the server runs: the interpreter, and the environment it is started with. */
interface Launch {
  python: string;
  /** Arguments before `-m lsp_server serve`. */
  flags: string[];
  env: NodeJS.ProcessEnv;
  interpreter: InterpreterChoice;
}

/**
 * The bundled server runs isolated (`-I`: no working directory on `sys.path`, no `PYTHON*`
 * variables, no user site) and unbuffered: a repository holding a folder named `lsp_server` must not
 * replace the server the extension installed. (Python 3.11+, which the bundle requires, has `-I`.)
 */
const BUNDLED_FLAGS = ['-I', '-u'];

/**
 * A user's own installation keeps its `PYTHON*` variables (a checkout on `PYTHONPATH` is a way to run
 * one) but not the working directory on `sys.path` (`-P`, Python 3.11+ like pi-context itself): the
 * server runs in the workspace folder, and a repository's `lsp_server` folder must not be imported.
 */
const OWN_FLAGS = ['-P'];

/**
 * Clears `piContext.server.python` and its deprecated first name `piContext.python` (user settings):
 * the configuration listener restarts the server.
 */
async function useBundled(): Promise<void> {
  const config = vscode.workspace.getConfiguration('piContext');
  for (const key of [OWN_PYTHON_KEY, DEPRECATED_PYTHON_KEY]) {
    await config.update(key, undefined, vscode.ConfigurationTarget.Global);
  }
}

export class ServerManager implements vscode.Disposable {
  private client: LanguageClient | undefined;
  /** The typed client over `client` (one per language client: its notification handlers are the client library's). */
  private api: PiContextClient | undefined;
  private starting: Promise<void> | undefined;
  /** The next start makes the bundled server's environment again (the Install command). */
  private reinstall = false;
  private disposables: vscode.Disposable[] = [];
  interpreter: InterpreterChoice | undefined;
  version: string | undefined;
  lastCheck: InstallCheck | undefined;
  /** The typed client while the server runs, or undefined when it stopped: for the chat view, which sends its own requests. */
  private readonly clientEmitter = new vscode.EventEmitter<PiContextClient | undefined>();
  readonly onDidChangeClient = this.clientEmitter.event;
  /** Every `pi/sessionChanged` (the client library keeps one handler per notification: this is it). */
  private readonly sessionEmitter = new vscode.EventEmitter<SessionChangedParams>();
  readonly onSessionChanged = this.sessionEmitter.event;

  constructor(
    private readonly log: vscode.LogOutputChannel,
    private readonly store: ContextStore,
    private readonly folder: () => vscode.WorkspaceFolder | undefined,
    private readonly context: Pick<vscode.ExtensionContext, 'extensionUri' | 'globalStorageUri' | 'extension'>,
  ) {}

  get running(): boolean {
    return this.client?.state === State.Running;
  }

  /** The typed client while the server runs. */
  get runningClient(): PiContextClient | undefined {
    return this.running ? this.api : undefined;
  }

  /**
   * Starts the server once (concurrent calls share the start). The first start can take a while
   * (finding Python, the first environment, importing the server), so both views show a progress bar
   * and the Context view says which step it is on.
   */
  start(): Promise<void> {
    this.starting ??= this.withViewProgress(() => this.doStart()).finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  private withViewProgress(work: () => Promise<void>): Promise<void> {
    const onView = (viewId: string, task: () => Promise<void>): Thenable<void> =>
      vscode.window.withProgress({ location: { viewId } }, task);
    let done!: () => void;
    const finished = new Promise<void>((resolve) => {
      done = resolve;
    });
    void onView(SESSIONS_VIEW_ID, () => finished);
    return Promise.resolve(onView(VIEW_ID, work)).finally(done);
  }

  private progress(message: string): void {
    this.setState({ state: 'starting', message });
  }

  /** The store's state, and a context key for the Sessions view's welcome text. */
  private setState(state: ServerState): void {
    this.store.setServerState(state);
    void vscode.commands.executeCommand('setContext', 'piContext.serverState', state.state);
  }

  /**
   * A start in progress (the first environment can take a while) is let finish first: `start()` would
   * otherwise hand back that start, made with the settings of before. The new start reads the settings again.
   */
  async restart(): Promise<void> {
    await this.starting?.catch(() => {});
    await this.stop();
    await this.start();
  }

  async stop(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.api = undefined;
    this.store.attach(null);
    this.clientEmitter.fire(undefined);
    for (const d of this.disposables.splice(0)) {
      d.dispose();
    }
    if (client) {
      // A client whose start failed (or is still starting) refuses to stop, and dispose() stops it again:
      // both are let fail (the process is ended either way), so a restart goes on to start.
      try {
        await client.stop(5000);
      } catch (e) {
        this.log.warn(`stopping the server: ${errorText(e)}`);
      }
      try {
        await client.dispose();
      } catch (e) {
        this.log.debug(`disposing the client: ${errorText(e)}`);
      }
    }
    this.setState({ state: 'stopped', message: 'The server is stopped.' });
  }

  /** A start that cannot throw: whatever goes wrong ends in the failed state with its message, and in the log. */
  private async doStart(): Promise<void> {
    try {
      await this.launch();
    } catch (e) {
      const message = `The server did not start: ${errorText(e)}`;
      this.log.error(message);
      this.setState({ state: 'failed', message });
    }
  }

  private async launch(): Promise<void> {
    const started = Date.now();
    const folder = this.folder();
    const force = this.reinstall;
    this.reinstall = false;
    const launch = await this.prepare(folder, force);
    if (!launch) {
      return;
    }
    const serverOptions: ServerOptions = {
      command: launch.python,
      args: [...launch.flags, '-m', 'lsp_server', 'serve'],
      transport: TransportKind.stdio,
      options: { cwd: folder?.uri.fsPath, env: { ...launch.env, PYTHONUNBUFFERED: '1' } },
    };
    const clientOptions: LanguageClientOptions = {
      documentSelector: DOCUMENT_SELECTOR,
      outputChannel: this.log,
      // The server's log lines at their own level (an INFO line is not an error): src/serverLog.ts.
      stdioOptions: {
        stdout: (input, channel) => lines(input, (line) => channel.info(line)),
        stderr: (input, channel) => {
          const reader = new ServerLogReader();
          lines(input, (line) => {
            const { level, text } = reader.line(line);
            channel[level](text);
          });
        },
      },
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
            const answers: unknown[] = raw;
            return params.items.map((item, i): unknown => {
              if (item.section !== CLIENT_ID) {
                return answers[i];
              }
              const scope = item.scopeUri ? vscode.workspace.getWorkspaceFolder(vscode.Uri.parse(item.scopeUri)) : folder;
              return currentServerSettings(scope ?? folder);
            });
          },
        },
      },
    };
    const client = new LanguageClient(CLIENT_ID, CLIENT_NAME, serverOptions, clientOptions);
    const api = new PiContextClient(client);
    // After a crash the client library starts the server again by itself (its default error handler, up
    // to 4 times in 3 minutes): Running -> Stopped -> Starting -> Running. The views follow it both ways.
    let lost = false;
    this.disposables.push(
      client.onDidChangeState((e) => {
        if (this.client !== client) {
          return;
        }
        if (e.newState === State.Stopped) {
          lost = true;
          this.store.attach(null);
          this.clientEmitter.fire(undefined);
          this.setState({ state: 'failed', message: 'The server stopped. See the Pi Context output.' });
        } else if (e.newState === State.Running && lost) {
          lost = false;
          this.version = client.initializeResult?.serverInfo?.version ?? this.version;
          this.log.info(`the server stopped and was started again (pi-context ${this.version ?? '?'})`);
          void this.attachClient(api);
        }
      }),
      api.onPromptSectionsChanged((params) => {
        void this.store.onSectionsChanged(params);
      }),
      api.onSessionChanged((params) => {
        void this.store.onSessionChanged(params);
        this.sessionEmitter.fire(params);
      }),
    );
    this.client = client;
    this.api = api;
    this.progress('Starting the pi-context language server…');
    try {
      await client.start();
    } catch (e) {
      this.log.error(`the server did not start: ${errorText(e)}`);
      this.setState({ state: 'failed', message: `The server did not start: ${errorText(e)}` });
      return;
    }
    const serverVersion = client.initializeResult?.serverInfo?.version;
    this.version = serverVersion ?? this.version;
    this.log.info(`server started in ${((Date.now() - started) / 1000).toFixed(1)} s (pi-context ${serverVersion ?? '?'})`);
    if (launch.interpreter.source === 'setting') {
      void this.checkVersion(serverVersion, launch.interpreter);
    }
    await this.attachClient(api);
  }

  /** A running client for the store (the sidebar, status bar and Sessions view) and the chat; then everything asked again. */
  private async attachClient(api: PiContextClient): Promise<void> {
    this.store.attach(api);
    this.setState({ state: 'running' });
    this.clientEmitter.fire(api);
    await this.store.refreshAll();
  }

  /**
   * Which Python runs the server: `piContext.server.python` (the user's own installation), else the
   * bundled server in its private environment (made on the first start), else, in a build without
   * a bundle, the Python extension's interpreter or `python3` with pi-context installed. Sets the
   * failed state and offers what can help when there is none; null then.
   */
  private async prepare(folder: vscode.WorkspaceFolder | undefined, force: boolean): Promise<Launch | null> {
    this.progress('Finding the Python that runs the pi-context language server…');
    const unexpanded = vscode.workspace.isTrusted ? [] : workspaceFolderPathSettings(folder);
    if (unexpanded.length > 0) {
      this.log.warn(
        `Restricted Mode: a path into the workspace (\${workspaceFolder} or a relative path) is not used in an untrusted workspace, so ${unexpanded.join(', ')} ` +
          'counts as empty until you trust the workspace (the bundled server, the bundled wheel, the default agent dir)',
      );
    }
    if (!vscode.workspace.isTrusted) {
      this.log.info("Restricted Mode: the Python extension's interpreter is not used (it may be the repository's own); a Python from PATH runs the server");
    }
    const own = ownInterpreterSetting(folder);
    const bundle = readBundle(this.context.extensionUri.fsPath);
    if (!own && bundle) {
      return this.prepareBundled(folder, bundle, force);
    }
    const interpreter: InterpreterChoice = own ? { command: own.command, source: 'setting', key: own.key } : await resolveInterpreter(folder);
    this.interpreter = interpreter;
    this.log.info(`interpreter: ${describeInterpreter(interpreter)}`);
    if (own && own.key === `piContext.${DEPRECATED_PYTHON_KEY}`) {
      this.log.warn(`piContext.python is deprecated: its value is used; move it to piContext.${OWN_PYTHON_KEY}`);
    }
    // Both the check and the server run in the workspace folder: a bare name is looked up on PATH first.
    const python = resolveCommand(interpreter.command);
    const check: InstallCheck = python
      ? await checkServerInstalled(python, folder?.uri.fsPath, undefined, OWN_FLAGS)
      : { ok: false, reason: 'no-python', detail: `${interpreter.command} is on no folder of PATH` };
    this.lastCheck = check;
    if (!check.ok) {
      this.log.error(check.detail);
      const message = this.failureText(check, interpreter, bundle !== null);
      this.setState({ state: 'failed', message });
      void this.offerHelp(message, check.reason === 'no-python', bundle !== null);
      return null;
    }
    this.version = check.version;
    this.log.info(`pi-context ${check.version}${python !== interpreter.command ? ` (${python})` : ''}`);
    return { python: python ?? interpreter.command, flags: OWN_FLAGS, env: process.env, interpreter };
  }

  private async prepareBundled(folder: vscode.WorkspaceFolder | undefined, bundle: Bundle, force: boolean): Promise<Launch | null> {
    const installSource = installSourceSetting(folder);
    const candidates = pythonCandidates(await pythonExtensionInterpreter(folder?.uri), process.platform === 'win32');
    const request = {
      bundle,
      storageDir: this.context.globalStorageUri.fsPath,
      installSource,
      candidates,
      log: this.log,
      // Not cancellable: a half-made environment is thrown away anyway, and a restart waits for it.
      token: { onCancellationRequested: () => ({ dispose() {} }) },
      progress: (message: string) => this.progress(message),
    };
    let result = await ensureEnvironment({ ...request, force });
    let check: InstallCheck | undefined;
    if (result.ok) {
      check = await checkServerInstalled(result.python, folder?.uri.fsPath, isolatedEnv(process.env, os.devNull), BUNDLED_FLAGS);
      if (!check.ok && !result.created) {
        // A reused environment that no longer works (its base Python was removed or upgraded): make it again.
        this.log.warn(`the bundled server's environment is broken (${check.detail}); creating it again`);
        result = await ensureEnvironment({ ...request, force: true });
        check = result.ok ? await checkServerInstalled(result.python, folder?.uri.fsPath, isolatedEnv(process.env, os.devNull), BUNDLED_FLAGS) : undefined;
      }
    }
    if (!result.ok || !check?.ok) {
      const message = !result.ok ? result.message : `The bundled server does not start: ${check && !check.ok ? check.detail : ''}`;
      this.log.error(message);
      this.setState({ state: 'failed', message });
      void this.offerHelp(message, !result.ok && result.reason === 'no-python', false);
      return null;
    }
    const what = installSource ? `pi-context ${check.version} from ${installSource}` : `pi-context ${check.version} (bundled)`;
    this.log.info(
      result.created
        ? `bundled server: environment created in ${result.seconds.toFixed(1)} s with Python ${result.marker.pythonVersion}: ${what}`
        : `bundled server: reusing its environment (Python ${result.marker.pythonVersion}, made in ${result.marker.seconds.toFixed(1)} s): ${what}`,
    );
    this.version = check.version;
    const interpreter: InterpreterChoice = { command: result.python, source: 'bundled' };
    this.interpreter = interpreter;
    this.progress('Starting the pi-context language server…');
    return { python: result.python, flags: BUNDLED_FLAGS, env: isolatedEnv(process.env, os.devNull), interpreter };
  }

  private failureText(check: Extract<InstallCheck, { ok: false }>, interpreter: InterpreterChoice, bundled: boolean): string {
    const instead = bundled ? ` Clear ${interpreter.key ?? `piContext.${OWN_PYTHON_KEY}`} to use the server bundled with the extension.` : '';
    switch (check.reason) {
      case 'no-python':
        return `Python was not found: ${describeInterpreter(interpreter)}.${instead || ` Set piContext.${OWN_PYTHON_KEY}.`}`;
      case 'not-installed':
        return interpreter.source === 'setting' || bundled
          ? `pi-context is not installed in ${describeInterpreter(interpreter)}.${instead}`
          : `This build of the extension carries no server, and pi-context is not installed in ${describeInterpreter(interpreter)}. ` +
              `Install the platform .vsix, or set piContext.${OWN_PYTHON_KEY} to a Python where pi-context is installed.`;
      default:
        return `pi-context cannot be imported in ${describeInterpreter(interpreter)}. See the Pi Context output.${instead}`;
    }
  }

  private async offerHelp(message: string, noPython: boolean, bundled: boolean): Promise<void> {
    const actions = [...(bundled ? [USE_BUNDLED] : []), 'Open Settings', ...(noPython ? [] : ['Show Log'])];
    if (vscode.extensions.getExtension('ms-python.python')) {
      actions.splice(bundled ? 1 : 0, 0, 'Select Interpreter');
    }
    const choice = await vscode.window.showWarningMessage(message, ...actions);
    if (choice === USE_BUNDLED) {
      await useBundled();
    } else if (choice === 'Select Interpreter') {
      await vscode.commands.executeCommand('python.setInterpreter');
    } else if (choice === 'Open Settings') {
      await vscode.commands.executeCommand('workbench.action.openSettings', `piContext.${OWN_PYTHON_KEY}`);
    } else if (choice === 'Show Log') {
      this.log.show();
    }
  }

  /** A user's own installation of another version: say so, and offer the bundled server. */
  private async checkVersion(serverVersion: string | undefined, interpreter: InterpreterChoice): Promise<void> {
    const version = (this.context.extension.packageJSON as { version?: unknown }).version;
    const extensionVersion = typeof version === 'string' ? version : '';
    const message = versionMismatch(serverVersion, extensionVersion, interpreter.command, interpreter.key);
    if (!message) {
      return;
    }
    this.log.warn(message);
    const bundled = readBundle(this.context.extensionUri.fsPath) !== null;
    const choice = await vscode.window.showWarningMessage(`Pi Context: ${message}`, ...(bundled ? [USE_BUNDLED] : []), 'Keep');
    if (choice === USE_BUNDLED) {
      await useBundled();
    }
  }

  /**
   * The Install command: makes the bundled server's environment again (with
   * `piContext.server.installSource` when set), offline, then restarts. Never asks a package index.
   */
  async install(): Promise<void> {
    if (!readBundle(this.context.extensionUri.fsPath)) {
      void vscode.window.showWarningMessage(
        'Pi Context: this build of the extension carries no server to install. Install the platform .vsix, ' +
          `or set piContext.${OWN_PYTHON_KEY} to a Python where pi-context is installed.`,
      );
      return;
    }
    this.reinstall = true;
    await this.restart();
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

  /**
   * A command of the typed client (`api.compact(args, options)`, ...) with our own work-done token: the server
   * reports `$/progress` on it (shown in `progress`), and cancelling `token` sends both
   * `window/workDoneProgress/cancel` and `$/cancelRequest`, so the server stops and writes nothing.
   */
  async runCommand<T>(
    run: (api: PiContextClient, options: CommandOptions) => Promise<T>,
    progress: vscode.Progress<{ message?: string; increment?: number }>,
    token: vscode.CancellationToken,
  ): Promise<T> {
    const client = this.client;
    const api = this.api;
    if (!client || !api || !this.running) {
      throw new Error('The pi-context server is not running.');
    }
    const workDoneToken = `pi-context-client/${randomUUID()}`;
    const tracker = new ProgressTracker();
    const listening = client.onProgress(WorkDoneProgress.type, workDoneToken, (value) => {
      const step = tracker.step(value);
      if (step) {
        progress.report(step);
      }
    });
    const cancelling = token.onCancellationRequested(() => {
      void client.sendNotification(WorkDoneProgressCancelNotification.type, { token: workDoneToken });
    });
    try {
      return await run(api, { token, workDoneToken });
    } finally {
      listening.dispose();
      cancelling.dispose();
    }
  }

  dispose(): void {
    void this.stop();
  }
}
