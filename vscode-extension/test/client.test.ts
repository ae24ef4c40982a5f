/**
 * The typed client (`src/client.generated.ts`) over vscode-jsonrpc's real message connection (the library
 * vscode-languageclient sends through), a pair of in-memory streams to a second connection standing for the
 * server: what goes over the wire is what the server reads. A request without a token must send its params as
 * one object (vscode-jsonrpc sends an explicit `undefined` token as a second param, which the server's params
 * model refuses: the first e2e run of the generated client showed it), a command goes as
 * `workspace/executeCommand` with its one argument and work-done token, and notifications reach their typed handler.
 */
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { createMessageConnection, type MessageConnection, StreamMessageReader, StreamMessageWriter } from 'vscode-jsonrpc/node';
import { PiContextClient } from '../src/client.generated';

function pair(): { client: MessageConnection; server: MessageConnection } {
  const up = new PassThrough();
  const down = new PassThrough();
  const client = createMessageConnection(new StreamMessageReader(down), new StreamMessageWriter(up));
  const server = createMessageConnection(new StreamMessageReader(up), new StreamMessageWriter(down));
  client.listen();
  server.listen();
  return { client, server };
}

test('a request goes over vscode-jsonrpc with its params as one object, with or without a token', async () => {
  const { client, server } = pair();
  const received: unknown[] = [];
  // Every param the server reads (a string method's handler gets each element of an array of params, then a token).
  server.onRequest('pi/chat/start', (...params: unknown[]) => {
    received.push(params.slice(0, -1)); // the last is the server side's cancellation token
    return { chatId: '1' };
  });
  server.onRequest('pi/chat/list', (...params: unknown[]) => {
    received.push(params.slice(0, -1)); // the last is the server side's cancellation token
    return { chats: [] };
  });
  const api = new PiContextClient(client);
  assert.deepEqual(await api.chatStart({ workspaceFolder: 'file:///w' }), { chatId: '1' });
  const token = { isCancellationRequested: false, onCancellationRequested: () => ({ dispose() {} }) };
  await api.chatStart({ session: '/s.jsonl' }, token);
  await api.chatList();
  assert.deepEqual(received, [[{ workspaceFolder: 'file:///w' }], [{ session: '/s.jsonl' }], [{}]]);
  client.dispose();
  server.dispose();
});

test('a command is workspace/executeCommand with its one argument and the work-done token', async () => {
  const { client, server } = pair();
  let received: unknown[] = [];
  server.onRequest('workspace/executeCommand', (...params: unknown[]) => {
    received = params.slice(0, -1);
    return { written: false, previewOnly: true, summary: 's' };
  });
  const api = new PiContextClient(client);
  const outcome = await api.compact({ session: '/s.jsonl', previewOnly: true }, { workDoneToken: 'w-1' });
  assert.equal(outcome.summary, 's');
  assert.deepEqual(received, [{ command: 'pi.compact', arguments: [{ session: '/s.jsonl', previewOnly: true }], workDoneToken: 'w-1' }]);
  client.dispose();
  server.dispose();
});

test('a notification reaches its typed handler, until the handler is disposed', async () => {
  const { client, server } = pair();
  const api = new PiContextClient(client);
  const seen: string[] = [];
  const listening = api.onChatExited((params) => seen.push(params.message));
  await server.sendNotification('pi/chat/exited', { chatId: '1', message: 'Pi exited.', expected: true });
  await new Promise((resolve) => setTimeout(resolve, 50));
  listening.dispose();
  await server.sendNotification('pi/chat/exited', { chatId: '1', message: 'again', expected: true });
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.deepEqual(seen, ['Pi exited.']);
  client.dispose();
  server.dispose();
});
