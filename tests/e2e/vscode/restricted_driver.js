// Drives the Pi Context extension in an untrusted folder (Restricted Mode) in real VS Code (code-server
// started with workspace trust on, headless chromium, playwright-core). Called by
// test_restricted_mode_e2e.py with one JSON argument (url, folder, skillRelPath, untrustedText,
// expect: {<step>: true|"waiting reason"}). Steps:
//   workbench       the folder opens, and VS Code says it is in Restricted Mode
//   context         the rest works untrusted: the broken SKILL.md gets its squiggle, the Context view its budget
//   chat-untrusted  the Chat view says the chat needs a trusted workspace, with Manage Workspace Trust,
//                   its input disabled, and the test finds no Pi process (SIGNAL pi-processes)
//   grant-trust     that button opens VS Code's trust editor; its Trust button trusts the folder, and the
//                   chat then starts Pi (idle, the header names Pi's model, a Pi process exists)
// Screenshots land in outDir as NN-<step>.png.
'use strict';
const { createRun } = require('./workbench');

const config = JSON.parse(process.argv[2]);
const run = createRun(config);
const { WAIT, step, shot, openContainer, quickOpen, textOf, until } = run;
let page;
let chat;

async function chatState() {
  return chat.locator('[data-testid=chat-root]').first().getAttribute('data-state');
}

(async () => {
  page = await run.launch();

  await step('workbench', async () => {
    await run.openFolder(config.folder, 'notes.txt');
    // VS Code's own word that the window is untrusted: the Restricted Mode status bar item.
    const restricted = page.locator('.statusbar-item', { hasText: 'Restricted Mode' }).first();
    await restricted.waitFor({ timeout: WAIT });
    return `workbench open on the folder, status bar "${await textOf(restricted)}"`;
  });

  await step('context', async () => {
    await quickOpen(config.skillRelPath);
    await page.locator('.monaco-editor .squiggly-warning, .monaco-editor .squiggly-error').first().waitFor({ timeout: WAIT });
    await openContainer();
    await run.setViewExpanded('Context', true);
    const context = await run.webviewFrame('main#app', 'the Context view');
    await context.locator('#gauge .seg').first().waitFor({ timeout: WAIT });
    const equation = await textOf(context.locator('#budget-equation'));
    await shot('restricted-context');
    return `the broken SKILL.md has its squiggle; the budget: ${equation.replace(/\s+/g, ' ')}`;
  });

  await step('chat-untrusted', async () => {
    await run.openChat(); // the chat's own container, Pi Chat, in the secondary side bar
    chat = await run.webviewFrame('[data-testid=chat-root]', 'the Chat view');
    await until(async () => (await chatState()) === 'untrusted', 'chat-root data-state=untrusted');
    const notice = chat.locator('[data-testid=chat-untrusted]').first();
    await notice.waitFor({ state: 'visible', timeout: WAIT });
    const text = (await textOf(notice)).replace(/\s+/g, ' ');
    if (!text.includes(config.untrustedText)) {
      throw new Error(`the notice does not say the chat needs a trusted workspace: "${text}"`);
    }
    const button = chat.locator('[data-testid=chat-manage-trust]').first();
    await button.waitFor({ state: 'visible', timeout: WAIT });
    const label = await textOf(button);
    if (label !== 'Manage Workspace Trust') throw new Error(`the button reads "${label}"`);
    const input = chat.locator('textarea[data-testid=chat-input]').first();
    if (!(await input.isDisabled())) throw new Error('the chat input is enabled in Restricted Mode');
    if (await chat.locator('[data-testid=chat-no-pi]:visible').count()) {
      throw new Error('the view says Pi is missing instead');
    }
    const pis = await run.signal('pi-processes');
    if (pis !== 0) throw new Error(`${pis} Pi process(es) run for this agent dir in Restricted Mode`);
    await shot('chat-untrusted');
    return `"${text}" [${label}], input disabled, no Pi process`;
  });

  await step('grant-trust', async () => {
    await chat.locator('[data-testid=chat-manage-trust]').first().click();
    const editor = page.locator('.workspace-trust-editor').first();
    await editor.waitFor({ state: 'visible', timeout: WAIT });
    await shot('trust-editor');
    // The trust editor's grant button ("Trust", its keybinding as description); "Don't Trust" is the other one.
    await editor.locator('.monaco-button', { hasText: /^\s*Trust\b/ }).first().click();
    await page.locator('.statusbar-item', { hasText: 'Restricted Mode' }).first().waitFor({ state: 'detached', timeout: WAIT });
    await until(async () => (await chatState()) === 'idle', `chat-root data-state=idle (is ${await chatState()})`);
    if (await chat.locator('[data-testid=chat-untrusted]:visible').count()) {
      throw new Error('the trust notice is still shown');
    }
    const model = chat.locator('[data-testid=chat-model]').first();
    await until(async () => /\//.test(await textOf(model).catch(() => '')), "the header to name Pi's model (Pi started)");
    const input = chat.locator('textarea[data-testid=chat-input]').first();
    if (await input.isDisabled()) throw new Error('the chat input is still disabled');
    const pis = await run.signal('pi-processes');
    if (pis < 1) throw new Error('no Pi process runs for this agent dir after trust was granted');
    // The trust editor opens as a modal editor: closed (its header's last action) for the screenshot.
    await page.locator('.modal-editor-header .action-item .codicon-close, .modal-editor-header [aria-label^="Close"]').last()
      .click({ timeout: 5000 }).catch(() => page.keyboard.press('Escape'));
    await shot('chat-trusted');
    return `trusted from the trust editor: the chat started Pi (model ${await textOf(model)}, ${pis} process(es))`;
  });

  await run.finish();
})().catch(run.crashed);
