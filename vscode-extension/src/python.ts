/**
 * Running the user's Python: is pi-context importable there, and `pip install` it when it is not.
 * No VS Code API here, so the unit tests run these against real interpreters.
 */
import { execFile, spawn } from 'node:child_process';
import { pipInstallArgs } from './model/settings';

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
  log: LogSink,
  token: Cancellation,
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
