import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ServerLogReader } from '../src/serverLog';

test("each stderr line keeps the level the server logged it with, not the client's blanket [error]", () => {
  const reader = new ServerLogReader();
  assert.deepEqual(reader.line('2026-12-06 03:00:12,185 INFO lsp_server.server.app: pi-context 0.1.0: 1 folder(s)'), {
    level: 'info',
    text: 'lsp_server.server.app: pi-context 0.1.0: 1 folder(s)',
  });
  assert.equal(reader.line('2026-12-06 03:00:12,186 DEBUG pygls: x').level, 'debug');
  assert.equal(reader.line('2026-12-06 03:00:12,187 WARNING lsp_server.server.app: slow').level, 'warn');
  assert.equal(reader.line('2026-12-06 03:00:12,188 CRITICAL x: y').level, 'error');
});

test("a record's further lines (a traceback's frames) keep its level; Python's own traceback is an error", () => {
  const reader = new ServerLogReader();
  assert.equal(reader.line('2026-12-06 03:00:12,185 ERROR lsp_server.server.errors: check failed: ValueError: bad').level, 'error');
  assert.deepEqual(reader.line('  File "x.py", line 1, in f'), { level: 'error', text: '  File "x.py", line 1, in f' });
  assert.equal(reader.line('2026-12-06 03:00:12,190 INFO lsp_server.server.app: fine again').level, 'info');
  assert.equal(reader.line('plain text after it').level, 'info');
  const fresh = new ServerLogReader();
  assert.equal(fresh.line('Traceback (most recent call last):').level, 'error');
  assert.equal(fresh.line('ValueError: bad').level, 'error');
});
