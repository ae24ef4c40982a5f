// Drives real VS Code (code-server) in headless Debian chromium with playwright-core, through the
// Pi Context extension's user-facing flows. Called by test_vscode_e2e.py with one JSON argument:
//   { url, folder, outDir, expect: {<step>: true|"waiting reason"}, sections: [...], skillPath, ... }
// Prints one JSON line {"ok": bool, "steps": [...]} on stdout; a step is passed, failed or waiting
// (a server feature it needs is not in this build of the server: it is reported, not run).
// Screenshots of every step land in outDir as NN-<step>.png.
'use strict';
const { chromium } = require('playwright-core');
const fs = require('fs');
const os = require('os');
const path = require('path');

const config = JSON.parse(process.argv[2]);
const outDir = config.outDir;
fs.mkdirSync(outDir, { recursive: true });
const WAIT = config.waitMs || 60000;
const t0 = Date.now();
const steps = [];
let shotIndex = 0;
let page;

function log(msg) {
  process.stderr.write(`[${((Date.now() - t0) / 1000).toFixed(1)}s] ${msg}\n`);
}

async function shot(name) {
  shotIndex += 1;
  const file = path.join(outDir, `${String(shotIndex).padStart(2, '0')}-${name}.png`);
  await page.screenshot({ path: file });
  return path.basename(file);
}

async function step(name, fn) {
  const need = config.expect[name];
  if (need !== true) {
    steps.push({ name, status: 'waiting', detail: need || 'not expected', seconds: 0 });
    log(`${name}: waiting (${need})`);
    return;
  }
  const start = Date.now();
  log(`${name}: start`);
  try {
    const detail = await fn();
    steps.push({ name, status: 'passed', detail: detail || '', seconds: (Date.now() - start) / 1000 });
    log(`${name}: passed`);
  } catch (e) {
    let screenshot = '';
    try {
      screenshot = await shot(`${name}-FAILED`);
    } catch {
      /* the page may be gone */
    }
    steps.push({ name, status: 'failed', detail: String(e && e.stack ? e.stack : e), screenshot, seconds: (Date.now() - start) / 1000 });
    log(`${name}: FAILED ${e}`);
  }
}

// --- workbench helpers ---------------------------------------------------------------------------

async function palette(title) {
  await page.keyboard.press('F1');
  const input = page.locator('.quick-input-widget .quick-input-box input');
  await input.waitFor({ state: 'visible', timeout: WAIT });
  await input.fill(`>${title}`);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first().waitFor({ timeout: WAIT });
  await page.keyboard.press('Enter');
}

async function quickOpen(relPath) {
  await page.keyboard.press('Control+P');
  const input = page.locator('.quick-input-widget .quick-input-box input');
  await input.waitFor({ state: 'visible', timeout: WAIT });
  await input.fill(relPath);
  const name = path.basename(relPath);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: name }).first().waitFor({ timeout: WAIT });
  await page.keyboard.press('Enter');
  await page.locator('.tabs-container .tab', { hasText: name }).first().waitFor({ timeout: WAIT });
}

/** The focus-instructions box of Compact Session (the quick-input widget is shared with the palette). */
async function compactInput() {
  await page.locator('.quick-input-widget .quick-input-title', { hasText: 'Compact Session' }).first().waitFor({ timeout: WAIT });
  const input = page.locator('.quick-input-widget .quick-input-box input');
  await input.waitFor({ state: 'visible', timeout: WAIT });
  return input;
}

/** The frame of our webview: webview views live in an overlay iframe holding an inner #active-frame. */
async function sidebarFrame() {
  const end = Date.now() + WAIT;
  while (Date.now() < end) {
    for (const f of page.frames()) {
      if (await f.locator('main#app').count().catch(() => 0)) {
        return f;
      }
    }
    await page.waitForTimeout(200);
  }
  throw new Error('the Pi Context webview did not render');
}

/** Shows the Pi Context side bar (clicking its activity-bar icon when it is already shown would hide it). */
async function openContainer() {
  const title = page.locator('.part.sidebar .composite.title', { hasText: 'Pi Context' }).first();
  if (await title.isVisible().catch(() => false)) {
    return;
  }
  await page.locator('.activitybar .action-item a[aria-label^="Pi Context"], .activitybar .action-item[aria-label^="Pi Context"]').first().click();
  await title.waitFor({ timeout: WAIT });
}

/** Makes room for the Context view in screenshots: bottom panel hidden, Sessions view collapsed. */
async function tidy() {
  if (await page.locator('.part.panel').first().isVisible().catch(() => false)) {
    await palette('View: Hide Panel').catch(() => page.keyboard.press('Escape'));
  }
  await setSessionsExpanded(false);
}

async function setSessionsExpanded(expanded) {
  const header = page.locator('.part.sidebar .pane-header', { hasText: 'Sessions' }).first();
  if (!(await header.isVisible().catch(() => false))) return;
  if ((await header.getAttribute('aria-expanded')) !== String(expanded)) {
    await header.click();
  }
}

/** The sidebar redraws whenever new data arrives: retry an action that met a replaced element. */
async function settled(action, attempts = 10) {
  for (let i = 1; ; i++) {
    try {
      return await action();
    } catch (e) {
      if (i >= attempts || !/not attached|detached/i.test(String(e))) throw e;
      await page.waitForTimeout(200);
    }
  }
}

function formatExact(n) {
  return String(Math.abs(Math.round(n))).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

async function textOf(locator) {
  return ((await locator.textContent({ timeout: WAIT })) || '').trim();
}

// --- the run -------------------------------------------------------------------------------------

(async () => {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-context-e2e-chromium-'));
  const ctx = await chromium.launchPersistentContext(profile, {
    executablePath: config.chromium || '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1500, height: 950 },
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
  page = ctx.pages()[0] || (await ctx.newPage());
  page.on('pageerror', (e) => log(`pageerror: ${e.message}`));
  let frame;

  await step('workbench', async () => {
    await page.goto(`${config.url}/?folder=${encodeURIComponent(config.folder)}`);
    await page.waitForSelector('.monaco-workbench', { timeout: WAIT });
    await page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'AGENTS.md' }).first().waitFor({ timeout: WAIT });
    return 'workbench open on the sample workspace';
  });

  await step('server-running', async () => {
    await openContainer();
    frame = await sidebarFrame();
    // The server state banner disappears once the client runs; a failure banner has role=alert.
    await frame.locator('header.top').waitFor({ timeout: WAIT });
    const end = Date.now() + WAIT;
    for (;;) {
      const starting = await frame.getByText('Starting the pi-context server').count();
      const failed = await frame.locator('.banner.error').count();
      if (failed) {
        throw new Error(`server failed: ${await textOf(frame.locator('.banner.error').first())}`);
      }
      if (!starting) break;
      if (Date.now() > end) throw new Error('the server did not start');
      await page.waitForTimeout(200);
    }
    await shot('sidebar-server-running');
    return 'extension activated, server started from piContext.python';
  });

  await step('diagnostic', async () => {
    await quickOpen(config.skillRelPath);
    const opened = Date.now();
    await page.locator('.monaco-editor .squiggly-warning, .monaco-editor .squiggly-error').first().waitFor({ timeout: WAIT });
    const squiggleMs = Date.now() - opened;
    await shot('skill-squiggle');
    await palette('View: Focus Problems');
    const row = page.locator('.markers-panel .monaco-list-row', { hasText: config.diagnosticText }).first();
    await row.waitFor({ timeout: WAIT });
    await shot('problems-panel');
    return `Problems lists "${config.diagnosticText}" (squiggle ${squiggleMs} ms after the file opened)`;
  });

  await step('quickfix', async () => {
    // Put the cursor on the finding: select the Problems row (Enter opens the location), then Ctrl+.
    const row = page.locator('.markers-panel .monaco-list-row', { hasText: config.diagnosticText }).first();
    await row.click();
    await page.keyboard.press('Enter');
    await page.locator('.monaco-editor.focused').first().waitFor({ timeout: WAIT });
    await page.keyboard.press('Control+.');
    const action = page.locator('.action-widget .monaco-list-row.action', { hasText: config.quickFixText }).first();
    await action.waitFor({ timeout: WAIT });
    await shot('quickfix-menu');
    await action.click();
    await page.keyboard.press('Control+S');
    await page.locator('.monaco-editor .squiggly-warning, .monaco-editor .squiggly-error').first().waitFor({ state: 'detached', timeout: WAIT });
    await page.locator('.markers-panel .monaco-list-row', { hasText: config.diagnosticText }).first().waitFor({ state: 'detached', timeout: WAIT });
    await shot('quickfix-applied');
    return `"${config.quickFixText}" cleared the finding`;
  });

  await step('gauge', async () => {
    await openContainer();
    frame = await sidebarFrame();
    await frame.locator('#gauge .seg').first().waitFor({ timeout: WAIT });
    const equation = await textOf(frame.locator('#budget-equation'));
    if (!/= 200k window|window/.test(equation) || /≠/.test(equation)) {
      throw new Error(`the categories do not add up to the window: ${equation}`);
    }
    // Every legend group row's tokens add up to the window shown in the headline.
    const groups = await frame.locator('#budget-legend tr.group-row td.num:first-of-type').allTextContents();
    const sum = groups.map((t) => Number(t.replace(/,/g, ''))).reduce((a, b) => a + b, 0);
    if (sum !== config.window) {
      throw new Error(`legend groups add up to ${sum}, window is ${config.window}`);
    }
    const status = page.locator('.statusbar-item', { hasText: /% of / }).first();
    await status.waitFor({ timeout: WAIT });
    await tidy();
    await shot('budget-gauge');
    return `legend adds up to ${formatExact(sum)}; status bar "${await textOf(status)}"`;
  });

  await step('sections', async () => {
    frame = await sidebarFrame();
    await frame.locator('#sections-list li').first().waitFor({ timeout: WAIT });
    const check = async (key) => {
      for (const s of config.sections) {
        const cell = frame.locator(`#sections-list li[data-name="${s.name}"] .tokens`).first();
        const shown = await textOf(cell);
        if (shown !== formatExact(s[key])) {
          throw new Error(`section ${s.name}: sidebar shows ${shown}, pi-context prompt --json says ${s[key]} (${key})`);
        }
      }
    };
    await frame.getByRole('button', { name: 'Better estimate' }).click();
    await page.waitForTimeout(300);
    await check('tokens');
    await settled(() => frame.locator('#sections-title').scrollIntoViewIfNeeded());
    await shot('sections-estimate');
    await frame.getByRole('button', { name: "Pi's count" }).click();
    await page.waitForTimeout(300);
    await check('piTokens');
    await shot('sections-pi-count');
    return `${config.sections.length} sections match pi-context prompt --json (both counts)`;
  });

  await step('system-prompt-document', async () => {
    await palette('Pi Context: Show Assembled System Prompt');
    await page.locator('.tabs-container .tab', { hasText: 'System Prompt.md' }).first().waitFor({ timeout: WAIT });
    await shot('system-prompt-document');
    return 'read-only virtual document opened';
  });

  await step('section-change', async () => {
    await quickOpen('AGENTS.md');
    await page.locator('.monaco-editor.focused').first().waitFor({ timeout: WAIT }).catch(() => {});
    await page.locator('.editor-instance .monaco-editor .view-lines').first().click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type(config.agentsAppend);
    await page.keyboard.press('Control+S');
    const savedAt = Date.now();
    await openContainer();
    frame = await sidebarFrame();
    const row = frame.locator(`#sections-list li.changed[data-name="${config.changedSection}"]`).first();
    await row.waitFor({ timeout: WAIT });
    const highlightMs = Date.now() - savedAt;
    await tidy();
    await settled(() => row.scrollIntoViewIfNeeded());
    const delta = await textOf(row.locator('.delta'));
    if (!/^\+/.test(delta)) {
      throw new Error(`expected a positive delta on ${config.changedSection}, got "${delta}"`);
    }
    await shot('section-changed');
    await settled(() => row.getByRole('button', { name: /diff/i }).click());
    await page.locator('.monaco-diff-editor').first().waitFor({ timeout: WAIT });
    await shot('section-diff');
    return `${config.changedSection} highlighted ${delta} ${highlightMs} ms after the save; diff editor opened`;
  });

  await step('projected-request', async () => {
    await openContainer();
    frame = await sidebarFrame();
    await frame.locator('#request-list .group').first().waitFor({ timeout: WAIT });
    const system = frame.locator('#request-list .group.system details.collapsible > summary').first();
    await settled(() => system.click());
    const firstTurn = frame.locator('#request-list .group.turn details.collapsible > summary').first();
    await settled(() => firstTurn.click());
    await settled(() => frame.locator('#request-title').scrollIntoViewIfNeeded());
    await shot('projected-request');
    return `${await frame.locator('#request-list .message').count()} messages in the first turn`;
  });

  await step('cost-chart', async () => {
    await openContainer();
    frame = await sidebarFrame();
    const bars = frame.locator('#cost .cost-bar');
    await bars.first().waitFor({ timeout: WAIT });
    const count = await bars.count();
    if (count !== config.costTurns) {
      throw new Error(`the chart has ${count} bars, pi-context session --costs --json has ${config.costTurns} turns`);
    }
    const summary = await textOf(frame.locator('#cost .cost-summary'));
    if (!summary.startsWith(`${config.costTurns} turns`)) {
      throw new Error(`unexpected summary "${summary}"`);
    }
    await settled(() => frame.locator('#cost-title').scrollIntoViewIfNeeded());
    await bars.nth(Math.floor(count / 2)).hover();
    await page.waitForTimeout(300);
    await shot('cost-chart');
    return `${count} bars; "${summary}"`;
  });

  await step('sessions-tree', async () => {
    await setSessionsExpanded(true);
    const row = page.locator('.monaco-list-row', { hasText: config.sessionLabel }).first();
    await row.waitFor({ timeout: WAIT });
    if ((await row.getAttribute('aria-expanded')) === 'false') {
      await row.click();
    }
    await page.locator('.monaco-list-row', { hasText: 'Step 1' }).first().waitFor({ timeout: WAIT });
    await shot('sessions-tree');
    return 'session listed';
  });

  await step('compact-cancel', async () => {
    // Ask the test (which owns the fake LLM) to make its next answer hang, and wait until it has.
    // Runs before the real compaction: Pi refuses to compact a session right after a compaction.
    const ready = path.join(outDir, 'slow-llm.ready');
    process.stdout.write('SIGNAL slow-llm\n');
    const end = Date.now() + WAIT;
    while (!fs.existsSync(ready)) {
      if (Date.now() > end) throw new Error('the test did not make the summarizer slow');
      await page.waitForTimeout(100);
    }
    await palette('Pi Context: Compact Session');
    const input = await compactInput();
    await input.press('Enter'); // no focus instructions
    const progress = page.locator('.notifications-toasts .notification-toast', { hasText: 'Compacting session' }).first();
    await progress.waitFor({ timeout: WAIT });
    await page.waitForTimeout(1500); // the summarizer is streaming now
    await shot('compact-cancel-progress');
    await progress.hover();
    await progress.getByRole('button', { name: 'Cancel' }).click();
    const cancelled = page.locator('.notifications-toasts .notification-toast', { hasText: 'cancelled; the session is unchanged' }).first();
    await cancelled.waitFor({ timeout: WAIT });
    await page.waitForTimeout(400); // let the toast finish fading in: screenshots only
    await shot('compact-cancelled');
    return 'cancel from the progress notification: nothing appended';
  });

  await step('compact', async () => {
    await palette('Pi Context: Compact Session');
    const input = await compactInput();
    await input.fill(config.compactFocus);
    await page.keyboard.press('Enter');
    const progress = page.locator('.notifications-toasts .notification-toast', { hasText: 'Compacting session' }).first();
    await progress.waitFor({ timeout: WAIT });
    await page.waitForTimeout(400); // let the toast finish fading in: screenshots only
    await shot('compact-progress');
    await page.locator('.tabs-container .tab', { hasText: 'Compaction Summary (preview)' }).first().waitFor({ timeout: WAIT });
    await page.locator('.monaco-editor .view-lines', { hasText: config.summaryMarker }).first().waitFor({ timeout: WAIT });
    const confirm = page.locator('.notifications-toasts .notification-toast', { hasText: 'Append this compaction summary' }).first();
    await confirm.waitFor({ timeout: WAIT });
    await page.waitForTimeout(400); // let the toast finish fading in: screenshots only
    await shot('compact-preview');
    await confirm.getByRole('button', { name: 'Append to Session' }).click();
    await page.locator('.notifications-toasts .notification-toast', { hasText: 'Compaction appended' }).first().waitFor({ timeout: WAIT });
    await shot('compact-appended');
    return 'progress shown, summary previewed, appended after confirmation';
  });

  await step('branch-summary', async () => {
    await palette('Pi Context: Summarize Branch');
    await page.locator('.quick-input-widget .quick-input-title', { hasText: 'Summarize Branch' }).first().waitFor({ timeout: WAIT });
    const input = page.locator('.quick-input-widget .quick-input-box input');
    await input.fill(config.branchTarget);
    await page.locator('.quick-input-list .monaco-list-row', { hasText: config.branchTarget }).first().waitFor({ timeout: WAIT });
    await shot('branch-target-pick');
    await input.press('Enter');
    await page.locator('.quick-input-widget .quick-input-message', { hasText: 'focus on' }).first().waitFor({ timeout: WAIT });
    await input.press('Enter'); // no focus instructions
    await page.locator('.tabs-container .tab', { hasText: 'Branch Summary (preview)' }).first().waitFor({ timeout: WAIT });
    const confirm = page.locator('.notifications-toasts .notification-toast', { hasText: 'Append this branch summary' }).first();
    await confirm.waitFor({ timeout: WAIT });
    await page.waitForTimeout(400); // let the toast finish fading in: screenshots only
    await shot('branch-preview');
    await confirm.getByRole('button', { name: 'Append to Session' }).click();
    await page.locator('.notifications-toasts .notification-toast', { hasText: 'Branch summary appended' }).first().waitFor({ timeout: WAIT });
    return `moved to "${config.branchTarget}" with a previewed, confirmed branch summary`;
  });

  await ctx.close();
  fs.rmSync(profile, { recursive: true, force: true });
  const ok = steps.every((s) => s.status !== 'failed');
  process.stdout.write(JSON.stringify({ ok, seconds: (Date.now() - t0) / 1000, steps }) + '\n');
  process.exit(ok ? 0 : 1);
})().catch(async (e) => {
  log(`driver crashed: ${e && e.stack ? e.stack : e}`);
  try {
    if (page) await shot('crash');
  } catch {
    /* ignore */
  }
  process.stdout.write(JSON.stringify({ ok: false, crashed: String(e), steps }) + '\n');
  process.exit(2);
});
