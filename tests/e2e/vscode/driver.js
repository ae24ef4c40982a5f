// Drives real VS Code (code-server) in headless Debian chromium with playwright-core, through the
// Pi Context extension's user-facing flows. Called by test_vscode_e2e.py with one JSON argument:
//   { url, folder, outDir, expect: {<step>: true|"waiting reason"}, sections: [...], skillPath, ... }
// Prints one JSON line {"ok": bool, "steps": [...]} on stdout; a step is passed, failed or waiting
// (a server feature it needs is not in this build of the server: it is reported, not run).
// Screenshots of every step land in outDir as NN-<step>.png.
'use strict';
const { createRun, formatExact } = require('./workbench');

const config = JSON.parse(process.argv[2]);
const run = createRun(config);
const t0 = Date.now();
const { WAIT, step, shot, palette, quickOpen, openContainer, tidy, setSessionsExpanded, settled, textOf } = run;
let page;

/** The focus-instructions box of Compact Session (the quick-input widget is shared with the palette). */
async function compactInput() {
  await page.locator('.quick-input-widget .quick-input-title', { hasText: 'Compact Session' }).first().waitFor({ timeout: WAIT });
  const input = page.locator('.quick-input-widget .quick-input-box input');
  await input.waitFor({ state: 'visible', timeout: WAIT });
  return input;
}

/** Fails when a notification toast holding `text` is shown (the confirmation belongs to the preview). */
async function expectNoToast(text) {
  const toast = page.locator('.notifications-toasts .notification-toast', { hasText: text });
  if (await toast.count()) {
    throw new Error(`the question "${text}" is asked in a notification toast`);
  }
}

/** Waits until the preview document says what happened; returns the entry id it names. */
async function settledPreview(headline) {
  const lines = page.locator('.monaco-editor .view-lines', { hasText: headline }).first();
  await lines.waitFor({ timeout: WAIT });
  const text = (await lines.innerText()).replace(/\u00a0/g, ' ');
  if (/Nothing has been written/.test(text)) {
    throw new Error('the preview still says that nothing has been written');
  }
  const id = /as\s+entry\s+`([^`]+)`/.exec(text);
  if (!id) {
    throw new Error(`the settled preview names no entry id:\n${text.slice(0, 600)}`);
  }
  // Nothing is waiting any more: the buttons are gone from the code lens and the title bar.
  await page.locator('.codelens-decoration a', { hasText: 'Append to Session' }).first().waitFor({ state: 'detached', timeout: WAIT });
  await page.locator('.editor-actions .action-label[aria-label^="Append to Session"]').first().waitFor({ state: 'detached', timeout: WAIT });
  return id[1];
}

/** The Context view's frame. */
function sidebarFrame() {
  return run.webviewFrame('main#app', 'the Pi Context webview');
}

// --- the run -------------------------------------------------------------------------------------

(async () => {
  page = await run.launch();
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
    const seen = [];
    for (;;) {
      const starting = await frame.locator('#server-starting').count();
      if (starting) {
        const text = await frame.locator('#server-starting').first().textContent().catch(() => '');
        if (text && !seen.includes(text)) {
          seen.push(text);
          if (seen.length === 1) await shot('sidebar-server-starting');
        }
      }
      const failed = await frame.locator('.banner.error').count();
      if (failed) {
        throw new Error(`server failed: ${await textOf(frame.locator('.banner.error').first())}`);
      }
      if (!starting) break;
      if (Date.now() > end) throw new Error('the server did not start');
      await page.waitForTimeout(200);
    }
    await shot('sidebar-server-running');
    const progress = seen.length ? `; while starting the view said: ${seen.join(' / ')}` : '';
    return `extension activated, server started (${((Date.now() - t0) / 1000).toFixed(1)} s after the driver began)${progress}`;
  });

  await step('chat-no-pi', async () => {
    // piContext.pi.command names no program: the Chat view says so, and every other step still works.
    await run.openChat();
    const chat = await run.webviewFrame('[data-testid=chat-root]', 'the Chat view');
    const root = chat.locator('[data-testid=chat-root]').first();
    await run.until(async () => (await root.getAttribute('data-state')) === 'no-pi', 'chat-root data-state=no-pi');
    const text = await textOf(chat.locator('[data-testid=chat-no-pi]').first());
    if (!text.includes(config.piInstallCommand)) {
      throw new Error(`the notice does not give the install command: ${text}`);
    }
    await shot('chat-no-pi');
    return `"${text.replace(/\s+/g, ' ')}"`;
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
    // The code actions are asked for when Ctrl+. is pressed; a press that lands while the editor is still
    // taking the focus opens nothing, so it is pressed again until the menu shows (or the wait ends).
    const action = page.locator('.action-widget .monaco-list-row.action', { hasText: config.quickFixText }).first();
    const end = Date.now() + WAIT;
    for (;;) {
      await page.keyboard.press('Control+.');
      try {
        await action.waitFor({ timeout: 5000 });
        break;
      } catch (error) {
        if (Date.now() > end) throw error;
        await page.keyboard.press('Escape');
        await page.locator('.monaco-editor.focused').first().waitFor({ timeout: WAIT });
      }
    }
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
    // What the save costs new sessions: where the prompt now first differs (docs/cost.md).
    const saveCost = await textOf(frame.locator('[data-testid=save-cost-new]').first());
    if (!/^New sessions: the prompt first differs at token [\d,]+ of [\d,]+; the [\d,]+ tokens? from there on miss the prompt cache/.test(saveCost)) {
      throw new Error(`the change banner does not say what the save costs new sessions: "${saveCost}"`);
    }
    await shot('section-changed');
    await settled(() => row.getByRole('button', { name: /diff/i }).click());
    await page.locator('.monaco-diff-editor').first().waitFor({ timeout: WAIT });
    await shot('section-diff');
    const tab = await textOf(page.locator('.tabs-container .tab.active').first());
    if (!/patch [\d,]+ tokens?; new sessions differ from token/.test(tab)) {
      throw new Error(`the diff's title does not give the patch and where new sessions differ: "${tab}"`);
    }
    return `${config.changedSection} highlighted ${delta} ${highlightMs} ms after the save ("${saveCost}"); diff editor "${tab}"`;
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
    // The price line under the title: the sample's cache expired long ago, so the cold price (docs/cost.md).
    const price = frame.locator('[data-testid=request-price]').first();
    const line = await textOf(price);
    if (!line.includes('cache probably expired') || !line.endsWith(`≈ ${config.coldCost}`)) {
      throw new Error(`the next request's price line says "${line}", expected the expired cache and ≈ ${config.coldCost}`);
    }
    const title = (await price.getAttribute('title')) || '';
    // The warm price within 1%: the test priced it with the CLI before the save of step section-change, which the
    // server's next request takes up (a difference the old four decimals rounded away: $0.01294 against $0.01295).
    const warm = /If the cache holds:[^\n]*?≈ \$(\d[\d,]*(?:\.\d+)?)/.exec(title);
    const shown = warm ? Number(warm[1].replace(/,/g, '')) : NaN;
    if (!(Math.abs(shown - config.warmCostValue) <= config.warmCostValue * 0.01)) {
      throw new Error(`the price line's hover lacks the warm price ${config.warmCost}: ${title}`);
    }
    await shot('projected-request');
    return `${await frame.locator('#request-list .message').count()} messages in the first turn; "${line}"`;
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
    if (!summary.startsWith(config.costSummary)) {
      throw new Error(`unexpected summary "${summary}", expected it to start with "${config.costSummary}"`);
    }
    // The context size line: one point per turn.
    const points = ((await frame.locator('#cost polyline.cost-context').first().getAttribute('points')) || '').trim().split(/\s+/);
    if (points.length !== config.costTurns) {
      throw new Error(`the context line has ${points.length} points for ${config.costTurns} turns`);
    }
    // Pi's compaction threshold is drawn (the sample reaches a third of it), not named in a note.
    if ((await frame.locator('#cost line.cost-threshold').count()) !== 1 || (await frame.locator('#cost .cost-threshold-note').count())) {
      throw new Error('the threshold is not drawn as a line');
    }
    // A mark per compaction and branch point of the branch.
    const marks = {};
    for (const [kind, expected] of Object.entries(config.costMarks)) {
      marks[kind] = await frame.locator(`#cost line.cost-mark-${kind}`).count();
      if (marks[kind] !== expected) {
        throw new Error(`${marks[kind]} ${kind} marks, pi-context session --costs --json has ${expected}`);
      }
    }
    // The next request's price under the chart, cold: the sample's cache expired long ago.
    const next = await textOf(frame.locator('#cost .cost-next'));
    if (!next.includes('cache probably expired') || !next.includes(`or ${config.coldCost} if it expired`)) {
      throw new Error(`the chart's next-request line says "${next}"`);
    }
    await settled(() => frame.locator('#cost-title').scrollIntoViewIfNeeded());
    // Hover: the turn after the compaction, whose whole context was written to the cache again.
    const hovered = bars.nth(config.costHover.index);
    await hovered.hover();
    const readout = frame.locator('[data-testid=cost-hover]').first();
    await run.until(async () => (await textOf(readout)).startsWith(`Turn ${config.costHover.index + 1} · ${config.costHover.entryId}`), 'the hovered bar\'s numbers under the chart');
    const numbers = await textOf(readout);
    if (!numbers.includes(`cost ${config.costHover.cost} (as Pi recorded it)`)) {
      throw new Error(`the hovered bar shows "${numbers}", expected cost ${config.costHover.cost}`);
    }
    await page.waitForTimeout(300);
    await shot('cost-chart');
    // The part alone, for the README (docs/images/extension-cost-chart.png is a copy of it).
    await frame.locator('#cost').screenshot({ path: require('path').join(config.outDir, 'cost-chart-part.png') });
    return `${count} bars, ${points.length} context points, threshold drawn, marks ${JSON.stringify(marks)}; "${summary}"; hover "${numbers.split('\n')[0]}"; "${next}"`;
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
    await run.signal('slow-llm');
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
    // The question is asked in the preview itself (its editor title bar), not in a toast.
    await page.locator('.monaco-editor .view-lines', { hasText: 'Nothing has been written' }).first().waitFor({ timeout: WAIT });
    // What the summary costs (the summarizer's prices) and saves (the session model's prices, models.json).
    const cost = page.locator('.monaco-editor .view-lines', { hasText: 'Cost.' }).first();
    await cost.waitFor({ timeout: WAIT });
    const costText = (await cost.innerText()).replace(/\u00a0/g, ' ');
    if (!/summary requests?: [\d,]+ tokens in[\s\S]*≈ \$\d/.test(costText) || !/fewer\s+tokens/.test(costText) || !/Pays\s+for\s+itself\s+after\s+\d+\s+later\s+turns?/.test(costText)) {
      throw new Error(`the preview does not price the compaction: ${costText.slice(0, 600)}`);
    }
    const append = page.locator('.editor-actions .action-label[aria-label^="Append to Session"]').first();
    await append.waitFor({ timeout: WAIT });
    await page.waitForTimeout(400); // let the editor settle: screenshots only
    await shot('compact-preview');
    await expectNoToast('Append this compaction summary');
    await append.click();
    await page.locator('.notifications-toasts .notification-toast', { hasText: 'Compaction appended' }).first().waitFor({ timeout: WAIT });
    const entry = await settledPreview('Compaction summary — appended');
    await shot('compact-appended');
    return `progress shown, summary previewed, appended from the preview's title bar; the preview now says entry ${entry}`;
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
    // This time through the code lens above the summary (the other place the preview offers it).
    const lens = page.locator('.contentWidgets .codelens-decoration a, .codelens-decoration a', { hasText: 'Append to Session' }).first();
    await lens.waitFor({ timeout: WAIT });
    await page.waitForTimeout(400); // let the editor settle: screenshots only
    await shot('branch-preview');
    await expectNoToast('Append this branch summary');
    await lens.click();
    await page.locator('.notifications-toasts .notification-toast', { hasText: 'Branch summary appended' }).first().waitFor({ timeout: WAIT });
    const entry = await settledPreview('Branch summary — appended');
    await shot('branch-appended');
    return `moved to "${config.branchTarget}" with a previewed branch summary confirmed from its code lens (entry ${entry})`;
  });

  await run.finish();
})().catch(run.crashed);
