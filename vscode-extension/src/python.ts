/**
 * Running the user's Python: is pi-context importable there, which version is an interpreter, and
 * running a command (venv, pip) with its output in the log. No VS Code API here, so the unit tests
 * run these against real interpreters.
 */
import { execFile, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

export interface LogSink {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export interface Cancellation {
  onCancellationRequested(listener: () => void): { dispose(): void };
}

export type InstallCheck =
  | { ok: true; version: string }
  | { ok: false; reason: 'no-python' | 'not-installed' | 'broken'; detail: string };

/**
 * Runs `python <flags> -c "import lsp_server"`; never throws. The server passes the flags it starts
 * the server with (`-P`, `-I`), so the check imports what will run: without them the working
 * directory (a workspace, which may hold a folder named `lsp_server`) comes first on `sys.path`.
 */
export function checkServerInstalled(
  python: string,
  cwd?: string,
  env?: NodeJS.ProcessEnv,
  flags: string[] = [],
): Promise<InstallCheck> {
  return new Promise((resolve) => {
    execFile(
      python,
      [...flags, '-c', 'import sys, lsp_server; sys.stdout.write(lsp_server.__version__)'],
      { timeout: 60_000, cwd, env, windowsHide: true },
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

/** Runs a command with its output in the log; resolves to the exit code (-1 when it cannot start). */
export function runLogged(
  command: string,
  args: string[],
  log: LogSink,
  token: Cancellation,
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<number> {
  return new Promise((resolve) => {
    log.info(`${command} ${args.join(' ')}`);
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, windowsHide: true });
    const cancel = token.onCancellationRequested(() => child.kill());
    child.stdout.on('data', (d: Buffer) => log.info(d.toString().trimEnd()));
    child.stderr.on('data', (d: Buffer) => log.warn(d.toString().trimEnd()));
    child.on('error', (e) => {
      log.error(`${command} could not start: ${e.message}`);
      cancel.dispose();
      resolve(-1);
    });
    child.on('close', (code) => {
      cancel.dispose();
      resolve(code ?? -1);
    });
  });
}

export type PythonProbe = { ok: true; version: string; executable: string } | { ok: false; detail: string };

/** The version and real executable of `python` (`python3.11` on PATH, a venv, ...); never throws. */
export function probePython(python: string, env?: NodeJS.ProcessEnv): Promise<PythonProbe> {
  return new Promise((resolve) => {
    execFile(
      python,
      ['-c', 'import sys; print("%d.%d.%d" % sys.version_info[:3]); print(sys.executable)'],
      { timeout: 30_000, env, windowsHide: true },
      (error, stdout, stderr) => {
        if (error) {
          resolve({ ok: false, detail: (stderr || error.message).trim() });
          return;
        }
        const [version = '', executable = python] = stdout.trim().split(/\r?\n/);
        resolve({ ok: true, version: version.trim(), executable: executable.trim() || python });
      },
    );
  });
}

/**
 * The program to start for `command` when it will run in the workspace folder: a bare name (`python3`)
 * becomes the absolute path where it is on PATH, or null when it is on none. Node on Windows looks in the
 * working directory before PATH, so a `python3.exe` committed to a repository would run instead; PATH
 * entries that are not absolute (`.`, an empty one: the working directory again) are passed over for the
 * same reason. A path (absolute, or relative with a separator) is returned as it is.
 */
export function resolveCommand(command: string, env: NodeJS.ProcessEnv = process.env, platform: NodeJS.Platform = process.platform): string | null {
  const windows = platform === 'win32';
  if (path.isAbsolute(command) || command.includes('/') || (windows && command.includes('\\'))) {
    return command;
  }
  const key = Object.keys(env).find((k) => (windows ? k.toUpperCase() === 'PATH' : k === 'PATH'));
  const dirs = (key ? env[key] ?? '' : '').split(windows ? ';' : ':');
  const pathext = windows ? (env.PATHEXT ?? env.Pathext ?? '.COM;.EXE;.BAT;.CMD').split(';').filter(Boolean) : [];
  const names = windows && !pathext.some((ext) => command.toUpperCase().endsWith(ext.toUpperCase())) ? pathext.map((ext) => command + ext) : [command];
  for (const dir of dirs) {
    const clean = windows ? dir.replace(/^"(.*)"$/, '$1') : dir;
    if (!(windows ? path.win32.isAbsolute(clean) : path.posix.isAbsolute(clean))) {
      continue;
    }
    for (const name of names) {
      const candidate = path.join(clean, name);
      try {
        if (fs.statSync(candidate).isFile()) {
          if (!windows) {
            fs.accessSync(candidate, fs.constants.X_OK);
          }
          return candidate;
        }
      } catch {
        // not here (or not executable): the next one
      }
    }
  }
  return null;
}
