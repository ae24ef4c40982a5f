// Issue 19 in real VS Code: the six things the issue saw, repeated as a user would (test_live_truth_e2e.py).
// Elements are found through the data-testids of the Chat view's contract and the Context view's ids; the
// test scripts the model, changes Pi's settings, sets the window's machine setting and answers what only it
// can (SIGNAL ...). Screenshots land in outDir as NN-<name>.png.
'use strict';
const { createRun, Waiting } = require('./workbench');

const config = JSON.parse(process.argv[2]);
const run = createRun(config);
const { WAIT, shot, openContainer, textOf, until } = run;
const NEED_MS = 20000;
let page;
const view = run.chatView(NEED_MS);
const { chat, need, rootState, waitState } = view;

async function context() {
  return run.webviewFrame('main#app', 'the Context view');
}

async function send(text, options = {}) {
  const input = await need('textarea[data-testid=chat-input]', { state: 'visible' });
  await until(async () => input.isEnabled(), 'the input to be enabled');
  await input.click();
  await input.fill(text);
  const button = await need('[data-testid=chat-send]');
  await until(async () => button.isEnabled(), 'the send button to be enabled');
  await input.press('Enter');
  if (text.startsWith('/')) {
    // A command: Enter may first take the highlighted completion ("/compact "); the next Enter sends it.
    await page.waitForTimeout(300);
    if ((await input.inputValue()) === `${text.trim()} `) await input.press('Enter');
  }
  if (options.refused) return; // the host puts what it could not do back into the input
  await until(async () => (await input.inputValue()) === '', `the view to take "${text.slice(0, 30)}" from the input`, 15000);
}

async function finalReply(text) {
  const f = await chat();
  const message = f.locator('[data-testid=chat-message][data-role=assistant]', { hasText: text.slice(0, 40) }).last();
  await message.waitFor({ timeout: WAIT });
  await until(async () => !(await f.locator('[data-testid=chat-message][data-streaming=true]').count()), 'no message streaming');
  await waitState('idle');
  return message;
}

async function assistantCount() {
  return (await chat()).locator('[data-testid=chat-message][data-role=assistant]').count();
}

/** One prompt and its whole reply: a new assistant message (every reply has the same text), then idle. */
async function turn(prompt, script = 'answer') {
  const before = await assistantCount();
  await run.signal('script', script);
  await send(prompt);
  await until(async () => (await assistantCount()) > before, `a reply to "${prompt.slice(0, 30)}"`);
  await finalReply(config.answer);
}

/** The live notice of a kind, once shown (drift / trust). */
async function notice(kind, timeout = WAIT) {
  const f = await chat();
  const found = f.locator(`[data-testid=chat-live][data-kind=${kind}]`).first();
  await found.waitFor({ state: 'visible', timeout });
  return found;
}

async function noNotice(kind) {
  const f = await chat();
  await until(async () => !(await f.locator(`[data-testid=chat-live][data-kind=${kind}]`).count()), `the ${kind} notice to go`);
}

/** The buttons of VS Code's modal dialog (the Trust Project confirmation). */
async function dialogButton(label) {
  const b = page.locator('.monaco-dialog-box .dialog-buttons a.monaco-button, .monaco-dialog-box .dialog-buttons button', { hasText: label }).first();
  await b.waitFor({ state: 'visible', timeout: WAIT });
  return b;
}

async function gaugeFigure() {
  const g = (await chat()).locator('[data-testid=chat-gauge]').first();
  return { tokens: Number(await g.getAttribute('data-tokens')), label: (await textOf(g)).replace(/\s+/g, ' ') };
}

async function statusBarText() {
  const item = page.locator('.statusbar-item', { hasText: /% of / }).first();
  await item.waitFor({ timeout: WAIT });
  return (await textOf(item)).replace(/\s+/g, ' ');
}

async function contextHeadline() {
  const f = await context();
  const h = f.locator('#budget-headline').first();
  await h.waitFor({ timeout: WAIT });
  return (await textOf(h)).replace(/\s+/g, ' ');
}

async function systemRow() {
  const f = await context();
  const row = f.locator('#budget-legend tr.group-row[data-group=system]').first();
  await row.waitFor({ timeout: WAIT });
  return (await textOf(row)).replace(/\s+/g, ' ');
}

/** The chat's gauge, the status bar and the Context view's headline say the same tokens of the same window. */
async function oneFigure(what) {
  return until(async () => {
    const g = await gaugeFigure();
    const bar = await statusBarText();
    const head = await contextHeadline();
    const percent = (g.label.match(/^(\S+) of (\S+)/) || []).slice(1).join(' of ');
    const tokens = g.tokens.toLocaleString('en-US');
    if (percent && bar.includes(percent) && head.includes(`${tokens} tokens by Pi`)) {
      return `${what}: gauge "${g.label}" (${tokens}), status bar "${bar}", Context view "${head.slice(0, 60)}"`;
    }
    return null;
  }, `one figure ${what}: gauge ${JSON.stringify(await gaugeFigure())}, status bar "${await statusBarText()}", headline "${await contextHeadline()}"`, 30000);
}

/** Widens the side bar (drags the sash at its right edge) so both views read well in the screenshots. */
async function widenSidebar(width) {
  const box = await page.locator('.part.sidebar').first().boundingBox();
  if (!box || box.width >= width) return;
  const y = box.y + box.height / 2;
  await page.mouse.move(box.x + box.width + 1, y);
  await page.mouse.down();
  await page.mouse.move(box.x + width, y, { steps: 8 });
  await page.mouse.up();
}

async function saveAgentsMd() {
  await run.quickOpen('AGENTS.md');
  const editor = page.locator('.editor-instance .monaco-editor').first();
  await editor.click();
  await page.keyboard.press('Control+End');
  await page.keyboard.type(`\n${config.agentsV2Line}\n`);
  await page.keyboard.press('Control+S');
  await until(async () => !(await page.locator('.tabs-container .tab.dirty', { hasText: 'AGENTS.md' }).count()), 'AGENTS.md saved');
}

(async () => {
  page = await run.launch();

  await run.step('workbench', async () => {
    await run.openFolder(config.folder, 'notes.txt');
    await openContainer(); // Context and Sessions: the primary side bar
    await widenSidebar(560);
    await run.openChat(); // the chat: Pi Chat, in the secondary side bar
    await run.widenChat(480);
    return 'workbench open on the release project';
  });

  // 4. No Pi to find: the notice names the setting and where it lives; setting it starts Pi, no restart.
  await run.step('live-no-pi', async () => {
    await chat(WAIT);
    await run.setSessionsExpanded(false);
    await waitState('no-pi');
    const help = await textOf(await need('[data-testid=chat-no-pi-help]', { state: 'visible' }));
    if (!help.includes('piContext.pi.command') || !/machine setting/.test(help) || !/no restart/.test(help)) {
      throw new Error(`the notice does not name the setting and where it lives: "${help}"`);
    }
    const said = await textOf(await need('[data-testid=chat-no-pi]'));
    await shot('issue19-4-no-pi');
    // Open Setting: the settings editor on the tab where this machine setting lives, showing it.
    await (await need('[data-testid=chat-open-pi-setting]', { state: 'visible' })).click();
    const editor = page.locator('.settings-editor').first();
    await editor.waitFor({ state: 'visible', timeout: WAIT });
    await until(async () => (await page.locator('.settings-editor .setting-item-contents', { hasText: 'The command line that starts Pi' }).count()) > 0,
      'the settings editor to show piContext.pi.command');
    const tab = await textOf(page.locator('.settings-editor .settings-tabs-widget .action-label.checked').first()).catch(() => '?');
    await shot('issue19-4-setting');
    await page.keyboard.press('Control+W');
    await run.signal('set-pi-command', config.piCommand);
    let how = 'the chat looked again when the setting changed';
    try {
      await until(async () => (await rootState()) === 'idle', 'the chat to start Pi by itself', 20000);
    } catch {
      how = 'New Chat started it';
      await (await need('[data-testid=chat-try-again]', { state: 'visible' })).click();
      await waitState('idle');
    }
    const model = await need('[data-testid=chat-model]');
    await until(async () => /\//.test(await textOf(model)), "the header to name Pi's model");
    if (await (await chat()).locator('[data-testid=chat-no-pi]').first().isVisible()) {
      throw new Error('the Pi-missing notice stayed after Pi started');
    }
    await shot('issue19-4-pi-found');
    return `"${said.slice(0, 80)}…" + "${help}"; Open Setting shows it on the "${tab}" tab; then ${how}: ` +
      `model ${await textOf(model)}, notice gone`;
  });

  // 6. Pi leaves the project's skill out; Trust Project refused keeps that, confirmed restarts Pi with it.
  await run.step('live-trust', async () => {
    const shown = await notice('trust');
    const text = await textOf(shown);
    if (!text.includes('.pi/skills') || !text.includes('Trust Project')) throw new Error(`the trust notice says "${text}"`);
    await shot('issue19-6-trust');
    const action = shown.locator('[data-testid=chat-live-action][data-action=trust]').first();
    await action.click();
    await (await dialogButton('Cancel')).click();
    await page.waitForTimeout(500);
    if (!(await shown.isVisible())) throw new Error('refusing trust changed the chat');
    if (await run.signal('trust-store')) throw new Error('refusing trust wrote the trust store');
    await action.click();
    await shot('issue19-6-trust-confirm');
    await (await dialogButton('Trust Project')).click();
    await noNotice('trust');
    await waitState('idle');
    await run.signal('mark', 'trusted');
    await turn('E2E-TRUSTED: which skills do you have?');
    const sent = await run.signal('requests-since', 'trusted');
    if (!sent.length || !sent[0].system.includes(config.skillDescription)) {
      throw new Error("the model did not receive the project's skill after Trust Project");
    }
    await shot('issue19-6-trusted');
    return `notice "${text.slice(0, 90)}…"; Cancel kept it; Trust Project: trust.json ${JSON.stringify(await run.signal('trust-store'))}, the new Pi sent the skill`;
  });

  // 1. AGENTS.md saved during the chat: Pi keeps the prompt it read, the views say so, Reload Pi takes it up.
  await run.step('live-banner', async () => {
    await turn('E2E-FIRST: when is the release?');
    await run.signal('mark', 'before-save');
    await saveAgentsMd();
    const shown = await notice('drift');
    const text = await textOf(shown);
    if (!text.includes('AGENTS.md') || !text.includes('Reload Pi')) throw new Error(`the chat's notice says "${text}"`);
    await openContainer();
    await run.setViewExpanded('Context', true);
    const f = await context();
    const session = f.locator('[data-testid=save-cost-session]').first();
    await until(async () => /open in the chat/.test(await textOf(session).catch(() => '')), 'the banner to speak of the chat');
    const banner = await textOf(session);
    if (/records the sections/.test(banner) && !/then records/.test(banner)) throw new Error(`the banner claims Pi records: "${banner}"`);
    const prices = banner.split('Reload Pi')[0].match(/≈ \$[\d.]+/g) || [];
    if (prices.length > 1) throw new Error(`two prices for the next request: "${banner}"`);
    const origin = f.locator('#prompt-origin');
    const note = (await origin.count()) ? await textOf(origin.first()) : '';
    if (/before its next request in this session Pi records/.test(note)) throw new Error(`the note claims what Pi does not do: "${note}"`);
    const priceLine = f.locator('[data-testid=request-price]').first();
    const nextPrice = (await priceLine.count()) ? await textOf(priceLine) : '';
    await run.settled(() => f.locator('#last-change').first().scrollIntoViewIfNeeded());
    await shot('issue19-1-banner');
    await turn('E2E-SECOND: and the owner?');
    const sent = await run.signal('requests-since', 'before-save');
    if (sent[0].system.includes(config.agentsV2Line)) throw new Error('Pi sent the saved AGENTS.md without a reload');
    await (await need('[data-testid=chat-live-action][data-action=reload]', { state: 'visible' })).click();
    await noNotice('drift');
    await run.signal('mark', 'after-reload');
    await turn('E2E-THIRD: and now?');
    const after = await run.signal('requests-since', 'after-reload');
    if (!after[0].system.includes(config.agentsV2Line)) throw new Error('Pi did not send the saved AGENTS.md after Reload Pi');
    await shot('issue19-1-reloaded');
    return `chat: "${text.slice(0, 80)}…"; banner: "${banner.slice(0, 120)}…" (next request ${nextPrice}); ` +
      'Pi sent the old prompt, then the new one after Reload Pi';
  });

  // 2. Pi's settings changed: /compact says what Pi says, once; after Reload Pi the preview and Pi agree.
  await run.step('live-compact', async () => {
    await run.signal('pi-settings', { keepRecentTokens: 10 });
    const shown = await notice('drift');
    const text = await textOf(shown);
    if (!text.includes('compaction.keepRecentTokens')) throw new Error(`the notice says "${text}"`);
    await send('/compact', { refused: true });
    const f = await chat();
    await until(async () => (await f.locator('[data-testid=chat-message][data-role=notice]', { hasText: 'Nothing to compact' }).count()) > 0,
      'the refusal in the conversation');
    await (await need('textarea[data-testid=chat-input]')).fill('');
    const said = await f.locator(':is([data-testid=chat-message][data-role=notice], [data-testid=chat-event])', { hasText: 'Nothing to compact' }).count();
    if (said !== 1) throw new Error(`the refusal is said ${said} times`);
    if (await f.locator('[data-testid=chat-compact-preview]').count()) throw new Error('a preview was offered for what Pi refuses');
    await run.settled(() => f.locator('[data-testid=chat-message][data-role=notice]', { hasText: 'Nothing to compact' }).last().scrollIntoViewIfNeeded());
    await shot('issue19-2-compact-refused');
    await (await need('[data-testid=chat-live-action][data-action=reload]', { state: 'visible' })).click();
    await noNotice('drift');
    await run.signal('script', 'summary');
    await send('/compact');
    const confirm = await need('[data-testid=chat-compact-confirm]', { state: 'visible', timeout: WAIT });
    await confirm.click();
    await need('[data-testid=chat-event][data-kind=compaction]', { timeout: WAIT });
    await waitState('idle');
    await shot('issue19-2-compacted');
    return `"${text.slice(0, 90)}…"; /compact refused once ("Nothing to compact"), as Pi; after Reload Pi, previewed and compacted`;
  });

  // 3. One figure: during a reply right after the compaction, after it, and after a window reload.
  await run.step('live-numbers', async () => {
    await run.setViewExpanded('Context', true);
    const seen = [await oneFigure('after the compaction')];
    await run.signal('script', 'held');
    await send('E2E-NUMBERS: the checklist?');
    await need('[data-testid=chat-message][data-role=assistant][data-streaming=true]', { timeout: WAIT });
    seen.push(await oneFigure('while the reply streams'));
    await shot('issue19-3-numbers');
    await run.signal('release');
    await finalReply(config.answer);
    seen.push(await oneFigure('after the reply'));
    const rowBefore = await systemRow();
    await turn('E2E-NUMBERS-2: and after that?');
    seen.push(await oneFigure('after one more reply'));
    const rowAfter = await systemRow();
    if (rowBefore !== rowAfter) {
      throw new Error(`the System prompt row moved for an unchanged prompt: "${rowBefore}" -> "${rowAfter}"`);
    }
    await page.evaluate(() => { window.__e2eOldWindow = true; });
    view.frame = null;
    await run.palette('Developer: Reload Window');
    await until(async () => (await page.evaluate(() => window.__e2eOldWindow !== true).catch(() => false)), 'a new window');
    await page.waitForSelector('.monaco-workbench', { timeout: WAIT });
    await openContainer();
    await run.openChat();
    await chat(WAIT);
    await run.setViewExpanded('Context', true);
    seen.push(await oneFigure('after a window reload'));
    await shot('issue19-3-after-reload');
    return `${seen.join('; ')}; System prompt row "${rowAfter}" unchanged over a turn`;
  });

  // 5. Steering queued, then Stop: the queue is cleared, its text is back in the input, never sent.
  await run.step('live-stop', async () => {
    await run.signal('script', 'held');
    await send('E2E-STOP: write the long checklist.');
    await need('[data-testid=chat-message][data-role=assistant][data-streaming=true]', { timeout: WAIT });
    await waitState('streaming');
    await send(config.steer);
    const queue = await need('[data-testid=chat-queue]', { state: 'visible' });
    await until(async () => (await textOf(queue)).includes(config.steer), 'the queue to show the steering message');
    if (!(await queue.locator('[data-testid=chat-queue-take-back]').count())) throw new Error('the queue offers no Take back');
    await shot('issue19-5-queued');
    await (await need('[data-testid=chat-stop]', { state: 'visible' })).click();
    await waitState('idle');
    const input = await need('textarea[data-testid=chat-input]');
    await until(async () => (await input.inputValue()).includes(config.steer), 'the steering text back in the input');
    if (await queue.isVisible()) throw new Error('the queue is still shown after Stop');
    await shot('issue19-5-stop');
    await input.fill('');
    await run.signal('release');
    await turn('E2E-AFTER-STOP: an unrelated question.');
    return 'the steering message was queued with Take back; Stop cleared it and put its text back in the input';
  });

  await run.finish();
})().catch(run.crashed);
