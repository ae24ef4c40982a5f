// Drives the Pi Context extension's Usage panel in real VS Code (code-server, headless chromium,
// playwright-core). Called by test_usage_e2e.py with one JSON argument (url, folder, headline, turns,
// sessions, model, expect: {<step>: true|"waiting reason"}). Steps:
//   usage-panel    the palette's "Pi Context: Show Usage Across Sessions" opens the panel; over all time it
//                  shows the CLI's headline, a bar per calendar day with the cache share line, one row per day
//   usage-group    grouped by session: one row per session; by model: one row, the CLI's model
//   usage-refresh  a turn appended to a session (SIGNAL append-turn) is in the panel after Refresh
// Screenshots land in outDir as NN-<step>.png.
'use strict';
const { createRun } = require('./workbench');

const config = JSON.parse(process.argv[2]);
const run = createRun(config);
const { WAIT, step, shot, textOf, until } = run;
let page;
let panel;

async function headline() {
  return textOf(panel.locator('[data-testid=usage-headline]').first());
}

async function rows() {
  return panel.locator('[data-testid=usage-row]').count();
}

async function group(by) {
  await panel.locator('[data-testid=usage-group]').first().selectOption(by);
  await until(
    async () => (await panel.locator('[data-testid=usage-table] thead th').first().textContent().catch(() => '')) ===
      by.charAt(0).toUpperCase() + by.slice(1),
    `the table grouped by ${by}`,
  );
}

(async () => {
  page = await run.launch();

  await step('usage-panel', async () => {
    await run.openFolder(config.folder, 'notes.txt');
    // The extension is up once its budget shows in the status bar; the palette lists its commands from then.
    await page.locator('.statusbar-item', { hasText: /of \d+k/ }).first().waitFor({ timeout: WAIT });
    await run.palette('Pi Context: Show Usage Across Sessions');
    panel = await run.webviewFrame('[data-testid=usage-panel]', 'the Usage panel');
    await panel.locator('[data-testid=usage-range-all]').first().click();
    await until(async () => (await headline().catch(() => '')) === config.headline, `the headline "${config.headline}"`);
    const bars = await panel.locator('[data-testid=usage-bar]').count();
    if (bars < 1) throw new Error('no bar in the chart');
    if (!(await panel.locator('[data-testid=usage-share]').count())) throw new Error('no cache share line');
    const days = await rows();
    if (days !== config.days) throw new Error(`${days} rows by day, the CLI has ${config.days}`);
    await shot('usage-panel');
    return `"${await headline()}", ${bars} bar(s), ${days} day row(s)`;
  });

  await step('usage-group', async () => {
    await group('session');
    await until(async () => (await rows()) === config.sessions, `${config.sessions} session rows`);
    await group('model');
    await until(async () => (await rows()) === 1, 'one model row');
    const label = await textOf(panel.locator('[data-testid=usage-row] th').first());
    if (label !== config.model) throw new Error(`the model row reads "${label}", the CLI says ${config.model}`);
    await shot('usage-by-model');
    return `${config.sessions} session rows; by model: ${label}`;
  });

  await step('usage-refresh', async () => {
    await run.signal('append-turn');
    await panel.locator('[data-testid=usage-refresh]').first().click();
    const expected = `${config.turns + 1} turns`;
    await until(async () => (await headline().catch(() => '')).includes(expected), `the headline to count ${expected}`);
    return `after an appended turn: "${await headline()}"`;
  });

  await run.finish();
})().catch(run.crashed);
