// Drives the chat's layout, names and keys in real VS Code (code-server, headless chromium, playwright-core) with
// real Pi behind it. Called by test_chat_ux_e2e.py with one JSON argument. Keys are pressed as a user presses them
// (the workbench's keybindings, the chat input's own); the view is read through its data-testids.
'use strict';
const { createRun, Waiting } = require('./workbench');

const config = JSON.parse(process.argv[2]);
const run = createRun(config);
const { WAIT, shot, textOf, until } = run;
let page;
const view = run.chatView(20000);
const { chat, need, rootState, waitState } = view;

async function sessionTitle() {
  return textOf(await need('[data-testid=chat-session]'));
}

/** The last assistant message, once it holds ``text`` and no longer streams. */
async function finalReply(text) {
  const f = await chat();
  const message = f.locator('[data-testid=chat-message][data-role=assistant]', { hasText: text }).last();
  await message.waitFor({ timeout: WAIT });
  await until(async () => (await message.getAttribute('data-streaming')) !== 'true', 'the reply to stop streaming');
  await waitState('idle');
  return message;
}

/** Focus in the editor (notes.txt): a workbench keybinding pressed from outside the chat. */
async function focusEditor() {
  await page.locator('.editor-instance .monaco-editor').first().click();
}

/** The quick pick's rows (labels and descriptions), once it shows ``title``. */
async function quickPickRows(title) {
  const widget = page.locator('.quick-input-widget');
  await widget.locator('.quick-input-title', { hasText: title }).first().waitFor({ timeout: WAIT });
  await widget.locator('.quick-input-list .monaco-list-row').first().waitFor({ timeout: WAIT });
  return widget.locator('.quick-input-list .monaco-list-row');
}

async function rowTexts(rows) {
  const n = await rows.count();
  const out = [];
  for (let i = 0; i < n; i++) out.push(((await rows.nth(i).textContent()) || '').replace(/\s+/g, ' ').trim());
  return out;
}

// The labels of the theme picker (their settings ids are 'Default Light Modern', 'Default Dark Modern', 'Default High Contrast').
const THEMES = { light: 'Light Modern', dark: 'Dark Modern', hc: 'Dark High Contrast' };

/** Picks a colour theme the way a user does: Ctrl+K Ctrl+T (Preferences: Color Theme), then its name. */
async function pickTheme(kind) {
  await focusEditor();
  await page.keyboard.press('Control+KeyK');
  await page.keyboard.press('Control+KeyT');
  const box = page.locator('.quick-input-widget .quick-input-box input');
  await box.waitFor({ state: 'visible', timeout: WAIT });
  await box.fill(THEMES[kind]);
  await page.locator('.quick-input-widget .quick-input-list .monaco-list-row', { hasText: THEMES[kind] }).first().waitFor({ timeout: WAIT });
  await page.keyboard.press('Enter');
  await waitTheme(kind);
}

async function waitTheme(kind) {
  const cls = { light: 'vs', dark: 'vs-dark', hc: 'hc-black' }[kind];
  await until(
    async () => page.evaluate((c) => document.querySelector('.monaco-workbench')?.classList.contains(c), cls),
    `the workbench in the ${kind} theme`,
  );
}

(async () => {
  page = await run.launch();

  await run.step('workbench', async () => {
    await run.openFolder(config.folder, 'notes.txt');
    await run.quickOpen('notes.txt');
    return 'workbench open on the chat workspace';
  });

  // Ctrl+Alt+P focuses the chat: its own container, Pi Chat, in the secondary side bar.
  await run.step('ux-layout', async () => {
    await focusEditor();
    await page.keyboard.press('Control+Alt+KeyP');
    const aux = page.locator('.part.auxiliarybar').first();
    await aux.waitFor({ state: 'visible', timeout: WAIT }).catch(() => {
      throw new Error('Ctrl+Alt+P did not open the secondary side bar');
    });
    const title = await textOf(aux.locator('.composite.title').first());
    if (!/Pi Chat/i.test(title)) throw new Error(`the secondary side bar shows "${title}", not Pi Chat`);
    await chat(WAIT);
    const auxBox = await aux.boundingBox();
    const frameBox = await page.locator('.part.auxiliarybar .pane-body, .part.auxiliarybar .split-view-view').first().boundingBox();
    // Pi starts: the header names its model.
    await waitState('idle');
    await until(async () => /\//.test(await textOf(await need('[data-testid=chat-model]'))), "the header to name Pi's model");
    // The primary side bar keeps Context and Sessions, and not the chat.
    await run.openContainer();
    const headers = await page.locator('.part.sidebar .pane-header').allTextContents();
    const names = headers.map((h) => h.replace(/\s+/g, ' ').trim());
    if (!names.some((n) => /^Context/i.test(n)) || !names.some((n) => /^Sessions/i.test(n))) {
      throw new Error(`the primary side bar's views are ${JSON.stringify(names)}`);
    }
    if (names.some((n) => /Chat/i.test(n))) throw new Error(`the chat is still in the primary side bar: ${JSON.stringify(names)}`);
    await shot('ux-layout');
    return `Pi Chat in the secondary side bar (${Math.round(auxBox.width)}x${Math.round(auxBox.height)} px, pane ${frameBox ? Math.round(frameBox.height) : '?'} px high); primary side bar: ${names.join(', ')}`;
  });

  // Ctrl+Enter sends, as in VS Code's chat input (Enter does too).
  await run.step('ux-send-ctrl-enter', async () => {
    if (!(await sessionTitle()).length) throw new Error('the header has no title');
    const before = await sessionTitle();
    await run.signal('script', 'reply');
    const input = await need('textarea[data-testid=chat-input]', { state: 'visible' });
    await input.click();
    await input.fill(config.prompt);
    await input.press('Control+Enter');
    await until(async () => (await input.inputValue()) === '', 'Ctrl+Enter to send the prompt');
    await finalReply(config.reply);
    // The conversation is named by its first message, on one line.
    const title = await until(async () => {
      const t = await sessionTitle();
      return t.startsWith(config.prompt.slice(0, 30)) ? t : null;
    }, 'the header to name the conversation by its first message');
    return `sent with Ctrl+Enter; the header said "${before}", now "${title}"`;
  });

  // The lens: the gauge, the next request's price and the cache in one line; a click opens the Context view.
  await run.step('ux-lens', async () => {
    const lens = await need('[data-testid=chat-lens]', { state: 'visible' });
    const text = await until(async () => {
      const t = await textOf(lens);
      return /% of/.test(t) && /next ≈ \$/.test(t) && /cache (warm|cold)/.test(t) ? t : null;
    }, 'the lens to show the gauge, the price and the cache');
    // Hide the primary side bar first: the click must bring the Context view back.
    await run.palette('View: Close Primary Side Bar').catch(() => page.keyboard.press('Escape'));
    await until(async () => !(await page.locator('.part.sidebar').first().isVisible().catch(() => false)), 'the primary side bar closed');
    await lens.click();
    await page.locator('.part.sidebar .pane-header', { hasText: 'Context' }).first().waitFor({ timeout: WAIT });
    await run.webviewFrame('main#app', 'the Context view');
    await shot('ux-lens');
    return `lens "${text}"; a click opened the Context view`;
  });

  // Clicking the title renames the conversation; Pi writes the name (the test reads the session file).
  await run.step('ux-rename', async () => {
    (await need('[data-testid=chat-session]')).click();
    const box = page.locator('.quick-input-widget .quick-input-box input');
    await box.waitFor({ state: 'visible', timeout: WAIT });
    const shown = await box.inputValue();
    if (!shown.startsWith(config.prompt.slice(0, 30))) throw new Error(`the rename box holds "${shown}"`);
    await box.fill(config.name);
    await page.keyboard.press('Enter');
    await until(async () => (await sessionTitle()) === config.name, `the header to read "${config.name}"`);
    return `renamed from "${shown}" to "${config.name}"`;
  });

  await run.step('ux-sessions-view', async () => {
    await run.openContainer();
    await run.setSessionsExpanded(true);
    const row = page.locator('.part.sidebar .monaco-list-row', { hasText: config.name }).first();
    await row.waitFor({ timeout: WAIT }).catch(() => {
      throw new Error(`the Sessions view does not list "${config.name}"`);
    });
    return `Sessions view: "${((await row.textContent()) || '').replace(/\s+/g, ' ').trim()}"`;
  });

  // Ctrl+Alt+H: Chat History, searchable by a word of the first message (the session's name is its label).
  await run.step('ux-history', async () => {
    const open = async () => {
      await focusEditor();
      await page.keyboard.press('Control+Alt+KeyH');
      return quickPickRows('Chat history');
    };
    let rows = await open();
    const all = await rowTexts(rows);
    const box = page.locator('.quick-input-widget .quick-input-box input');
    // Once in a CI rehearsal the pick closed as it opened, right after the Sessions view expanded (its box went
    // inert, then hidden; the cause is not known): open it once more, and say so in the step's result.
    let reopened = '';
    await box.fill(config.historyWord, { timeout: 5000 }).catch(async () => {
      reopened = ' (the pick closed as it opened and was opened again)';
      rows = await open();
      await box.fill(config.historyWord);
    });
    await until(async () => (await rows.count()) >= 1 && (await rowTexts(rows)).every((t) => /checklist|Release plan/i.test(t)),
      `the history filtered by "${config.historyWord}"`);
    rows = page.locator('.quick-input-widget .quick-input-list .monaco-list-row');
    const found = (await rowTexts(rows)).find((t) => t.includes(config.name));
    if (!found) throw new Error(`searching "${config.historyWord}" did not find "${config.name}": ${JSON.stringify(await rowTexts(rows))}`);
    if (!/today \d\d:\d\d/.test(found) || !/fake\//.test(found) || !/\$/.test(found)) {
      throw new Error(`the row lacks its date, model or cost: "${found}"`);
    }
    await shot('ux-history');
    await page.keyboard.press('Escape');
    return `${all.length} session(s); "${config.historyWord}" finds "${found}"${reopened}`;
  });

  // /resume lists the same titles.
  await run.step('ux-resume', async () => {
    const input = await need('textarea[data-testid=chat-input]', { state: 'visible' });
    await input.click();
    await input.fill('/resume');
    await input.press('Enter');
    const rows = await quickPickRows('Resume a Pi session');
    const texts = await rowTexts(rows);
    await page.keyboard.press('Escape');
    if (!texts.some((t) => t.includes(config.name) && t.includes('this chat'))) {
      throw new Error(`/resume does not list "${config.name}" as this chat: ${JSON.stringify(texts)}`);
    }
    return `/resume: ${JSON.stringify(texts)}`;
  });

  // Ctrl+Escape, with the chat focused, stops the reply (the test checks Pi closed the model's stream).
  await run.step('ux-stop-key', async () => {
    await run.signal('script', 'held');
    const input = await need('textarea[data-testid=chat-input]', { state: 'visible' });
    await input.click();
    await input.fill(config.stopPrompt);
    await input.press('Enter');
    await waitState('streaming');
    await need('[data-testid=chat-message][data-role=assistant][data-streaming=true]', { timeout: WAIT });
    await input.click();
    await page.keyboard.press('Control+Escape');
    await waitState('idle');
    const closed = await run.signal('stream-closed');
    if (!closed) throw new Error('Pi did not close the held stream after Ctrl+Escape');
    return 'Ctrl+Escape stopped the reply; Pi closed the stream';
  });

  // Ctrl+N, with the chat focused, starts a new chat.
  await run.step('ux-new-chat-key', async () => {
    const input = await need('textarea[data-testid=chat-input]', { state: 'visible' });
    await input.click();
    await page.keyboard.press('Control+KeyN');
    await until(async () => (await sessionTitle()) === 'New session', 'the header to read "New session"');
    await until(async () => !(await (await chat()).locator('[data-testid=chat-message][data-role=user]').count()), 'an empty conversation');
    await waitState('idle');
    return 'Ctrl+N: a new chat ("New session", no messages)';
  });

  // Light, dark and high contrast at 1400x900: the chat beside the Context view, the slash menu's row selected.
  await run.step('ux-themes', async () => {
    // Back to the named conversation for the pictures.
    await focusEditor();
    await page.keyboard.press('Control+Alt+KeyH');
    await quickPickRows('Chat history');
    await page.locator('.quick-input-widget .quick-input-box input').fill(config.name);
    await page.locator('.quick-input-widget .quick-input-list .monaco-list-row', { hasText: config.name }).first().waitFor({ timeout: WAIT });
    await page.keyboard.press('Enter');
    await until(async () => (await sessionTitle()) === config.name, `the chat to resume "${config.name}"`);
    await waitState('idle');
    await finalReply(config.reply);
    await run.openContainer();
    await run.setSessionsExpanded(false);
    await run.setViewExpanded('Context', true);
    await run.widenChat(520);
    const seen = [];
    for (const kind of ['light', 'dark', 'hc']) {
      await pickTheme(kind);
      const input = await need('textarea[data-testid=chat-input]', { state: 'visible' });
      await input.click();
      await input.fill('/co');
      const selected = (await chat()).locator('[data-testid=chat-completion][aria-selected=true]').first();
      await selected.waitFor({ timeout: WAIT });
      // The selected row's description is drawn in the row's own colour, not the muted one.
      const colours = await selected.evaluate((li) => {
        const d = li.querySelector('.description');
        return { row: getComputedStyle(li).color, description: d ? getComputedStyle(d).color : null, background: getComputedStyle(li).backgroundColor };
      });
      if (colours.description !== colours.row) {
        throw new Error(`${kind}: the selected row's description is ${colours.description}, the row ${colours.row}`);
      }
      await page.waitForTimeout(300); // the theme's colours reach the webviews
      seen.push(`${kind}: row ${colours.row} on ${colours.background}`);
      await shot(`chat-layout-${kind}`);
      await input.fill('');
    }
    return seen.join('; ');
  });

  await run.finish();
})().catch(run.crashed);
