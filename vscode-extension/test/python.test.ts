import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { checkServerInstalled, probePython, resolveCommand, runLogged } from '../src/python';

// pytest runs these tests (tests/extension/test_typescript.py) with the checkout on PYTHONPATH: the Pythons
// started here must not import its lsp_server instead of the one each test puts in place.
delete process.env.PYTHONPATH;

/** A folder holding a package named lsp_server; `python -c` imports from its working directory. */
function fakeInstall(init: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'pi-context-python-'));
  mkdirSync(join(dir, 'lsp_server'));
  writeFileSync(join(dir, 'lsp_server', '__init__.py'), init);
  return dir;
}

const never = { onCancellationRequested: () => ({ dispose() {} }) };

test('an importable pi-context reports its version', async () => {
  assert.deepEqual(await checkServerInstalled('python3', fakeInstall('__version__ = "9.9.9"\n')), { ok: true, version: '9.9.9' });
});

test('a Python without pi-context is reported as not installed', async () => {
  // A fresh venv: whatever python3 is on PATH (maybe pi-context's own venv), this one lacks it.
  const venv = mkdtempSync(join(tmpdir(), 'pi-context-venv-'));
  execFileSync('python3', ['-m', 'venv', '--without-pip', venv]);
  const result = await checkServerInstalled(join(venv, 'bin', 'python'), mkdtempSync(join(tmpdir(), 'pi-context-empty-')));
  assert.equal(result.ok, false);
  assert.equal(!result.ok && result.reason, 'not-installed');
});

test('with -I or -P the check ignores a folder named lsp_server in the working directory (a workspace cannot replace the server)', async () => {
  const venv = mkdtempSync(join(tmpdir(), 'pi-context-venv-'));
  execFileSync('python3', ['-m', 'venv', '--without-pip', venv]);
  const workspace = fakeInstall('__version__ = "6.6.6"\n');
  const python = join(venv, 'bin', 'python');
  assert.deepEqual(await checkServerInstalled(python, workspace), { ok: true, version: '6.6.6' }, 'the plain check imports from the cwd');
  for (const flags of [['-I'], ['-P']]) {
    const isolated = await checkServerInstalled(python, workspace, undefined, flags);
    assert.equal(!isolated.ok && isolated.reason, 'not-installed', flags.join(' '));
  }
});

test('a pi-context that fails to import is reported as broken, with its error', async () => {
  const result = await checkServerInstalled('python3', fakeInstall('raise RuntimeError("half installed")\n'));
  assert.equal(!result.ok && result.reason, 'broken');
  assert.match(!result.ok ? result.detail : '', /half installed/);
});

test('an interpreter that does not exist is reported as missing Python', async () => {
  const result = await checkServerInstalled('/nonexistent/bin/python3');
  assert.equal(!result.ok && result.reason, 'no-python');
});

test('a command runs with its output in the log and resolves to its exit code', async () => {
  const lines: string[] = [];
  const log = { info: (m: string) => lines.push(m), warn: (m: string) => lines.push(`! ${m}`), error: (m: string) => lines.push(`E ${m}`) };
  const code = await runLogged('python3', ['-c', 'import sys; print("out"); sys.stderr.write("err\\n"); sys.exit(3)'], log, never);
  assert.equal(code, 3);
  assert.match(lines[0] ?? '', /^python3 -c /);
  assert.ok(lines.includes('out') && lines.includes('! err'), lines.join('\n'));
  assert.equal(await runLogged('/nonexistent/tool', [], log, never), -1);
});

test('probing a Python gives its version and real executable; a missing one says why', async () => {
  const probe = await probePython('python3');
  assert.ok(probe.ok);
  assert.match(probe.ok ? probe.version : '', /^3\.\d+\.\d+/);
  assert.ok(probe.ok && probe.executable.startsWith('/'));
  assert.equal((await probePython('/nonexistent/bin/python3')).ok, false);
});

/** A folder holding an executable file `name`. */
function program(dir: string, name: string): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, name);
  writeFileSync(file, '#!/bin/sh\n');
  chmodSync(file, 0o755);
  return file;
}

test('a bare interpreter name is looked up on PATH only, never in the working directory (a repository cannot supply it)', () => {
  const root = mkdtempSync(join(tmpdir(), 'pi-context-path-'));
  const onPath = program(join(root, 'bin'), 'python3');
  program(join(root, 'repo'), 'python3'); // what a repository could commit
  const before = process.cwd();
  process.chdir(join(root, 'repo'));
  try {
    // '.', an empty entry and a relative folder all mean the working directory: passed over.
    assert.equal(resolveCommand('python3', { PATH: ['.', '', 'repo', join(root, 'bin')].join(':') }, 'linux'), onPath);
    assert.equal(resolveCommand('python3', { PATH: ['.', ''].join(':') }, 'linux'), null);
  } finally {
    process.chdir(before);
  }
  assert.equal(resolveCommand('python3', { PATH: join(root, 'nothing') }, 'linux'), null);
  // A path is used as it is.
  assert.equal(resolveCommand('/opt/py/bin/python3', { PATH: '' }, 'linux'), '/opt/py/bin/python3');
  assert.equal(resolveCommand('.venv/bin/python', { PATH: '' }, 'linux'), '.venv/bin/python');
});

test('on Windows the lookup goes through Path and PATHEXT', () => {
  const root = mkdtempSync(join(tmpdir(), 'pi-context-winpath-'));
  const exe = program(join(root, 'Python312'), 'python3.EXE');
  assert.equal(resolveCommand('python3', { Path: `.;${join(root, 'Python312')}`, PATHEXT: '.COM;.EXE' }, 'win32'), exe);
  assert.equal(resolveCommand('python3.EXE', { Path: join(root, 'Python312') }, 'win32'), exe);
  assert.equal(resolveCommand('C:\\Python312\\python.exe', {}, 'win32'), 'C:\\Python312\\python.exe');
});
