import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  chooseInterpreter,
  describeInterpreter,
  envName,
  expandPath,
  expandUserPath,
  needsRestart,
  ownPythonSetting,
  serverSettings,
} from '../src/model/settings';

const from = (values: Record<string, unknown>) => (key: string) => values[key];

test('unset settings give the server its documented defaults', () => {
  assert.deepEqual(serverSettings(from({})), {
    ruleProfile: 'pi',
    tokens: { estimator: 'weighted', modelFamily: 'auto' },
    summarizer: {
      mode: 'offline',
      url: null,
      model: null,
      apiKeyEnv: null,
      wireFormat: 'openai',
      timeoutSeconds: 30,
      deadlineSeconds: 120,
      retries: 2,
    },
    agentDir: null,
    trust: 'pi',
    debounceMs: 300,
    limits: { skillMaxBytes: 8388608, bodyMaxLines: 500, contextMaxBytes: 32768, contextMaxTokens: 8000, sessionMaxBytes: 536870912, checkBudgetMs: 2000 },
    check: { exclude: [], fixtureFolders: ['fixtures', '__fixtures__', 'testdata'] },
    budget: { contextWindows: {}, defaultContextWindow: null },
    pi: { command: null, reattachGraceSeconds: 90, detachedTurnLimitSeconds: 1800 },
  });
});

test('check.exclude and check.fixtureFolders are forwarded as lists of names, [] included', () => {
  const s = serverSettings(from({ 'check.exclude': [' fixtures ', '', 7, 'packages/*/test'], 'check.fixtureFolders': [] }));
  assert.deepEqual(s.check, { exclude: ['fixtures', 'packages/*/test'], fixtureFolders: [] });
});

test('per-model context windows keep only positive whole numbers', () => {
  const s = serverSettings(from({ 'budget.contextWindows': { 'ollama/qwen3': 32768, bad: -1, half: 1.5, '': 9 } }));
  assert.deepEqual(s.budget.contextWindows, { 'ollama/qwen3': 32768 });
});

test('settings keep the nesting of their VS Code keys', () => {
  const s = serverSettings(from({ 'tokens.modelFamily': 'claude47', 'limits.contextMaxBytes': 1000 }));
  assert.equal(s.tokens.modelFamily, 'claude47');
  assert.equal(s.limits.contextMaxBytes, 1000);
});

test('empty summarizer strings are sent as null', () => {
  const s = serverSettings(from({ 'summarizer.mode': 'endpoint', 'summarizer.url': '  ', 'summarizer.model': '' }));
  assert.equal(s.summarizer.url, null);
  assert.equal(s.summarizer.model, null);
});

test('an endpoint summarizer is forwarded with its url, model, format and key variable name', () => {
  const s = serverSettings(
    from({
      'summarizer.mode': 'endpoint',
      'summarizer.url': 'http://127.0.0.1:9/v1',
      'summarizer.model': 'tiny',
      'summarizer.apiKeyEnv': 'OPENAI_API_KEY',
      'summarizer.wireFormat': 'anthropic',
    }),
  );
  assert.deepEqual(
    [s.summarizer.mode, s.summarizer.url, s.summarizer.model, s.summarizer.apiKeyEnv, s.summarizer.wireFormat],
    ['endpoint', 'http://127.0.0.1:9/v1', 'tiny', 'OPENAI_API_KEY', 'anthropic'],
  );
});

test('a key pasted where the variable name belongs is never forwarded', () => {
  assert.equal(envName('sk-proj-abc123'), null);
  assert.equal(envName('AbCdEfGh1234567890AbCdEfGh1234567890'), null);
  assert.equal(envName('my key'), null);
  assert.equal(envName('ANTHROPIC_API_KEY'), 'ANTHROPIC_API_KEY');
});

test('client-only settings are not part of what the server receives', () => {
  const s = serverSettings(
    from({ 'server.python': '/venv/bin/python', python: '/old/bin/python', 'trace.server': 'verbose', 'server.installSource': '.' }),
  );
  assert.ok(!JSON.stringify(s).includes('/venv/bin/python'));
  assert.ok(!JSON.stringify(s).includes('/old/bin/python'));
  assert.ok(!('python' in s) && !('server' in s));
});

test('an unknown trust value means deciding as Pi does', () => {
  assert.equal(serverSettings(from({ trust: 'maybe' })).trust, 'pi');
  assert.equal(serverSettings(from({ trust: 'untrusted' })).trust, 'untrusted');
});

test('numbers are clamped to what the server accepts', () => {
  assert.equal(serverSettings(from({ debounceMs: -5 })).debounceMs, 0);
  assert.equal(serverSettings(from({ debounceMs: 99_999 })).debounceMs, 60_000);
  assert.equal(serverSettings(from({ debounceMs: 'x' })).debounceMs, 300);
});

test('the agent dir is expanded', () => {
  const s = serverSettings(from({ agentDir: '~/pi' }), (p) => expandPath(p, '/home/u', null));
  assert.equal(s.agentDir, '/home/u/pi');
  assert.equal(expandPath('${workspaceFolder}/.venv/bin/python', '/h', '/repo'), '/repo/.venv/bin/python');
});

test('in an untrusted workspace a path naming ${workspaceFolder} counts as empty; other paths are expanded as usual', () => {
  assert.equal(expandUserPath('${workspaceFolder}/.venv/bin/python', '/h', '/repo', true), '/repo/.venv/bin/python');
  assert.equal(expandUserPath('${workspaceFolder}/.venv/bin/python', '/h', '/repo', false), null);
  assert.equal(expandUserPath('~/venv/bin/python', '/h', '/repo', false), '/h/venv/bin/python');
  assert.equal(expandUserPath('${userHome}/pi', '/h', '/repo', false), '/h/pi');
  // A relative path with a folder resolves against the workspace (the server's working folder): the repository's.
  assert.equal(expandUserPath('.venv/bin/python', '/h', '/repo', false), null);
  assert.equal(expandUserPath('dist\\pi_context.whl', '/h', '/repo', false), null);
  assert.equal(expandUserPath('.venv/bin/python', '/h', '/repo', true), '.venv/bin/python');
  assert.equal(expandUserPath('python3', '/h', '/repo', false), 'python3'); // a bare name: looked up on PATH
  assert.equal(expandUserPath('C:\\Python312\\python.exe', '/h', '/repo', false), 'C:\\Python312\\python.exe');
  assert.equal(expandUserPath('pi-context==0.1.0', '/h', '/repo', false), 'pi-context==0.1.0'); // an install spec
  assert.equal(expandUserPath('git+https://example.org/pi-context', '/h', '/repo', false), 'git+https://example.org/pi-context');
  const untrusted = (p: string): string | null => expandUserPath(p, '/h', '/repo', false);
  assert.equal(serverSettings(from({ agentDir: '${workspaceFolder}/agent' }), untrusted).agentDir, null, "Pi's default agent dir");
  assert.equal(serverSettings(from({ agentDir: '~/agent' }), untrusted).agentDir, '/h/agent');
});

test('only the interpreter and install source need a server restart', () => {
  assert.equal(needsRestart((k) => k === 'server.python'), true);
  assert.equal(needsRestart((k) => k === 'python'), true);
  assert.equal(needsRestart((k) => k === 'server.installSource'), true);
  assert.equal(needsRestart((k) => k === 'rules.profile'), false);
});

test('the interpreter is the setting, else the Python extension, else python3', () => {
  assert.deepEqual(chooseInterpreter('/x/python', '/y/python'), { command: '/x/python', source: 'setting', key: 'piContext.server.python' });
  assert.deepEqual(chooseInterpreter('', '/y/python'), { command: '/y/python', source: 'python-extension' });
  assert.deepEqual(chooseInterpreter(null, null), { command: 'python3', source: 'path' });
});


test('piContext.server.python names the own Python; the deprecated piContext.python still works when it is empty', () => {
  assert.deepEqual(ownPythonSetting(from({ 'server.python': ' /new/python ', python: '/old/python' })), {
    value: '/new/python',
    key: 'piContext.server.python',
  });
  assert.deepEqual(ownPythonSetting(from({ 'server.python': '', python: '/old/python' })), { value: '/old/python', key: 'piContext.python' });
  assert.equal(ownPythonSetting(from({ 'server.python': '  ', python: '' })), null);
  assert.equal(ownPythonSetting(from({})), null);
  // Messages name the key the user actually set.
  const old = chooseInterpreter('/old/python', null, 'piContext.python');
  assert.equal(describeInterpreter(old), '/old/python (piContext.python)');
  assert.equal(describeInterpreter(chooseInterpreter('/new/python', null)), '/new/python (piContext.server.python)');
});
