/**
 * Finding the Python that runs the server. `piContext.server.python` (or its deprecated first name
 * `piContext.python`) is the user's own installation; without
 * it the bundled server runs in its own environment, made with the Python extension's active
 * interpreter when there is one (its API is used only when that extension happens to be installed;
 * it is not a dependency), else python3.11+ on PATH. A build without a bundle falls back to the
 * Python extension's interpreter, else `python3` on PATH, with pi-context installed there.
 */
import * as os from 'node:os';
import * as vscode from 'vscode';
import { chooseInterpreter, expandPath, type InterpreterChoice, ownPythonSetting } from './model/settings';

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

/** The user's own Python, expanded, and the key that named it; null when empty: the bundled server runs. */
export interface OwnInterpreter {
  command: string;
  key: string;
}

/**
 * `piContext.server.python`, else the deprecated `piContext.python` (user or remote machine settings
 * only: both are machine-scoped), expanded; null when both are empty.
 */
export function ownInterpreterSetting(folder: vscode.WorkspaceFolder | undefined): OwnInterpreter | null {
  const config = vscode.workspace.getConfiguration('piContext', folder?.uri);
  const own = ownPythonSetting((key) => config.get(key));
  return own ? { command: expandPath(own.value, os.homedir(), folder?.uri.fsPath ?? null), key: own.key } : null;
}

/** `piContext.server.installSource`, expanded; null when empty: the bundled wheel is installed. */
export function installSourceSetting(folder: vscode.WorkspaceFolder | undefined): string | null {
  const raw = vscode.workspace.getConfiguration('piContext', folder?.uri).get<string>('server.installSource') ?? '';
  return raw.trim() ? expandPath(raw.trim(), os.homedir(), folder?.uri.fsPath ?? null) : null;
}

export async function resolveInterpreter(folder: vscode.WorkspaceFolder | undefined): Promise<InterpreterChoice> {
  const setting = ownInterpreterSetting(folder);
  const fromExtension = setting ? null : await pythonExtensionInterpreter(folder?.uri);
  return chooseInterpreter(setting?.command ?? null, fromExtension, setting?.key);
}
