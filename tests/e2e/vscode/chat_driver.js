// Drives the Pi Context Chat view in real VS Code (code-server, headless chromium, playwright-core)
// with real Pi behind it. Called by test_chat_e2e.py with one JSON argument (prompts, replies, the
// gauge's expected tokens, expect: {<step>: true|"waiting reason"}). The view is found only through
// the data-testids of its contract (docs of the chat view). A step whose element the view does not
// have yet is *waiting* (the selector is named), not failed; a wrong state or text fails.
// The test scripts the fake model per step and answers questions (SIGNAL script/release/...).
// Screenshots land in outDir as NN-<step>.png.
'use strict';
const { createRun, Waiting } = require('./workbench');

const config = JSON.parse(process.argv[2]);
const run = createRun(config);
const { WAIT, shot, openContainer, textOf, until } = run;
const NEED_MS = config.needMs || 20000;
let page;
const view = run.chatView(NEED_MS);
const { chat, need, rootState, waitState } = view;
const gauge = [];

async function gaugeTokens() {
  const g = (await chat()).locator('[data-testid=chat-gauge]').first();
  if (!(await g.count())) return null;
  const raw = await g.getAttribute('data-tokens');
  return raw === null || raw === '' ? null : Number(raw);
}

/** Types ``text`` into the input and sends it with Enter. */
async function send(text) {
  const input = await need('textarea[data-testid=chat-input]', { state: 'visible' });
  await input.click();
  await input.fill(text);
  await input.press('Enter');
  // The view takes the text out of the input when it sends it.
  await until(async () => (await input.inputValue()) === '', `the view to take "${text.slice(0, 30)}" from the input`, 10000);
}

/** The last assistant message, once it holds ``text`` and no longer streams. */
async function finalReply(text) {
  const f = await chat();
  const message = f.locator('[data-testid=chat-message][data-role=assistant]', { hasText: text }).last();
  await message.waitFor({ timeout: WAIT });
  await until(async () => (await message.getAttribute('data-streaming')) !== 'true', 'the reply to stop streaming');
  await until(async () => !(await f.locator('[data-testid=chat-message][data-streaming=true]').count()), 'no message streaming');
  await waitState('idle');
  return message;
}

async function chatStep(name, fn) {
  await run.step(name, async () => {
    if (name !== 'chat-view' && !view.frame) throw new Waiting('waits for the chat view (step chat-view)');
    return fn();
  });
}

(async () => {
  page = await run.launch();

  await run.step('workbench', async () => {
    await run.openFolder(config.folder, 'notes.txt');
    await run.quickOpen('notes.txt'); // the file Pi will read, beside the chat
    return 'workbench open on the chat workspace';
  });

  await chatStep('chat-view', async () => {
    // The chat has a container of its own in the secondary side bar (Pi Chat), opened by its focus command.
    await run.openChat();
    await chat();
    await run.widenChat(config.sidebarWidth || 560);
    const end = Date.now() + WAIT;
    let state;
    while ((state = await rootState()) !== 'idle') {
      if (state === 'no-pi') {
        throw new Error(`the view says Pi is missing: ${await textOf((await chat()).locator('[data-testid=chat-no-pi]'))}`);
      }
      if (Date.now() > end) throw new Error(`chat-root stayed data-state=${state}`);
      await page.waitForTimeout(200);
    }
    await need('textarea[data-testid=chat-input]', { state: 'visible' });
    // data-state is idle before the server (and Pi) run: Pi is up once the header names its model.
    const model = await need('[data-testid=chat-model]');
    await until(async () => /\//.test(await textOf(model)), "the header to name Pi's model (Pi started)").catch(async (e) => {
      throw new Error(`${e.message}; the header says "${await textOf((await chat()).locator('header, [data-testid=chat-root]').first())}"`);
    });
    gauge.push({ when: 'opened', tokens: await gaugeTokens() });
    // What this Pi lacks, one sentence naming the Pi that has it (chat/capabilities.ts), or nothing at all.
    const featuresOff = (await chat()).locator('[data-testid=chat-features-off]');
    const saidOff = (await featuresOff.isVisible()) ? await textOf(featuresOff) : '';
    if (config.featuresOff) {
      if (!saidOff.includes(config.featuresOff)) throw new Error(`the header does not say "${config.featuresOff}": "${saidOff}"`);
    } else if (saidOff) {
      throw new Error(`the header says features are off with this Pi: "${saidOff}"`);
    }
    await shot('chat-idle');
    return `Chat view open, Pi ${config.piVersion} started (data-state=idle, model ${await textOf(model)})${saidOff ? `; "${saidOff}"` : ''}`;
  });

  await chatStep('chat-stream', async () => {
    await run.signal('script', 'stream');
    await send(config.prompt);
    const f = await chat();
    await need('[data-testid=chat-message][data-role=user]');
    const user = f.locator('[data-testid=chat-message][data-role=user]', { hasText: config.prompt }).last();
    await user.waitFor({ timeout: WAIT });
    // The model holds its stream after two chunks: the reply is visibly streaming now.
    const streaming = await need('[data-testid=chat-message][data-role=assistant][data-streaming=true]', { timeout: WAIT });
    await waitState('streaming');
    const head = config.reply.slice(0, 16);
    await until(async () => (await textOf(streaming)).includes(head), `the streamed head "${head}"`);
    const partial = await textOf(streaming);
    if (partial.includes(config.reply)) throw new Error('the whole reply was shown while the model held its stream');
    await shot('chat-streaming');
    await run.signal('release');
    const message = await finalReply(config.reply);
    const usage = message.locator('[data-testid=chat-usage]');
    const usageText = (await usage.count()) ? await textOf(usage.first()) : '(no chat-usage)';
    await shot('chat-reply');
    return `streamed ("${partial}"), then "${config.reply.slice(0, 30)}..." final; usage: ${usageText}`;
  });

  await chatStep('chat-tool', async () => {
    // The gauge follows the file (pi/sessionChanged, then pi/contextBudget): give it a moment.
    await until(async () => (await gaugeTokens()) === config.gaugeAfterStream, 'the gauge after the first turn', 15000).catch(() => {});
    gauge.push({ when: 'after stream', tokens: await gaugeTokens() });
    await run.signal('script', 'tool');
    await send(config.toolPrompt);
    const card = await need('[data-testid=chat-tool][data-tool=read]', { timeout: WAIT });
    await until(async () => ['done', 'error'].includes(await card.getAttribute('data-status')), 'the read card to end');
    const status = await card.getAttribute('data-status');
    if (status !== 'done') throw new Error(`the read card ended ${status}`);
    const args = await textOf(await need('[data-testid=chat-tool-args]', { within: card }));
    if (!args.includes('notes.txt')) throw new Error(`the card's arguments do not name notes.txt: ${args}`);
    const output = await need('[data-testid=chat-tool-output]', { within: card });
    // The output may be collapsed: its text is in the DOM either way.
    const shown = ((await output.textContent()) || '').trim();
    if (!shown.includes(config.notesLine)) throw new Error(`the card's output lacks the file's text: ${shown.slice(0, 200)}`);
    const duration = card.locator('[data-testid=chat-tool-duration]');
    const took = (await duration.count()) ? await textOf(duration.first()) : '';
    // Pi 1.1.0 and later report how long a tool ran; an older Pi does not, and the card shows none.
    if (config.durations && !/ms$/.test(took)) throw new Error(`the card shows no duration: "${took}"`);
    if (!config.durations && took) throw new Error(`the card shows a duration this Pi never reported: "${took}"`);
    await finalReply(config.toolReply);
    const fold = card.locator('details > summary').first();
    if (await fold.count()) await run.settled(() => fold.click()); // open "Arguments and output" for the screenshot
    await run.settled(() => card.scrollIntoViewIfNeeded());
    await shot('chat-tool-card');
    return `read card done (args ${args.replace(/\s+/g, ' ')}, ${took || 'no duration'}), output shows notes.txt`;
  });

  await chatStep('chat-gauge', async () => {
    await need('[data-testid=chat-gauge]');
    const g = (await chat()).locator('[data-testid=chat-gauge]').first();
    const window = Number(await g.getAttribute('data-window'));
    if (window !== config.window) throw new Error(`gauge data-window=${window}, the model's window is ${config.window}`);
    // After a turn the gauge shows Pi's context tokens: the last reply's usage (input + output).
    await until(async () => (await gaugeTokens()) === config.gaugeAfterTool,
      `gauge data-tokens=${config.gaugeAfterTool} after the tool turn`).catch(async (e) => {
      throw new Error(`${e.message}; it shows ${await gaugeTokens()} (history ${JSON.stringify(gauge)})`);
    });
    gauge.push({ when: 'after tool turn', tokens: await gaugeTokens() });
    const afterStream = gauge.find((g) => g.when === 'after stream');
    if (afterStream && afterStream.tokens !== config.gaugeAfterStream) {
      throw new Error(`gauge showed ${afterStream.tokens} after the first turn, Pi's usage says ${config.gaugeAfterStream}`);
    }
    const opened = gauge.find((g) => g.when === 'opened');
    if (opened && opened.tokens === config.gaugeAfterTool) throw new Error('the gauge did not move');
    const percent = await g.getAttribute('data-percent');
    return `data-tokens ${gauge.map((x) => x.tokens).join(' -> ')} of ${window} (${percent}%)`;
  });

  await chatStep('chat-price', async () => {
    // Typing (not sending) a prompt: the line above the input prices it (pi/chat/preflight's nextRequest).
    const input = await need('textarea[data-testid=chat-input]', { state: 'visible' });
    await input.click();
    await input.fill(config.pricePrompt);
    const line = await need('[data-testid=chat-next-request]', { state: 'visible', timeout: WAIT });
    await until(async () => /^Next request: \S+ cached \+ \S+ new · /.test(await textOf(line)), 'the price line above the input');
    const text = await textOf(line);
    // The tool turn just ended: the cache is alive (models.json: 5 minutes), priced at the model's rates, in the one
    // cost format (4 significant digits under $1, model/money.ts).
    if (!/cache alive for .* · ≈ \$0\.\d*[1-9]\d{0,3}$/.test(text)) throw new Error(`the price line says "${text}"`);
    const title = (await line.getAttribute('title')) || '';
    if (!title.includes('Byte-identical prefix with the previous request') || !title.includes('prices from models.json')) {
      throw new Error(`the price line's hover lacks the prefix or the prices' source: ${title}`);
    }
    await shot('chat-price');
    await input.fill('');
    await until(async () => !(await line.isVisible()), 'the price line to go with the text');
    return `"${text}"`;
  });

  await chatStep('chat-stop', async () => {
    await run.signal('script', 'stop');
    await send(config.stopPrompt);
    await need('[data-testid=chat-message][data-role=assistant][data-streaming=true]', { timeout: WAIT });
    await waitState('streaming');
    const stop = await need('[data-testid=chat-stop]', { state: 'visible' });
    await until(async () => stop.isEnabled(), 'the stop button to be enabled while streaming');
    await shot('chat-before-stop');
    await run.settled(() => stop.click());
    // The message ends, Pi settles (data-state back to idle), and Pi closed the model's stream.
    const f = await chat();
    await until(async () => !(await f.locator('[data-testid=chat-message][data-streaming=true]').count()), 'the stopped reply to end');
    await waitState('idle');
    if (await stop.isEnabled().catch(() => false)) {
      const hidden = !(await stop.isVisible().catch(() => false));
      if (!hidden) throw new Error('the stop button stays enabled after the reply ended');
    }
    const closed = await run.signal('stream-closed');
    if (!closed) throw new Error('Pi did not close the held model stream after stop');
    const processes = await run.signal('pi-processes');
    if (processes !== 1) throw new Error(`${processes} processes carry the chat's marker after stop (expected Pi alone)`);
    await shot('chat-stopped');
    return 'stop ended the held reply; Pi settled and closed the stream; one Pi process';
  });

  await chatStep('chat-compact', async () => {
    await run.signal('script', 'compact');
    const input = await need('textarea[data-testid=chat-input]', { state: 'visible' });
    await input.click();
    await input.fill('');
    await input.type('/comp');
    const item = await need('[data-testid=chat-completions] [data-testid=chat-completion][data-value="/compact"]', { state: 'visible' });
    await shot('chat-command-completion');
    await run.settled(() => item.click());
    let typed = await input.inputValue();
    if (!typed.startsWith('/compact')) throw new Error(`picking /compact left "${typed}" in the input`);
    await input.fill(`/compact ${config.compactFocus}`);
    typed = await input.inputValue();
    await input.press('Enter');
    const before = await run.signal('sessions');
    const confirm = await need('[data-testid=chat-compact-confirm]', { state: 'visible', timeout: WAIT });
    // What Pi's compaction will cost and save, before it runs (docs/cost.md).
    const cost = await textOf(await need('[data-testid=chat-compact-cost]'));
    if (!/summary requests?: [\d,]+ tokens in/.test(cost) || !/\(estimated: /.test(cost) || !/(Pays for itself|break-even|Break-even)/.test(cost)) {
      throw new Error(`the compaction card does not price the compaction: "${cost}"`);
    }
    await run.settled(() => confirm.scrollIntoViewIfNeeded());
    await shot('chat-compact-preview');
    const unchanged = await run.signal('sessions');
    if (JSON.stringify(unchanged) !== JSON.stringify(before)) throw new Error('the preview wrote to the session');
    await run.settled(() => confirm.click());
    const event = await need('[data-testid=chat-event][data-kind=compaction]', { timeout: WAIT });
    await waitState('idle');
    const after = await run.signal('sessions');
    const compacted = after.filter((s) => s.types.includes('compaction'));
    if (!compacted.length) throw new Error("Pi's compaction entry is not in the session file");
    await run.settled(() => event.scrollIntoViewIfNeeded());
    await shot('chat-compacted');
    return `"${typed}": preview (${cost.replace(/\s+/g, ' ').slice(0, 160)}…), confirm, Pi appended a compaction to ${compacted[0].name}`;
  });

  await chatStep('chat-fork', async () => {
    const f = await chat();
    await need('[data-testid=chat-message][data-role=user] [data-testid=chat-fork]');
    const before = await run.signal('sessions');
    // Fork from the second user message (the tool prompt): the new file holds the first turn.
    const message = f.locator('[data-testid=chat-message][data-role=user]', { hasText: config.toolPrompt }).first();
    await message.waitFor({ timeout: WAIT });
    const entryId = await message.getAttribute('data-entry-id');
    await run.settled(() => message.hover());
    await run.settled(() => message.locator('[data-testid=chat-fork]').first().click());
    // The fork puts the message back in the input to edit; the conversation is the one before it.
    const input = f.locator('textarea[data-testid=chat-input]').first();
    await until(async () => (await input.inputValue()) === config.toolPrompt, 'the forked message back in the input');
    await until(async () => !(await f.locator('[data-testid=chat-message][data-role=user]', { hasText: config.toolPrompt }).count()),
      'the forked message and what followed it to leave the conversation');
    await shot('chat-forked');
    await run.signal('script', 'fork');
    await send(config.forkPrompt);
    await finalReply(config.forkReply);
    const after = await until(async () => {
      const now = await run.signal('sessions');
      return now.find((s) => !before.some((b) => b.path === s.path) && s.parentSession) ? now : null;
    }, 'Pi to write the forked session file');
    const forked = after.find((s) => !before.some((b) => b.path === s.path) && s.parentSession);
    await openContainer(); // the Sessions view: the primary side bar, beside the chat
    await run.setViewExpanded('Context', false);
    await run.setSessionsExpanded(true);
    // Sessions are listed by title (the first message: the fork keeps the conversation before the edited one),
    // newest first: the forked file is the first row with the chat's first prompt.
    const row = page.locator('.part.sidebar .monaco-list-row', { hasText: config.prompt.slice(0, 24) }).first();
    await row.waitFor({ timeout: WAIT }).catch(() => {
      throw new Error(`the Sessions tree does not list the forked ${forked.name} by its title`);
    });
    if ((await row.getAttribute('aria-expanded')) === 'false') await row.click();
    const edited = page.locator('.part.sidebar .monaco-list-row', { hasText: config.forkPrompt.slice(0, 24) }).first();
    await edited.waitFor({ timeout: WAIT }).catch(() => {
      throw new Error(`the forked session's tree does not show "${config.forkPrompt.slice(0, 24)}"`);
    });
    await shot('chat-fork-tree');
    return `forked at ${entryId}: ${forked.name} (parent ${forked.parentSession.split('/').pop()}) in the tree, ` +
      'with the edited message on its branch';
  });

  let lastReply = config.forkReply; // the reply the reload step expects to find again
  await chatStep('chat-retry', async () => {
    // Retry on the message just sent on the forked branch: a fork at it, then the same text again.
    const f = await chat();
    await need('[data-testid=chat-message][data-role=user] [data-testid=chat-retry]');
    const before = await run.signal('sessions');
    const message = f.locator('[data-testid=chat-message][data-role=user]', { hasText: config.forkPrompt }).last();
    await message.waitFor({ timeout: WAIT });
    await until(async () => Boolean(await message.getAttribute('data-entry-id')), 'the message to get its session entry id');
    await run.signal('script', 'retry');
    await run.settled(() => message.hover());
    await run.settled(() => message.locator('[data-testid=chat-retry]').first().click());
    await finalReply(config.retryReply);
    const sent = await f.locator('[data-testid=chat-message][data-role=user]', { hasText: config.forkPrompt }).count();
    if (sent !== 1) throw new Error(`the retried message shows ${sent} times (once: the branch before it, then it again)`);
    if (await f.locator('[data-testid=chat-message][data-role=assistant]', { hasText: config.forkReply }).count()) {
      throw new Error('the reply that was retried is still in the conversation');
    }
    const after = await until(async () => {
      const now = await run.signal('sessions');
      return now.find((s) => !before.some((b) => b.path === s.path) && s.parentSession) ? now : null;
    }, 'Pi to write the retried branch');
    const retried = after.find((s) => !before.some((b) => b.path === s.path) && s.parentSession);
    await shot('chat-retried');
    lastReply = config.retryReply;
    return `retried "${config.forkPrompt.slice(0, 24)}": a new branch ${retried.name}, the same text sent again, a new reply`;
  });

  await chatStep('chat-reload', async () => {
    // The webview is reloaded while Pi streams: the turn goes on in Pi, and the view shows it again.
    await run.setSessionsExpanded(false);
    await run.signal('script', 'reload');
    await send(config.reloadPrompt);
    await need('[data-testid=chat-message][data-role=assistant][data-streaming=true]', { timeout: WAIT });
    await (await chat()).evaluate(() => { window.__e2eBeforeReload = true; });
    view.frame = null;
    await run.palette('Developer: Reload Webviews');
    const f = await until(async () => {
      const found = await chat(WAIT);
      return (await found.evaluate(() => window.__e2eBeforeReload === true).catch(() => true)) ? null : found;
    }, 'a reloaded Chat webview (a new document)');
    const user = f.locator('[data-testid=chat-message][data-role=user]', { hasText: config.reloadPrompt }).last();
    await user.waitFor({ timeout: WAIT });
    await waitState('streaming');
    const head = config.reloadReply.slice(0, 16);
    const streaming = f.locator('[data-testid=chat-message][data-role=assistant][data-streaming=true]').first();
    await until(async () => (await textOf(streaming)).includes(head), `the reloaded view to show the streamed head "${head}"`);
    await shot('chat-reloaded-streaming');
    await run.signal('release');
    await finalReply(config.reloadReply);
    const earlier = await f.locator('[data-testid=chat-message][data-role=assistant]', { hasText: lastReply }).count();
    if (!earlier) throw new Error('the reloaded view lost the earlier reply');
    return 'webview reloaded mid-stream: the conversation and the running reply came back, and the reply ended';
  });

  await chatStep('chat-window-reload', async () => {
    // The window is reloaded while Pi streams: the extension host and the language server start again,
    // Pi goes on under its keeper, and the new window's Chat view takes the turn up and shows it to the end.
    await run.signal('script', 'window-reload');
    await send(config.windowReloadPrompt);
    const head = config.windowReloadReply.slice(0, 16);
    const before = await need('[data-testid=chat-message][data-role=assistant][data-streaming=true]', { timeout: WAIT });
    await until(async () => (await textOf(before)).includes(head), `the streamed head "${head}"`);
    const was = await run.signal('chat-pids');
    if (was.pi.length !== 1 || was.servers.length !== 1) throw new Error(`before the reload: ${JSON.stringify(was)}`);
    await page.evaluate(() => { window.__e2eOldWindow = true; });
    view.frame = null;
    await run.palette('Developer: Reload Window');
    await until(async () => (await page.evaluate(() => window.__e2eOldWindow !== true).catch(() => false)),
      'a new window (a new document)');
    await page.waitForSelector('.monaco-workbench', { timeout: WAIT });
    await run.openChat();
    const reloadedAt = Date.now();
    const f = await chat(WAIT);
    const user = f.locator('[data-testid=chat-message][data-role=user]', { hasText: config.windowReloadPrompt }).last();
    await user.waitFor({ timeout: WAIT });
    await waitState('streaming');
    const streaming = f.locator('[data-testid=chat-message][data-role=assistant][data-streaming=true]').first();
    await until(async () => (await textOf(streaming)).includes(head), `the new window to show the streamed head "${head}"`);
    const shownAfterMs = Date.now() - reloadedAt;
    const now = await run.signal('chat-pids');
    if (JSON.stringify(now.pi) !== JSON.stringify(was.pi)) {
      throw new Error(`Pi changed across the reload: ${JSON.stringify(was.pi)} -> ${JSON.stringify(now.pi)}`);
    }
    if (now.servers.length !== 1 || now.servers[0] === was.servers[0]) {
      throw new Error(`the language server was not restarted by the reload: ${JSON.stringify(was)} -> ${JSON.stringify(now)}`);
    }
    await shot('chat-window-reloaded-streaming');
    await run.signal('release');
    await finalReply(config.windowReloadReply);
    // The replies finished before the reload (the last one of the earlier steps, then the webview reload's)
    // are in the new window's conversation too.
    for (const reply of [lastReply, config.reloadReply]) {
      const earlier = await f.locator('[data-testid=chat-message][data-role=assistant]', { hasText: reply }).count();
      if (!earlier) throw new Error(`the new window lost the earlier reply "${reply.slice(0, 40)}"`);
    }
    await shot('chat-window-reloaded');
    return `window reloaded mid-stream: a new server (pid ${was.servers[0]} -> ${now.servers[0]}), the same Pi ` +
      `(${now.pi[0]}); the running reply shown ${shownAfterMs} ms after the new workbench, then ended`;
  });

  await run.finish({ gauge });
})().catch(run.crashed);
