// Drives the platform build of the extension in an untrusted folder whose Python extension reports the
// repository's own interpreter (a stand-in `ms-python.python` installed by test_restricted_python_e2e.py).
// One JSON argument (url, folder, skillRelPath, expect). Steps:
//   untrusted-start  the folder opens in Restricted Mode; the bundled server starts (the broken SKILL.md gets
//                    its squiggle, the Context view its budget); the stand-in extension is active, but it was
//                    never asked for its interpreter and the repository's python never ran (SIGNAL markers)
//   trusted-control  after Trust and Reinstall the Bundled Server, the same interpreter is asked for and runs:
//                    the set-up is able to show the leak the first step rules out
// Screenshots land in outDir as NN-<step>.png.
'use strict';
const { createRun } = require('./workbench');

const config = JSON.parse(process.argv[2]);
const run = createRun(config);
const { WAIT, step, shot, openContainer, quickOpen, textOf, until } = run;
let page;

async function budgetShown() {
  await openContainer();
  await run.setViewExpanded('Context', true);
  const context = await run.webviewFrame('main#app', 'the Context view');
  await context.locator('#gauge .seg').first().waitFor({ timeout: WAIT });
  return (await textOf(context.locator('#budget-equation'))).replace(/\s+/g, ' ');
}

(async () => {
  page = await run.launch();

  await step('untrusted-start', async () => {
    await run.openFolder(config.folder);
    await page.locator('.statusbar-item', { hasText: 'Restricted Mode' }).first().waitFor({ timeout: WAIT });
    await quickOpen(config.skillRelPath);
    await page.locator('.monaco-editor .squiggly-warning, .monaco-editor .squiggly-error').first().waitFor({ timeout: WAIT });
    const equation = await budgetShown();
    const marks = await run.signal('markers');
    if (!marks.activated) throw new Error('the stand-in Python extension never activated: this step would prove nothing');
    if (marks.asked > 0) throw new Error(`the Python extension was asked for its interpreter ${marks.asked} time(s) in Restricted Mode`);
    if (marks.ran > 0) throw new Error(`the repository's .venv/bin/python ran ${marks.ran} time(s) in Restricted Mode: ${marks.lines.join(' | ')}`);
    await shot('untrusted-bundled-server');
    return `bundled server running untrusted (budget: ${equation}); Python extension active, not asked; the repository's python never ran`;
  });

  await step('trusted-control', async () => {
    await run.palette('Workspaces: Manage Workspace Trust');
    const editor = page.locator('.workspace-trust-editor').first();
    await editor.waitFor({ state: 'visible', timeout: WAIT });
    await editor.locator('.monaco-button', { hasText: /^\s*Trust\b/ }).first().click();
    await page.locator('.statusbar-item', { hasText: 'Restricted Mode' }).first().waitFor({ state: 'detached', timeout: WAIT });
    await page.keyboard.press('Escape');
    await run.palette('Pi Context: Reinstall the Bundled Server');
    let marks = null;
    await until(async () => {
      marks = await run.signal('markers');
      return marks.ran > 0;
    }, "the repository's python to run once the workspace is trusted");
    const equation = await budgetShown();
    await shot('trusted-reinstalled');
    return `trusted: the Python extension was asked ${marks.asked} time(s), its interpreter ran ${marks.ran} time(s); budget: ${equation}`;
  });

  await run.finish();
})().catch(run.crashed);
