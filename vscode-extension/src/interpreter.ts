/**
 * Finding the Python that runs the server, and checking that pi-context is installed there.
 * Order: `piContext.python`, else the Python extension's active interpreter (its API is used only
 * when that extension happens to be installed; it is not a dependency), else `python3` on PATH.
 */
import { execFile, spawn } from 'node:child_process';
import * as os from 'node:os';
import * as vscode from 'vscode';
import { chooseInterpreter, expandPath, type InterpreterChoice, pipInstallArgs } from './model/settings';

interface PythonEnvironmentsApi {
  getActiveEnvironmentPath(resource?: vscode.Uri): { path: string } | undefined;
  resolveEnvironment(path: { path: string } | string): Promise<{ executable?: { uri?: vscode.Uri } } | undefined>;
  onDidChangeActiveEnvironmentPath?: vscode.Event<unknown>;
}

interface PythonExtensionApi {
  environments?: PythonEnvironmentsApi;
}

async function pythonExtensionApi(): Promise<PythonExtensionApi | undefined> {
  const ext = vscode.extensions.getExtension<PythonExtensionApi>('ms-python.python');
  if (!ext) {
    return undefined;
  }
  try {
    return ext.isActive ? ext.exports : await ext.activate();
  } catch {
    return undefined;
  }
}

/** The Python extension's active interpreter for `resource`, when that extension is installed. */
export async function pythonExtensionInterpreter(resource?: vscode.Uri): Promise<string | null> {
  const envs = (await pythonExtensionApi())?.environments;
  if (!envs) {
    return null;
  }
  try {
    const active = envs.getActiveEnvironmentPath(resource);
    if (!active) {
      return null;
    }
    const resolved = await envs.resolveEnvironment(active);
    return resolved?.executable?.uri?.fsPath ?? active.path ?? null;
  } catch {
    return null;
  }
}

/** Fires when the user picks another interpreter in the Python extension (nothing when it is absent). */
export async function onPythonInterpreterChange(listener: () => void): Promise<vscode.Disposable | undefined> {
  const event = (await pythonExtensionApi())?.environments?.onDidChangeActiveEnvironmentPath;
  return event ? event(() => listener()) : undefined;
}

export async function resolveInterpreter(folder: vscode.WorkspaceFolder | undefined): Promise<InterpreterChoice> {
  const raw = vscode.workspace.getConfiguration('piContext', folder?.uri).get<string>('python') ?? '';
  const setting = raw.trim() ? expandPath(raw.trim(), os.homedir(), folder?.uri.fsPath ?? null) : null;
  const fromExtension = setting ? null : await pythonExtensionInterpreter(folder?.uri);
  return chooseInterpreter(setting, fromExtension);
}

export type InstallCheck =
  | { ok: true; version: string }
  | { ok: false; reason: 'no-python' | 'not-installed' | 'broken'; detail: string };

/** Runs `python -c "import lsp_server"`; never throws. */
export function checkServerInstalled(python: string, cwd?: string): Promise<InstallCheck> {
  return new Promise((resolve) => {
    execFile(
      python,
      ['-c', 'import sys, lsp_server; sys.stdout.write(lsp_server.__version__)'],
      { timeout: 60_000, cwd, windowsHide: true },
      (error, stdout, stderr) => {
        if (!error) {
          resolve({ ok: true, version: stdout.trim() });
          return;
        }
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ENOENT' || code === 'EACCES') {
          resolve({ ok: false, reason: 'no-python', detail: `cannot run ${python}: ${error.message}` });
        } else if (/ModuleNotFoundError: No module named 'lsp_server'/.test(stderr)) {
          resolve({ ok: false, reason: 'not-installed', detail: stderr.trim() });
        } else {
          resolve({ ok: false, reason: 'broken', detail: (stderr || error.message).trim() });
        }
      },
    );
  });
}

/** `python -m pip install --upgrade <source>`, its output in the log; resolves to the exit code. */
export function pipInstall(
  python: string,
  source: string | null,
  log: vscode.LogOutputChannel,
  token: vscode.CancellationToken,
  cwd?: string,
): Promise<number> {
  return new Promise((resolve) => {
    const args = pipInstallArgs(source);
    log.info(`${python} ${args.join(' ')}`);
    const child = spawn(python, args, { cwd, windowsHide: true });
    const cancel = token.onCancellationRequested(() => child.kill());
    child.stdout.on('data', (d: Buffer) => log.info(d.toString().trimEnd()));
    child.stderr.on('data', (d: Buffer) => log.warn(d.toString().trimEnd()));
    child.on('error', (e) => {
      log.error(`pip could not start: ${e.message}`);
      cancel.dispose();
      resolve(-1);
    });
    child.on('close', (code) => {
      cancel.dispose();
      resolve(code ?? -1);
    });
  });
}
