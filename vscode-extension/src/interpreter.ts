/**
 * Finding the Python that runs the server. `piContext.server.python` (or its deprecated first name
 * `piContext.python`) is the user's own installation; without
 * it the bundled server runs in its own environment, made with the Python extension's active
 * interpreter when there is one (its API, typed and reached through `@vscode/python-extension`, is used
 * only when that extension happens to be installed; it is not an extension dependency), else python3.11+ on PATH. A build without a bundle falls back to the
 * Python extension's interpreter, else `python3` on PATH, with pi-context installed there.
 */
import * as os from 'node:os';
import { PVSC_EXTENSION_ID, PythonExtension } from '@vscode/python-extension';
import * as vscode from 'vscode';
import { chooseInterpreter, expandUserPath, type InterpreterChoice, ownPythonSetting, usesWorkspaceFolder } from './model/settings';

/**
 * The Python extension's API (`@vscode/python-extension`: its published types and the call that activates it),
 * or undefined when that extension is not installed, is disabled or fails to activate.
 */
async function pythonExtensionApi(): Promise<PythonExtension | undefined> {
  if (!vscode.extensions.getExtension(PVSC_EXTENSION_ID)) {
    return undefined; // PythonExtension.api() would throw: the usual case, not an error
  }
  try {
    return await PythonExtension.api();
  } catch {
    return undefined;
  }
}

/**
 * The Python extension's active interpreter for `resource`, when that extension is installed and the
 * workspace is trusted. In Restricted Mode it is not asked at all: the interpreter it reports is often the
 * repository's own (`.venv/bin/python`, or what `python.defaultInterpreterPath` in the repository's
 * settings names), and running it, even for a version probe, runs the repository's code before the user
 * trusted it. The bundled server then uses a Python from PATH (`pythonCandidates`).
 */
export async function pythonExtensionInterpreter(resource?: vscode.Uri, trusted: boolean = vscode.workspace.isTrusted): Promise<string | null> {
  if (!trusted) {
    return null;
  }
  // `?.`: an old Python extension (or a broken one) may export no environments API despite the published types.
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
    return resolved?.executable.uri?.fsPath ?? active.path;
  } catch {
    return null;
  }
}

/** Fires when the user picks another interpreter in the Python extension (nothing when it is absent). */
export async function onPythonInterpreterChange(listener: () => void): Promise<vscode.Disposable | undefined> {
  const envs = (await pythonExtensionApi())?.environments;
  const event = envs?.onDidChangeActiveEnvironmentPath;
  return event ? event(() => listener()) : undefined;
}

/** The user's own Python, expanded, and the key that named it; null when empty: the bundled server runs. */
export interface OwnInterpreter {
  command: string;
  key: string;
}

/** A path setting expanded; null in an untrusted workspace when it names `${workspaceFolder}` (`expandUserPath`). */
export function expandSetting(value: string, folder: vscode.WorkspaceFolder | undefined): string | null {
  return expandUserPath(value, os.homedir(), folder?.uri.fsPath ?? null, vscode.workspace.isTrusted);
}

/**
 * `piContext.server.python`, else the deprecated `piContext.python` (user or remote machine settings
 * only: both are machine-scoped), expanded; null when both are empty, or in an untrusted workspace
 * when it names `${workspaceFolder}` (the bundled server runs).
 */
export function ownInterpreterSetting(folder: vscode.WorkspaceFolder | undefined): OwnInterpreter | null {
  const config = vscode.workspace.getConfiguration('piContext', folder?.uri);
  const own = ownPythonSetting((key) => config.get(key));
  const command = own ? expandSetting(own.value, folder) : null;
  return own && command ? { command, key: own.key } : null;
}

/**
 * `piContext.server.installSource`, expanded; null when empty, or in an untrusted workspace when it
 * names `${workspaceFolder}`: the bundled wheel is installed.
 */
export function installSourceSetting(folder: vscode.WorkspaceFolder | undefined): string | null {
  const raw = vscode.workspace.getConfiguration('piContext', folder?.uri).get<string>('server.installSource') ?? '';
  return raw.trim() ? expandSetting(raw.trim(), folder) : null;
}

/** The path settings where `${workspaceFolder}` is expanded only in a trusted workspace. */
const WORKSPACE_PATH_KEYS = ['server.python', 'python', 'server.installSource', 'agentDir'] as const;

/** Those of them (with the prefix) whose value names `${workspaceFolder}`. */
export function workspaceFolderPathSettings(folder: vscode.WorkspaceFolder | undefined): string[] {
  const config = vscode.workspace.getConfiguration('piContext', folder?.uri);
  return WORKSPACE_PATH_KEYS.filter((key) => {
    const value = config.get<unknown>(key);
    return typeof value === 'string' && usesWorkspaceFolder(value);
  }).map((key) => `piContext.${key}`);
}

export async function resolveInterpreter(folder: vscode.WorkspaceFolder | undefined): Promise<InterpreterChoice> {
  const setting = ownInterpreterSetting(folder);
  const fromExtension = setting ? null : await pythonExtensionInterpreter(folder?.uri);
  return chooseInterpreter(setting?.command ?? null, fromExtension, setting?.key);
}
