import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { type Bundle, ensureEnvironment, environmentDir, readBundle } from '../src/environment';
import {
  type BundleManifest,
  bundleId,
  canReuse,
  environmentDirName,
  installArgs,
  isolatedEnv,
  parseManifest,
  parseMarker,
  parsePythonVersion,
  pythonCandidates,
  pythonRefusal,
  requirementFor,
  versionMismatch,
} from '../src/bundle';
import { checkServerInstalled } from '../src/python';

// pytest runs these tests (tests/extension/test_typescript.py) with the checkout on PYTHONPATH: the Pythons
// started here must not import its lsp_server instead of the one each test puts in place.
delete process.env.PYTHONPATH;

const manifest: BundleManifest = {
  name: 'pi-context',
  version: '9.9.9',
  wheel: 'pi_context-9.9.9-py3-none-any.whl',
  wheelSha256: 'ab'.repeat(32),
  packageHash: 'cd'.repeat(32),
  commit: 'abc',
  target: 'linux-x64',
  pythonVersions: ['3.11', '3.12'],
  pipWheel: 'pip-1-py3-none-any.whl',
  wheels: [],
};

test('a manifest is read only when it names pi-context, a version and the wheel hash', () => {
  assert.deepEqual(parseManifest(JSON.stringify(manifest)), manifest);
  assert.equal(parseManifest('{"name": "other", "version": "1", "wheel": "w", "wheelSha256": "x"}'), null);
  assert.equal(parseManifest('{"name": "pi-context", "version": "1"}'), null);
  assert.equal(parseManifest('not json'), null);
  assert.equal(parseManifest('null'), null);
});

test('an environment is reused only for the same bundle and source; a new wheel gets a new folder', () => {
  const id = bundleId(manifest);
  assert.equal(id, '9.9.9+abababababababab');
  const marker = parseMarker(JSON.stringify({ bundleId: id, basePython: '/usr/bin/python3.11', pythonVersion: '3.11.7', seconds: 4 }));
  assert.ok(canReuse(marker, id));
  assert.equal(canReuse(marker, bundleId({ ...manifest, wheelSha256: 'ef'.repeat(32) })), false);
  assert.equal(canReuse(null, id), false);
  assert.equal(parseMarker('{"bundleId": 1}'), null);
  assert.equal(parseMarker('{'), null);
  assert.equal(environmentDirName(id), 'env-9.9.9+abababababababab');
  assert.match(environmentDirName(`${id}+source:/home/u/pi-context`), /^env-9\.9\.9\+abababababababab-own-[0-9a-f]{12}$/);
});

test("Pythons are tried from the Python extension's choice, then 3.11+ by name, then python3", () => {
  assert.deepEqual(pythonCandidates('/venv/bin/python', false), ['/venv/bin/python', 'python3.11', 'python3.12', 'python3.13', 'python3.14', 'python3']);
  assert.deepEqual(pythonCandidates(null, false)[0], 'python3.11');
  assert.deepEqual(parsePythonVersion('3.12.1\n'), [3, 12]);
  assert.equal(parsePythonVersion('Python'), null);
  assert.match(pythonRefusal([3, 10], manifest) ?? '', /older than 3\.11/);
  assert.match(pythonRefusal([3, 13], manifest) ?? '', /built for Python 3\.11, 3\.12, not 3\.13/);
  assert.equal(pythonRefusal([3, 12], manifest), null);
});

test('the install never asks an index: --no-index, the bundled folder, the exact bundled version', () => {
  const args = installArgs('/ext/bundled/wheels/pip.whl', '/ext/bundled/wheels', requirementFor(manifest, null));
  assert.deepEqual(args.slice(0, 5), ['/ext/bundled/wheels/pip.whl/pip', 'install', '--no-index', '--find-links', '/ext/bundled/wheels']);
  assert.equal(args.at(-1), 'pi-context==9.9.9');
  assert.equal(requirementFor(manifest, ' /src/pi-context '), '/src/pi-context');
});

test('pip configuration and Python path variables do not reach the environment', () => {
  const env = isolatedEnv({ PATH: '/bin', PIP_INDEX_URL: 'https://evil', pip_find_links: '/x', PYTHONPATH: '/repo', HOME: '/h' }, '/dev/null');
  assert.deepEqual(env, { PATH: '/bin', HOME: '/h', PIP_CONFIG_FILE: '/dev/null', PYTHONNOUSERSITE: '1' });
});

test('a server of another version than the extension is named, with where it runs', () => {
  assert.equal(versionMismatch('0.1.0', '0.1.0', '/v/python'), null);
  assert.equal(versionMismatch(undefined, '0.1.0', '/v/python'), null);
  assert.match(versionMismatch('0.0.9', '0.1.0', '/v/python') ?? '', /pi-context 0\.0\.9 runs in \/v\/python \(piContext\.server\.python\), but this extension is 0\.1\.0/);
  assert.match(versionMismatch('0.0.9', '0.1.0', '/v/python', 'piContext.python') ?? '', /runs in \/v\/python \(piContext\.python\)/);
});

/** A bundle on disk: a tiny pi-context wheel written by Python's zipfile, and the pip wheel that ships with Python. */
function fakeBundle(version: string): Bundle {
  const dir = mkdtempSync(join(tmpdir(), 'pi-context-bundle-'));
  const wheels = join(dir, 'wheels');
  mkdirSync(wheels);
  const wheel = `pi_context-${version}-py3-none-any.whl`;
  const script = [
    'import sys, zipfile, ensurepip, os, shutil, glob',
    'wheels, wheel, version = sys.argv[1:4]',
    'info = f"pi_context-{version}.dist-info"',
    'with zipfile.ZipFile(os.path.join(wheels, wheel), "w") as z:',
    '    z.writestr("lsp_server/__init__.py", f"__version__ = {version!r}\\n")',
    '    z.writestr(f"{info}/METADATA", f"Metadata-Version: 2.1\\nName: pi-context\\nVersion: {version}\\n")',
    '    z.writestr(f"{info}/WHEEL", "Wheel-Version: 1.0\\nGenerator: test\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n")',
    '    z.writestr(f"{info}/RECORD", "")',
    'pip = glob.glob(os.path.join(os.path.dirname(ensurepip.__file__), "_bundled", "pip-*.whl"))[0]',
    'shutil.copy(pip, wheels)',
    'print(os.path.basename(pip))',
  ].join('\n');
  const pipWheel = execFileSync('python3', ['-c', script, wheels, wheel, version]).toString().trim();
  const [major, minor] = execFileSync('python3', ['-c', 'import sys; print(*sys.version_info[:2])']).toString().trim().split(' ');
  const m: BundleManifest = { ...manifest, version, wheel, wheelSha256: `${version}`.padEnd(64, '0'), pythonVersions: [`${major}.${minor}`], pipWheel };
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify(m));
  const bundle = readBundle(join(dir, '..', dir.split('/').at(-1) ?? ''));
  assert.equal(bundle, null, 'readBundle looks for <extension>/bundled');
  const ext = mkdtempSync(join(tmpdir(), 'pi-context-ext-'));
  execFileSync('mv', [dir, join(ext, 'bundled')]);
  const found = readBundle(ext);
  assert.ok(found);
  return found;
}

test('the first start makes the environment from the bundled wheels, offline; the next start reuses it', { timeout: 240_000 }, async () => {
  const bundle = fakeBundle('9.9.9');
  const storageDir = mkdtempSync(join(tmpdir(), 'pi-context-storage-'));
  const lines: string[] = [];
  const log = { info: (m: string) => lines.push(m), warn: (m: string) => lines.push(m), error: (m: string) => lines.push(m) };
  const never = { onCancellationRequested: () => ({ dispose() {} }) };
  const progress: string[] = [];
  const request = { bundle, storageDir, installSource: null, candidates: ['/nonexistent/python', 'python3'], force: false, log, token: never, progress: (m: string) => progress.push(m) };

  const first = await ensureEnvironment(request);
  assert.ok(first.ok, JSON.stringify(first) + lines.join('\n'));
  assert.equal(first.created, true);
  assert.ok(lines.some((l) => l.includes('--no-index')), 'pip was told not to use an index');
  assert.ok(progress.some((p) => p.includes('first start only')));
  assert.deepEqual(await checkServerInstalled(first.python, storageDir), { ok: true, version: '9.9.9' });
  assert.deepEqual(readdirSync(storageDir), [environmentDir(request).split('/').at(-1)], 'no temporary folder is left');

  const again = await ensureEnvironment(request);
  assert.ok(again.ok && !again.created && again.python === first.python);

  // A new bundle (another wheel) gets its own environment.
  const next = await ensureEnvironment({ ...request, bundle: fakeBundle('9.9.10') });
  assert.ok(next.ok && next.created);
  assert.deepEqual(await checkServerInstalled(next.python, storageDir), { ok: true, version: '9.9.10' });
});

test('no usable Python: a clear message that lists what was tried, and nothing is created', async () => {
  const bundle = fakeBundle('9.9.9');
  const storageDir = join(mkdtempSync(join(tmpdir(), 'pi-context-storage-')), 'storage');
  const log = { info() {}, warn() {}, error() {} };
  const result = await ensureEnvironment({
    bundle,
    storageDir,
    installSource: null,
    candidates: ['/nonexistent/python3.11', '/nonexistent/python3'],
    force: false,
    log,
    token: { onCancellationRequested: () => ({ dispose() {} }) },
    progress() {},
  });
  assert.equal(result.ok, false);
  assert.equal(!result.ok && result.reason, 'no-python');
  assert.match(!result.ok ? result.message : '', /Python 3\.11 or newer and found none \(tried \/nonexistent\/python3\.11 \(not found\), \/nonexistent\/python3 \(not found\)\)/);
  assert.equal(existsSync(storageDir), false);
});

const quiet = { info() {}, warn() {}, error() {} };
const never = { onCancellationRequested: () => ({ dispose() {} }) };

test('a storage folder that cannot be made is a failure with its reason, not a throw', async () => {
  const bundle = fakeBundle('9.9.9');
  const file = join(mkdtempSync(join(tmpdir(), 'pi-context-storage-')), 'a-file');
  writeFileSync(file, '');
  const result = await ensureEnvironment({
    bundle,
    storageDir: join(file, 'storage'),
    installSource: null,
    candidates: ['python3'],
    force: false,
    log: quiet,
    token: never,
    progress() {},
  });
  assert.equal(result.ok, false);
  assert.equal(!result.ok && result.reason, 'install-failed');
  assert.match(!result.ok ? result.message : '', /Creating the bundled server's environment in .* failed: .*ENOTDIR/);
});

test("two windows making the same environment at once: the second to finish uses the first one's and leaves it in place", { timeout: 240_000 }, async () => {
  const bundle = fakeBundle('9.9.9');
  const storageDir = mkdtempSync(join(tmpdir(), 'pi-context-storage-'));
  const request = { bundle, storageDir, installSource: null, candidates: ['python3'], force: false, log: quiet, token: never, progress() {} };
  const results = await Promise.all([ensureEnvironment(request), ensureEnvironment(request)]);
  for (const r of results) {
    assert.ok(r.ok, JSON.stringify(r));
  }
  assert.deepEqual(results.map((r) => r.ok && r.created).sort(), [false, true], 'one made it, the other took it up');
  const python = results[0]?.ok ? results[0].python : '';
  assert.deepEqual(await checkServerInstalled(python, storageDir), { ok: true, version: '9.9.9' });
  assert.deepEqual(readdirSync(storageDir), [environmentDir(request).split('/').at(-1)], 'no temporary folder is left');
});
