// bench_chat.py --render: how long a streamed delta takes from Pi to the Chat view's DOM in code-server.
// One JSON argument: { url, folder, outDir, chromium, expect: {render: true}, prompt, lastDelta }.
// In the chat webview a MutationObserver records, whenever the last assistant message shows a higher
// delta number ("t<n>"), the wall-clock time (performance.timeOrigin + now()) of the DOM change and of
// the next animation frame. Prints the workbench.js report with "renders": [[ms, n, kind], ...].
'use strict';
const path = require('path');
const { createRun, Waiting } = require(path.join(__dirname, '..', 'tests', 'e2e', 'vscode', 'workbench'));

const config = JSON.parse(process.argv[2]);
const run = createRun(config);
let renders = [];

(async () => {
  const page = await run.launch();
  await run.step('render', async () => {
    await run.openFolder(config.folder);
    await run.openContainer();
    let frame;
    try {
      frame = await run.webviewFrame('[data-testid=chat-root]', 'the Chat view', 60000);
    } catch {
      throw new Waiting("waits for the view's [data-testid=chat-root]");
    }
    await run.setViewExpanded('Context', false);
    await run.until(async () => (await frame.locator('[data-testid=chat-root]').getAttribute('data-state')) === 'idle', 'the chat to be idle');
    await frame.evaluate(() => {
      const root = document.querySelector('[data-testid=chat-root]');
      const seen = [];
      window.__renders = seen;
      let shown = -1;
      const highest = (text) => {
        let best = -1;
        for (const m of text.matchAll(/\bt(\d+)\b/g)) best = Math.max(best, Number(m[1]));
        return best;
      };
      new MutationObserver(() => {
        const replies = root.querySelectorAll('[data-testid=chat-message][data-role=assistant]');
        const last = replies[replies.length - 1];
        if (!last) return;
        const n = highest(last.textContent || '');
        if (n <= shown) return;
        shown = n;
        seen.push([performance.timeOrigin + performance.now(), n, 'dom']);
        requestAnimationFrame(() => seen.push([performance.timeOrigin + performance.now(), n, 'frame']));
      }).observe(root, { subtree: true, childList: true, characterData: true });
    });
    const input = frame.locator('textarea[data-testid=chat-input]').first();
    await input.fill(config.prompt);
    await input.press('Enter');
    const end = `t${config.lastDelta}`;
    await run.until(async () => (await frame.evaluate(() => window.__renders.length)) > 0 &&
      (await frame.evaluate((n) => window.__renders.some((r) => r[1] >= n), config.lastDelta)), `${end} rendered`, 300000);
    await page.waitForTimeout(500); // the last animation frame
    renders = await frame.evaluate(() => window.__renders);
    await run.shot('render-done');
    return `${renders.length} DOM updates recorded`;
  });
  await run.finish({ renders });
})().catch(run.crashed);
