// What the extension posts to its webviews, built by the extension's own code from a real server's answers.
//
// Used by tests/llm/test_secrets_of_our_own.py. One JSON argument:
//   { compiled, nodeModules, server: [argv...], env, cwd, rootUri, folderName, initializationOptions,
//     chat: null | { prompts: [text...] } }
// `compiled` is the extension compiled with tsconfig.test.json (its view models, without VS Code).
// The server is started over stdio and spoken to with vscode-jsonrpc (what vscode-languageclient uses).
// The sidebar: the extension's ContextStore asks the server exactly what it asks in VS Code
// (refreshAll) and builds the `view` message the sidebar webview gets. The chat: Pi is started
// through the server, the prompts are sent, and the extension's Transcript folds pi/chat/event,
// pi/chat/notice and pi/chat/exited as the chat provider does; the header's parts come from the
// same answers through the same functions (gaugeView, piCompletions, modelHasPrices).
// Then the sidebar again, on the session the chat wrote.
// Prints one JSON object: { sidebar: [messages], chat: [messages], received: [every notification
// and answer from the server] }.
'use strict';
const path = require('path');
const { spawn } = require('child_process');

const config = JSON.parse(process.argv[2]);
const rpc = require('module').createRequire(path.join(config.nodeModules, '..', 'package.json'))('vscode-jsonrpc/node');
const { ContextStore } = require(path.join(config.compiled, 'src', 'model', 'store'));
const { Transcript } = require(path.join(config.compiled, 'src', 'chat', 'transcript'));
const { piCompletions } = require(path.join(config.compiled, 'src', 'chat', 'commands'));
const { gaugeView, modelHasPrices } = require(path.join(config.compiled, 'src', 'chat', 'replyUsage'));

const received = [];
const waiters = [];

function note(kind, method, value) {
  received.push({ kind, method, value });
  for (const w of [...waiters]) {
    if (w.test()) {
      waiters.splice(waiters.indexOf(w), 1);
      w.resolve();
    }
  }
}

function until(test, what, ms = 120000) {
  if (test()) {
    return Promise.resolve();
  }
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), ms);
    waiters.push({ test, resolve: () => (clearTimeout(timer), resolve()) });
  });
}

(async () => {
  const child = spawn(config.server[0], config.server.slice(1), { env: config.env, cwd: config.cwd, stdio: ['pipe', 'pipe', 'inherit'] });
  const connection = rpc.createMessageConnection(new rpc.StreamMessageReader(child.stdout), new rpc.StreamMessageWriter(child.stdin));
  connection.onRequest('workspace/configuration', (params) => params.items.map(() => config.initializationOptions.piContext ?? null));
  connection.onRequest((method) => {
    note('request-from-server', method, null);
    return null;
  });
  connection.onNotification((method, params) => note('notification', method, params));
  connection.listen();
  async function ask(method, params) {
    try {
      const answer = await connection.sendRequest(method, params);
      note('answer', method, answer);
      return answer;
    } catch (error) {
      note('error', method, { message: String(error && error.message), data: error && error.data });
      throw error;
    }
  }

  await ask('initialize', {
    processId: process.pid,
    rootUri: config.rootUri,
    workspaceFolders: [{ uri: config.rootUri, name: config.folderName }],
    capabilities: { window: { workDoneProgress: true }, workspace: { configuration: true } },
    clientInfo: { name: 'Visual Studio Code', version: '1.100.0' },
    initializationOptions: config.initializationOptions,
  });
  connection.sendNotification('initialized', {});

  // The sidebar (src/sidebar/provider.ts posts { type: 'view', view: store.view() } on every change).
  const sidebar = [];
  const store = new ContextStore();
  store.setFolder(config.rootUri, config.folderName);
  store.attach({
    systemPrompt: (p) => ask('pi/systemPrompt', p),
    contextBudget: (p) => ask('pi/contextBudget', p),
    projectedRequest: (p) => ask('pi/projectedRequest', p),
    sessions: (p) => ask('pi/sessions', p),
    sessionTree: (p) => ask('pi/sessionTree', p),
    turnLedger: (p) => ask('pi/turnLedger', p),
  });
  store.onDidChange(() => sidebar.push({ type: 'view', view: store.view() }));
  store.setServerState({ state: 'running' });
  await store.refreshAll();
  sidebar.push({ type: 'view', view: store.view() });

  // The chat (src/chat/provider.ts): a transcript and a header, posted as 'reset' and 'header'.
  const chat = [];
  if (config.chat) {
    const locate = await ask('pi/chat/locate', {});
    if (!locate.found) {
      throw new Error(`Pi not found: ${locate.message}`);
    }
    let info = await ask('pi/chat/start', { workspaceFolder: config.rootUri });
    const chatId = info.chatId;
    const events = () => received.filter((r) => r.method === 'pi/chat/event' && r.value.chatId === chatId);
    const commands = await ask('pi/chat/commands', { chatId });
    let transcript = Transcript.fromMessages((await ask('pi/chat/messages', { chatId })).items);
    let seen = 0;
    for (const text of config.chat.prompts) {
      await ask('pi/chat/preflight', { chatId, text });
      await ask('pi/chat/prompt', { chatId, text });
      await until(() => events().slice(seen).some((e) => e.value.event.type === 'agent_settled'), 'agent_settled');
      for (const r of received.filter((x) => x.kind === 'notification' && x.value && x.value.chatId === chatId)) {
        if (r.method === 'pi/chat/event' && !r.folded && r.value.event.type !== 'extension_ui_request') {
          transcript.apply(r.value.event);
        } else if (r.method === 'pi/chat/notice' && !r.folded) {
          transcript.notice(r.value.level, r.value.message);
        }
        r.folded = true;
      }
      seen = events().length;
      info = await ask('pi/chat/state', { chatId });
      const budget = info.session ? await ask('pi/contextBudget', { session: info.session, workspaceFolder: config.rootUri }) : null;
      const state = info.state || {}; // Pi's get_state answer, as the provider reads it
      const model = state.model;
      chat.push({ type: 'reset', items: transcript.items });
      chat.push({
        type: 'header',
        header: {
          session: transcript.sessionName ?? state.sessionName ?? path.basename(info.session || '', '.jsonl'),
          sessionTitle: info.session,
          model: model ? `${model.provider}/${model.id}` : 'model',
          thinkingLevel: transcript.thinkingLevel ?? state.thinkingLevel,
          hasPrices: modelHasPrices(model),
          gauge: gaugeView(budget, transcript.lastUsage ? transcript.lastUsage.totalTokens : null),
          queue: transcript.queue,
          completions: piCompletions(commands.items),
        },
      });
    }
    const rebuilt = Transcript.fromMessages((await ask('pi/chat/messages', { chatId })).items); // a view opened later
    chat.push({ type: 'reset', items: rebuilt.items });
    await ask('pi/chat/stop', { chatId });
    await until(() => received.some((r) => r.method === 'pi/chat/exited'), 'pi/chat/exited', 30000);
    const exited = received.find((r) => r.method === 'pi/chat/exited');
    transcript.exited(exited.value.message, exited.value.expected);
    chat.push({ type: 'reset', items: transcript.items });
    await store.refreshSession(); // the sidebar follows the chat's session (Pi wrote its errors there)
    sidebar.push({ type: 'view', view: store.view() });
  }

  await ask('shutdown', null);
  connection.sendNotification('exit');
  await new Promise((resolve) => child.once('exit', resolve));
  connection.dispose();
  process.stdout.write(JSON.stringify({ sidebar, chat, received }));
})().catch((error) => {
  process.stderr.write(`${error && error.stack ? error.stack : error}\n`);
  process.exit(1);
});
