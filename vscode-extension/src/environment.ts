/**
 * The private environment that runs the bundled server: made once per bundle in the extension's
 * global storage, with the user's Python (`python -m venv --without-pip`), then filled from the
 * bundled wheels by pip run from its own wheel (`--no-index`: no network). The install happens in
 * a temporary folder that is renamed into place only when it finished, so a crash, a cancel or a
 * second window starting at the same time never leaves a half-made environment behind to reuse; the
 * window that finishes second uses the first one's environment and throws its own away. A failure
 * (a full disk, a folder held by another program) is a result with a message, never a throw.
 * No VS Code API here.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  type BundleManifest,
  bundleId,
  canReuse,
  environmentDirName,
  environmentPython,
  type EnvironmentMarker,
  installArgs,
  isolatedEnv,
  MARKER_FILE,
  MIN_PYTHON,
  parseManifest,
  parseMarker,
  parsePythonVersion,
  pythonRefusal,
  requirementFor,
} from './bundle';
import { type Cancellation, type LogSink, probePython, resolveCommand, runLogged } from './python';

export interface Bundle {
  dir: string;
  manifest: BundleManifest;
}

/** The bundle of a platform .vsix (`<extension>/bundled`), or null for a build without a server. */
export function readBundle(extensionPath: string): Bundle | null {
  const dir = path.join(extensionPath, 'bundled');
  try {
    const manifest = parseManifest(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
    return manifest ? { dir, manifest } : null;
  } catch {
    return null;
  }
}

export interface EnvironmentRequest {
  bundle: Bundle;
  storageDir: string;
  /** A wheel or checkout to install instead of the bundled wheel (`piContext.server.installSource`). */
  installSource: string | null;
  /** Pythons to try, in order (see `pythonCandidates`). */
  candidates: string[];
  /** Make it again even when a finished one is there (the Reinstall command, a broken environment). */
  force: boolean;
  log: LogSink;
  token: Cancellation;
  progress(message: string): void;
}

export type EnvironmentResult =
  | { ok: true; python: string; created: boolean; seconds: number; marker: EnvironmentMarker }
  | { ok: false; reason: 'no-python' | 'venv-failed' | 'install-failed'; message: string };

const WINDOWS = process.platform === 'win32';
/** Numbers the temporary folders of this process: two starts in the same millisecond get their own. */
let made = 0;

/** The identity of an environment: the bundle, plus the user's own source when one is set. */
export function environmentId(bundle: Bundle, installSource: string | null): string {
  return installSource ? `${bundleId(bundle.manifest)}+source:${installSource}` : bundleId(bundle.manifest);
}

export function environmentDir(req: Pick<EnvironmentRequest, 'bundle' | 'storageDir' | 'installSource'>): string {
  return path.join(req.storageDir, environmentDirName(environmentId(req.bundle, req.installSource)));
}

function readMarker(dir: string): EnvironmentMarker | null {
  try {
    return parseMarker(fs.readFileSync(path.join(dir, MARKER_FILE), 'utf8'));
  } catch {
    return null;
  }
}

export async function ensureEnvironment(req: EnvironmentRequest): Promise<EnvironmentResult> {
  const started = Date.now();
  const dir = environmentDir(req);
  const id = environmentId(req.bundle, req.installSource);
  const existing = readMarker(dir);
  const python = environmentPython(dir, WINDOWS);
  if (!req.force && existing && canReuse(existing, id) && fs.existsSync(python)) {
    return { ok: true, python, created: false, seconds: (Date.now() - started) / 1000, marker: existing };
  }

  req.progress('Looking for Python 3.11 or newer for the bundled server…');
  const env = isolatedEnv(process.env, os.devNull);
  const tried: string[] = [];
  let base: { command: string; version: string } | null = null;
  for (const candidate of req.candidates) {
    // Looked up on PATH here: on Windows a bare name would be looked for in the working directory first.
    const program = resolveCommand(candidate, env);
    const probe = program ? await probePython(program, env) : null;
    if (!probe?.ok) {
      tried.push(`${candidate} (not found)`);
      continue;
    }
    const version = parsePythonVersion(probe.version);
    const refusal = version ? pythonRefusal(version, req.bundle.manifest) : `cannot read its version "${probe.version}"`;
    if (refusal) {
      tried.push(`${candidate} (${refusal})`);
      continue;
    }
    base = { command: probe.executable, version: probe.version };
    break;
  }
  if (!base) {
    return {
      ok: false,
      reason: 'no-python',
      message:
        `Pi Context runs its bundled server with Python ${MIN_PYTHON.join('.')} or newer and found none ` +
        `(tried ${tried.join(', ')}). Install Python ${MIN_PYTHON.join('.')}+ (or select one in the Python extension), ` +
        'or set piContext.server.python to a Python where pi-context is installed.',
    };
  }
  req.log.info(`bundled server: creating its environment with Python ${base.version} (${base.command}) in ${dir}`);

  const tmp = `${dir}.tmp-${process.pid}-${Date.now()}-${++made}`;
  try {
    fs.mkdirSync(req.storageDir, { recursive: true });
    req.progress(`Creating the server's environment with Python ${base.version} (first start only)…`);
    const venv = await runLogged(base.command, ['-m', 'venv', '--without-pip', tmp], req.log, req.token, { env });
    if (venv !== 0) {
      return {
        ok: false,
        reason: 'venv-failed',
        message:
          `${base.command} -m venv failed (exit ${venv}); the log has its output. ` +
          'On Debian and Ubuntu the venv module is a separate package (python3-venv).',
      };
    }
    const pipWheel = req.bundle.manifest.pipWheel;
    if (!pipWheel) {
      return { ok: false, reason: 'install-failed', message: 'The bundle carries no pip wheel to install with.' };
    }
    const requirement = requirementFor(req.bundle.manifest, req.installSource);
    req.progress(`Installing ${req.installSource ? requirement : `pi-context ${req.bundle.manifest.version}`} from the wheels in the extension…`);
    const wheels = path.join(req.bundle.dir, 'wheels');
    const code = await runLogged(environmentPython(tmp, WINDOWS), installArgs(path.join(wheels, pipWheel), wheels, requirement), req.log, req.token, { env });
    if (code !== 0) {
      return {
        ok: false,
        reason: 'install-failed',
        message: `Installing ${requirement} from the bundled wheels failed (pip exit ${code}); the log has pip's output.`,
      };
    }
    const marker: EnvironmentMarker = {
      bundleId: id,
      basePython: base.command,
      pythonVersion: base.version,
      seconds: (Date.now() - started) / 1000,
    };
    fs.writeFileSync(path.join(tmp, MARKER_FILE), JSON.stringify(marker, null, 2));
    // Another window finished the same environment meanwhile (a forced remake counts it only when it was
    // finished after this one began): use it, and throw ours away rather than the one its server may run from.
    const other = finishedSince(dir, id, req.force ? started : null);
    if (other && fs.existsSync(python)) {
      req.log.info(`bundled server: another window finished the environment in ${dir} first; using it`);
      return { ok: true, python, created: false, seconds: (Date.now() - started) / 1000, marker: other };
    }
    fs.rmSync(dir, { recursive: true, force: true });
    try {
      fs.renameSync(tmp, dir);
    } catch (e) {
      // Another window finished first: use its environment.
      if (!canReuse(readMarker(dir), id)) {
        throw e;
      }
    }
    return { ok: true, python, created: true, seconds: (Date.now() - started) / 1000, marker };
  } catch (e) {
    // A full disk, a folder another program holds (Windows), no permission: say so instead of leaving the
    // caller (and the views waiting on it) without an answer.
    return {
      ok: false,
      reason: 'install-failed',
      message: `Creating the bundled server's environment in ${dir} failed: ${e instanceof Error ? e.message : String(e)}`,
    };
  } finally {
    try {
      fs.rmSync(tmp, { recursive: true, force: true });
    } catch (e) {
      req.log.warn(`could not remove ${tmp}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
}

/**
 * The marker of a finished environment for `id` in `dir`, when one is there (written after `since`
 * when given: a forced remake does not take the environment it was asked to replace); else null.
 */
function finishedSince(dir: string, id: string, since: number | null): EnvironmentMarker | null {
  const marker = readMarker(dir);
  if (!canReuse(marker, id)) {
    return null;
  }
  if (since !== null) {
    try {
      if (fs.statSync(path.join(dir, MARKER_FILE)).mtimeMs < since) {
        return null;
      }
    } catch {
      return null;
    }
  }
  return marker;
}
