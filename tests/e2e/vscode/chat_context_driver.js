// Drives the Chat view's context features in real VS Code (code-server, headless chromium) with real Pi behind it.
// Called by test_chat_context_e2e.py with one JSON argument. Steps: the view opened through its own focus command
// (piContext.chat.focus, from the command palette), `@` completion and a chip, Add Selection to Chat, the line under
// the input, a sent prompt, a turn that edits and writes, Review (the multi-file diff), Undo, and Undo refused.
// Screenshots land in outDir as NN-<name>.png, and the docs' three as chat-attach.png, chat-review.png, chat-undo.png.
'use strict';
const path = require('path');
const { createRun, Waiting } = require('./workbench');

const config = JSON.parse(process.argv[2]);
const run = createRun(config);
const { WAIT, shot, textOf, until } = run;
const NEED_MS = config.needMs || 20000;
let page;
const view = run.chatView(NEED_MS);
const { chat, need, rootState, waitState } = view;

/** The docs' screenshot (its own name) besides the numbered one. */
async function docShot(name) {
  await page.screenshot({ path: path.join(config.outDir, name) });
  return shot(name.replace(/\.png$/, ''));
}

async function finalReply(text) {
  const f = await chat();
  const message = f.locator('[data-testid=chat-message][data-role=assistant]', { hasText: text }).last();
  await message.waitFor({ timeout: WAIT });
  await until(async () => (await message.getAttribute('data-streaming')) !== 'true', 'the reply to stop streaming');
  await waitState('idle');
  return message;
}

async function ctxStep(name, fn) {
  await run.step(name, async () => {
    if (name !== 'ctx-view' && !view.frame) throw new Waiting('waits for the chat view (step ctx-view)');
    return fn();
  });
}

(async () => {
  page = await run.launch();

  await run.step('workbench', async () => {
    await run.openFolder(config.folder, 'notes.txt');
    await run.quickOpen('src/app.py');
    return 'workbench open on the chat workspace, src/app.py in an editor';
  });

  await ctxStep('ctx-view', async () => {
    await run.openChat(); // the chat's own container, Pi Chat, in the secondary side bar
    await chat(WAIT);
    await run.widenChat(560);
    await waitState('idle');
    const model = await need('[data-testid=chat-model]');
    await until(async () => /\//.test(await textOf(model)), "the header to name Pi's model (Pi started)");
    return `opened in Pi Chat; Pi runs ${await textOf(model)}`;
  });

  await ctxStep('ctx-first-turn', async () => {
    // A first turn: the next request then has a previous one to be priced against (cache warm or not).
    await run.signal('script', 'first');
    const input = await need('textarea[data-testid=chat-input]', { state: 'visible' });
    await input.click();
    await input.fill(config.firstPrompt);
    await input.press('Enter');
    await finalReply(config.firstReply);
    return 'a first turn';
  });

  await ctxStep('ctx-attach', async () => {
    const f = await chat();
    const input = await need('textarea[data-testid=chat-input]', { state: 'visible' });
    await input.click();
    await input.pressSequentially('@app', { delay: 40 });
    const option = f.locator('[data-testid=chat-completion][data-value="@app.py"]').first();
    await option.waitFor({ timeout: WAIT });
    const offered = await textOf(option);
    await input.press('Enter');
    const chip = f.locator('[data-testid=chat-attachment]').first();
    await chip.waitFor({ timeout: WAIT });
    if (!(await chip.getAttribute('data-path')).endsWith(`${path.sep}src${path.sep}app.py`)) {
      throw new Error(`the chip names ${await chip.getAttribute('data-path')}`);
    }
    if ((await input.inputValue()).includes('@')) throw new Error(`the @ text stayed in the input: "${await input.inputValue()}"`);
    // a selection: lines 2-3 of src/app.py in the editor, then the command
    const editor = page.locator('.editor-instance .monaco-editor .view-lines').first();
    await editor.click();
    await page.keyboard.press('Control+Home');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Home');
    await page.keyboard.press('Shift+ArrowDown');
    await page.keyboard.press('Shift+End');
    await run.palette('Add Selection to Chat');
    const second = f.locator('[data-testid=chat-attachment]').nth(1);
    await second.waitFor({ timeout: WAIT });
    const label = await textOf(second);
    if (!label.startsWith('app.py:2-3')) throw new Error(`the selection's chip reads "${label}"`);
    await input.click();
    await input.fill(config.attachPrompt);
    const tokens = f.locator('[data-testid=chat-attachment-tokens]');
    await until(async () => /^[\d,]+ tokens$/.test(await textOf(tokens.nth(1))) && /^[\d,]+ tokens$/.test(await textOf(tokens.first())),
      'both chips to show their tokens');
    const adds = await need('[data-testid=chat-adds]', { state: 'visible', timeout: WAIT });
    // One line: its tokens, then the next request's price and the cache's state (the first turn just ended: warm).
    const price = await need('[data-testid=chat-next-request]', { state: 'visible', timeout: WAIT });
    const line = async () => `${await textOf(adds)} ${await textOf(price)}`;
    await until(async () => /^Adds [\d,]+ tokens \([\d,]+ from 2 attachments\) Next request: .* · cache alive for .* · ≈ \$\d/.test(await line()),
      'the line under the input').catch(async (e) => {
      throw new Error(`${e.message}; it says "${await line()}"`);
    });
    const [a, b] = [await adds.boundingBox(), await price.boundingBox()];
    if (!a || !b || b.y > a.y + a.height || a.y < (await input.boundingBox()).y) {
      throw new Error('the adds line and the price are not one line under the input');
    }
    const said = await line();
    await docShot('chat-attach.png');
    return `@app offered "${offered}"; chips "${await textOf(chip)}", "${label}"; under the input: "${said}"`;
  });

  await ctxStep('ctx-send', async () => {
    await run.signal('script', 'attach');
    const input = await need('textarea[data-testid=chat-input]', { state: 'visible' });
    await input.press('Enter');
    await until(async () => (await input.inputValue()) === '', 'the view to take the prompt');
    await finalReply(config.attachReply);
    const left = await (await chat()).locator('[data-testid=chat-attachment]').count();
    if (left !== 0) throw new Error(`${left} chips stayed after sending`);
    return 'sent with both attachments; the chips went';
  });

  let editCard;
  let writeCard;
  await ctxStep('ctx-edit-turn', async () => {
    await run.signal('script', 'edit');
    const input = await need('textarea[data-testid=chat-input]', { state: 'visible' });
    await input.click();
    await input.fill(config.editPrompt);
    await input.press('Enter');
    await finalReply(config.editReply);
    const f = await chat();
    editCard = f.locator('[data-testid=chat-tool][data-tool=edit]').last();
    writeCard = f.locator('[data-testid=chat-tool][data-tool=write]').last();
    for (const [card, name] of [[editCard, 'edit'], [writeCard, 'write']]) {
      await until(async () => (await card.getAttribute('data-status')) === 'done', `the ${name} card to end done`);
      const undo = card.locator('[data-testid=chat-tool-undo]');
      await until(async () => (await undo.getAttribute('data-undo')) === 'available', `Undo on the ${name} card`);
    }
    const notes = await run.signal('read-file', 'notes.txt');
    if (notes === config.notes) throw new Error('Pi did not edit notes.txt');
    return 'Pi edited notes.txt and wrote CHANGELOG.md; both cards offer Undo';
  });

  await ctxStep('ctx-review', async () => {
    await run.settled(() => editCard.locator('[data-testid=chat-review]').click());
    const tab = page.locator('.tabs-container .tab', { hasText: "Pi's changes in this turn" }).first();
    await tab.waitFor({ timeout: WAIT });
    const title = await textOf(tab);
    if (!title.includes('2 files')) throw new Error(`the review's tab says "${title}"`);
    const editor = page.locator('.editor-group-container.active .editor-container').first();
    await until(async () => {
      const text = (await editor.textContent()) || '';
      return text.includes('notes.txt') && text.includes('CHANGELOG.md') && text.includes('v2.1');
    }, 'the multi-file diff to list notes.txt and CHANGELOG.md with their changes').catch(async (e) => {
      throw new Error(`${e.message}; it shows "${((await editor.textContent()) || '').slice(0, 300)}"`);
    });
    // Each file's before side is labelled with the file's own path, not the record the host keeps it under.
    const labels = (await editor.textContent()) || '';
    if (/\/base\b|t-call_/.test(labels)) throw new Error(`the review labels a side with an internal path: "${labels.slice(0, 300)}"`);
    await docShot('chat-review.png');
    return `"${title}" lists notes.txt and CHANGELOG.md`;
  });

  await ctxStep('ctx-undo', async () => {
    const undo = editCard.locator('[data-testid=chat-tool-undo]');
    await run.settled(() => undo.click());
    await until(async () => (await undo.getAttribute('data-undo')) === 'done', 'the edit card to say Undone');
    const notes = await run.signal('read-file', 'notes.txt');
    if (notes !== config.notes) throw new Error(`notes.txt after Undo: ${JSON.stringify(notes)}`);
    return 'notes.txt is back as it was before the edit';
  });

  await ctxStep('ctx-undo-refused', async () => {
    await run.signal('append-file', { name: 'CHANGELOG.md', text: '- Edited by hand.\n' });
    const undo = writeCard.locator('[data-testid=chat-tool-undo]');
    await run.settled(() => undo.click());
    const f = await chat();
    const notice = f.locator('[data-testid=chat-message][data-role=notice]', { hasText: 'Cannot undo: CHANGELOG.md changed on disk' }).last();
    await notice.waitFor({ timeout: WAIT });
    const file = await run.signal('read-file', 'CHANGELOG.md');
    if (file !== `${config.changelog}- Edited by hand.\n`) throw new Error(`CHANGELOG.md after the refused Undo: ${JSON.stringify(file)}`);
    await run.settled(() => editCard.scrollIntoViewIfNeeded());
    await docShot('chat-undo.png');
    return `refused: "${await textOf(notice)}"`;
  });

  await ctxStep('ctx-code', async () => {
    // A reply with a code block longer than the view is wide: it wraps; Insert at Cursor and New File.
    await run.signal('script', 'code');
    await page.locator('.tabs-container .tab', { hasText: 'app.py' }).first().click(); // the cursor the code goes to: the end of app.py
    await page.locator('.editor-instance .monaco-editor .view-lines', { hasText: 'def greet' }).first().click();
    await page.keyboard.press('Control+End');
    const input = await need('textarea[data-testid=chat-input]', { state: 'visible' });
    await input.click();
    await input.fill(config.codePrompt);
    await input.press('Enter');
    const reply = await finalReply(config.codeMarker);
    const pre = reply.locator('.code-block pre').first();
    await pre.waitFor({ timeout: WAIT });
    const { scrollWidth, clientWidth, lines } = await pre.evaluate((el) => ({
      scrollWidth: el.scrollWidth,
      clientWidth: el.clientWidth,
      lines: Math.round(el.getBoundingClientRect().height / parseFloat(getComputedStyle(el).lineHeight || '16')),
    }));
    if (scrollWidth > clientWidth + 1) throw new Error(`the code block scrolls sideways (${scrollWidth} > ${clientWidth})`);
    const block = reply.locator('.code-block').first();
    await block.hover();
    // Insert at Cursor: into src/app.py, the editor the user had last
    await run.settled(() => block.locator('[data-testid=chat-insert-code]').click());
    const appEditor = page.locator('.editor-instance .monaco-editor .view-lines', { hasText: 'def greet' }).first();
    await until(async () => ((await appEditor.textContent()) || '').includes(config.codeMarker), 'the code in the editor at its cursor');
    // New File: an untitled document in the block's language
    await block.hover();
    await run.settled(() => block.locator('[data-testid=chat-new-file]').click());
    const tab = page.locator('.tabs-container .tab', { hasText: 'Untitled' }).first();
    await tab.waitFor({ timeout: WAIT });
    const language = page.locator('.statusbar [aria-label*="Select Language Mode"], .statusbar-item[id="status.editor.mode"]').first();
    const mode = (await language.count()) ? await textOf(language) : '';
    if (mode && !/python/i.test(mode)) throw new Error(`the new file's language is ${mode}`);
    return `wrapped (${scrollWidth} <= ${clientWidth}, about ${lines} lines); inserted into app.py; new ${await textOf(tab)} (${mode || 'language not shown'})`;
  });

  await run.finish();
})().catch((e) => run.crashed(e));
