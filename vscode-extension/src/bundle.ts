/**
 * The server the extension carries: a platform .vsix holds `bundled/manifest.json` and the wheels
 * of pi-context and its dependencies (`scripts/package_platform.py`). On first start the extension
 * makes a private virtual environment in its global storage with the user's Python and installs
 * from those wheels only (`pip install --no-index`): no network, and nothing from a public index,
 * whose `pi-context` this project does not control. Later starts reuse the environment until the
 * bundle changes. This module holds the decisions (no VS Code, no processes), so they are tested
 * on their own.
 */
import { createHash } from 'node:crypto';

export interface BundleManifest {
  name: string;
  version: string;
  wheel: string;
  wheelSha256: string;
  packageHash: string;
  commit: string;
  target: string;
  /** The Python versions whose binary wheels are bundled ("3.11", ...). */
  pythonVersions: string[];
  /** pip's own wheel: run from the wheel into an environment made `--without-pip`. */
  pipWheel: string | null;
  wheels: string[];
}

/** What an environment says about itself once the install finished (written last). */
export interface EnvironmentMarker {
  bundleId: string;
  basePython: string;
  pythonVersion: string;
  seconds: number;
}

export const MARKER_FILE = 'pi-context-bundle.json';
export const MIN_PYTHON: readonly [number, number] = [3, 11];

export function parseManifest(text: string): BundleManifest | null {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof raw !== 'object' || raw === null) {
    return null;
  }
  const m = raw as Record<string, unknown>;
  const str = (k: string): string | null => (typeof m[k] === 'string' && m[k] !== '' ? m[k] : null);
  const list = (k: string): string[] => (Array.isArray(m[k]) ? (m[k] as unknown[]).filter((x): x is string => typeof x === 'string') : []);
  const version = str('version');
  const wheel = str('wheel');
  const wheelSha256 = str('wheelSha256');
  if (!version || !wheel || !wheelSha256 || m.name !== 'pi-context') {
    return null;
  }
  return {
    name: 'pi-context',
    version,
    wheel,
    wheelSha256,
    packageHash: str('packageHash') ?? '',
    commit: str('commit') ?? 'unknown',
    target: str('target') ?? '',
    pythonVersions: list('pythonVersions'),
    pipWheel: str('pipWheel'),
    wheels: list('wheels'),
  };
}

/** Names the bundle: a new wheel (even of the same version) gets a new environment. */
export function bundleId(manifest: BundleManifest): string {
  return `${manifest.version}+${manifest.wheelSha256.slice(0, 16)}`;
}

/** The environment's folder under the global storage: one per bundle (and per own install source). */
export function environmentDirName(environmentId: string): string {
  const [bundle = '', source] = environmentId.split('+source:');
  const safe = bundle.replace(/[^A-Za-z0-9.+-]/g, '_');
  return source === undefined ? `env-${safe}` : `env-${safe}-own-${createHash('sha256').update(source).digest('hex').slice(0, 12)}`;
}

export function parseMarker(text: string): EnvironmentMarker | null {
  try {
    const m = JSON.parse(text) as Partial<EnvironmentMarker>;
    if (typeof m.bundleId === 'string' && typeof m.basePython === 'string' && typeof m.pythonVersion === 'string') {
      return { bundleId: m.bundleId, basePython: m.basePython, pythonVersion: m.pythonVersion, seconds: Number(m.seconds) || 0 };
    }
  } catch {
    // a half-written or foreign file: the environment is made again
  }
  return null;
}

/** Reuse only an environment whose install finished for exactly this bundle (and source). */
export function canReuse(marker: EnvironmentMarker | null, environmentId: string): boolean {
  return marker !== null && marker.bundleId === environmentId;
}

/**
 * The Pythons to try for the environment, in order: the Python extension's selection, then the
 * versioned names (so an old `python3` does not win over an installed 3.11), then `python3`.
 */
export function pythonCandidates(fromExtension: string | null, windows: boolean): string[] {
  const versioned = ['python3.11', 'python3.12', 'python3.13', 'python3.14'];
  const names = windows ? [...versioned, 'python3', 'python'] : [...versioned, 'python3'];
  const out = fromExtension && fromExtension.trim() ? [fromExtension.trim()] : [];
  for (const n of names) {
    if (!out.includes(n)) {
      out.push(n);
    }
  }
  return out;
}

/** "3.11.7" (the output of the version probe) as [3, 11]; null for anything else. */
export function parsePythonVersion(text: string): [number, number] | null {
  const m = /^(\d+)\.(\d+)/.exec(text.trim());
  return m ? [Number(m[1]), Number(m[2])] : null;
}

/** Why a Python cannot host the bundled server, or null when it can. */
export function pythonRefusal(version: [number, number], manifest: BundleManifest): string | null {
  const [major, minor] = version;
  if (major < MIN_PYTHON[0] || (major === MIN_PYTHON[0] && minor < MIN_PYTHON[1])) {
    return `Python ${major}.${minor} is older than ${MIN_PYTHON.join('.')}`;
  }
  const dotted = `${major}.${minor}`;
  if (manifest.pythonVersions.length && !manifest.pythonVersions.includes(dotted)) {
    return `the bundled wheels are built for Python ${manifest.pythonVersions.join(', ')}, not ${dotted}`;
  }
  return null;
}

/** The interpreter inside a virtual environment. */
export function environmentPython(envDir: string, windows: boolean): string {
  return windows ? `${envDir}\\Scripts\\python.exe` : `${envDir}/bin/python`;
}

/**
 * `python <pip wheel>/pip install --no-index --find-links <wheels> <requirement>`: pip runs from its
 * wheel, finds everything in the bundled folder and never asks an index.
 */
export function installArgs(pipWheel: string, wheelsDir: string, requirement: string): string[] {
  return [
    `${pipWheel}/pip`,
    'install',
    '--no-index',
    '--find-links',
    wheelsDir,
    '--no-input',
    '--disable-pip-version-check',
    '--no-warn-script-location',
    '--no-cache-dir',
    requirement,
  ];
}

/** The requirement to install: the bundled wheel's exact version, or the user's own wheel or checkout. */
export function requirementFor(manifest: BundleManifest, installSource: string | null): string {
  return installSource && installSource.trim() ? installSource.trim() : `pi-context==${manifest.version}`;
}

/**
 * The child environment for Python and pip: no `PIP_*` variables and no pip configuration file
 * (an index URL, constraints or find-links there would change what gets installed), no
 * `PYTHONPATH`/`PYTHONHOME` (another pi-context on it would shadow the bundled one).
 */
export function isolatedEnv(env: NodeJS.ProcessEnv, devNull: string): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(env)) {
    if (!/^PIP_/i.test(k) && k !== 'PYTHONPATH' && k !== 'PYTHONHOME' && k !== 'PYTHONUSERBASE') {
      out[k] = v;
    }
  }
  out.PIP_CONFIG_FILE = devNull;
  out.PYTHONNOUSERSITE = '1';
  return out;
}

/**
 * The sentence shown when a server of another version answers: the bundled server is always the
 * extension's version, so this is a user's own installation (`piContext.server.python`).
 */
export function versionMismatch(
  serverVersion: string | undefined,
  extensionVersion: string,
  python: string,
  key = 'piContext.server.python',
): string | null {
  if (!serverVersion || serverVersion === extensionVersion) {
    return null;
  }
  return (
    `pi-context ${serverVersion} runs in ${python} (${key}), but this extension is ${extensionVersion}: ` +
    'views or commands may be missing or behave differently. The bundled server has the same version as the extension.'
  );
}
