import assert from 'node:assert/strict';
import { test } from 'node:test';
import { completionsFor, parseInput, piCompletions } from '../src/chat/commands';

// Pi's get_commands answer as recorded in docs/protocol.md (pi/chat/commands), plus a skill.
const pi = piCompletions([
  { name: 'llama', description: 'Manage llama.cpp router models', source: 'extension' },
  { name: 'mcp', description: 'Manage MCP servers', source: 'extension' },
  { name: 'skill:review', description: 'Review a change', source: 'skill' },
  { name: 'compact', description: 'a Pi command of the same name', source: 'extension' },
  { description: 'no name: ignored' },
  'not an object',
]);

test('completion opens on a slash with our commands first, then Pi’s', () => {
  assert.deepEqual(
    completionsFor('/', pi).map((c) => c.value),
    ['/compact', '/new', '/model', '/resume', '/llama', '/mcp', '/skill:review'],
  );
});

test('completion filters by prefix, case-insensitively, and closes after a space or without a slash', () => {
  assert.deepEqual(completionsFor('/M', pi).map((c) => c.value), ['/model', '/mcp']);
  assert.deepEqual(completionsFor('/skill:', pi).map((c) => [c.value, c.source]), [['/skill:review', 'skill']]);
  assert.deepEqual(completionsFor('/compact now', pi), []);
  assert.deepEqual(completionsFor('hello /', pi), []);
});

test('our own commands are recognised with their argument, everything else is a prompt for Pi', () => {
  assert.deepEqual(parseInput('/compact'), { kind: 'compact', focus: null });
  assert.deepEqual(parseInput('/compact  keep the API notes \n'), { kind: 'compact', focus: 'keep the API notes' });
  assert.deepEqual(parseInput('/new'), { kind: 'new' });
  assert.deepEqual(parseInput('/model'), { kind: 'model' });
  assert.deepEqual(parseInput('/resume'), { kind: 'resume' });
  assert.deepEqual(parseInput('/skill:review src/'), { kind: 'prompt', text: '/skill:review src/' });
  assert.deepEqual(parseInput('/compactly'), { kind: 'prompt', text: '/compactly' });
  assert.deepEqual(parseInput('what is /new?'), { kind: 'prompt', text: 'what is /new?' });
});
