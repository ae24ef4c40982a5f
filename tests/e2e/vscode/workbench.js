// What the VS Code drivers (driver.js, chat_driver.js) share: launching headless chromium on
// code-server, steps with passed/failed/waiting results, screenshots, the workbench helpers, and
// the SIGNAL/REPLY channel to the Python test (harness.run_driver).
//
//   const run = createRun(config);
//   await run.launch();
//   await run.step('name', async () => 'detail');   // config.expect[name] !== true: waiting
//   run.finish();                                   // prints the JSON report and exits
'use strict';
const { chromium } = require('playwright-core');
const fs = require('fs');
const os = require('os');
const path = require('path');
const readline = require('readline');

/** Thrown inside a step when an element it needs is not built yet: the step is *waiting*, not failed. */
class Waiting extends Error {}

function createRun(config) {
  const outDir = config.outDir;
  fs.mkdirSync(outDir, { recursive: true });
  const WAIT = config.waitMs || 60000;
  const t0 = Date.now();
  const steps = [];
  let shotIndex = 0;
  let ctx;
  let profile;
  const run = { config, outDir, WAIT, steps, page: null, Waiting };

  // --- the channel to the test: SIGNAL name json -> REPLY json ---------------------------------
  const replies = [];
  const waiters = [];
  const input = readline.createInterface({ input: process.stdin });
  input.on('line', (line) => {
    if (!line.startsWith('REPLY ')) return;
    const reply = JSON.parse(line.slice('REPLY '.length));
    const waiter = waiters.shift();
    if (waiter) waiter(reply);
    else replies.push(reply);
  });

  /** Ask the test to do something only it can (script the model, list processes); its answer. */
  run.signal = async (name, arg) => {
    process.stdout.write(`SIGNAL ${name} ${JSON.stringify(arg === undefined ? null : arg)}\n`);
    const reply = replies.length ? replies.shift() : await new Promise((resolve) => waiters.push(resolve));
    if (reply.error) throw new Error(`the test could not ${name}: ${reply.error}`);
    return reply.value;
  };

  run.log = (msg) => {
    process.stderr.write(`[${((Date.now() - t0) / 1000).toFixed(1)}s] ${msg}\n`);
  };

  run.shot = async (name) => {
    shotIndex += 1;
    const file = path.join(outDir, `${String(shotIndex).padStart(2, '0')}-${name}.png`);
    await run.page.screenshot({ path: file });
    return path.basename(file);
  };

  run.step = async (name, fn) => {
    const need = config.expect[name];
    if (need !== true) {
      steps.push({ name, status: 'waiting', detail: need || 'not expected', seconds: 0 });
      run.log(`${name}: waiting (${need})`);
      return;
    }
    const start = Date.now();
    run.log(`${name}: start`);
    try {
      const detail = await fn();
      steps.push({ name, status: 'passed', detail: detail || '', seconds: (Date.now() - start) / 1000 });
      run.log(`${name}: passed`);
    } catch (e) {
      if (e instanceof Waiting) {
        steps.push({ name, status: 'waiting', detail: e.message, seconds: (Date.now() - start) / 1000 });
        run.log(`${name}: waiting (${e.message})`);
        return;
      }
      let screenshot = '';
      try {
        screenshot = await run.shot(`${name}-FAILED`);
      } catch {
        /* the page may be gone */
      }
      steps.push({ name, status: 'failed', detail: String(e && e.stack ? e.stack : e), screenshot, seconds: (Date.now() - start) / 1000 });
      run.log(`${name}: FAILED ${e}`);
    }
  };

  run.launch = async () => {
    profile = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-context-e2e-chromium-'));
    ctx = await chromium.launchPersistentContext(profile, {
      executablePath: config.chromium || '/usr/bin/chromium',
      headless: true,
      viewport: config.viewport || { width: 1500, height: 950 },
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
        '--disable-component-update', '--disable-sync'],
    });
    run.page = ctx.pages()[0] || (await ctx.newPage());
    run.page.on('pageerror', (e) => run.log(`pageerror: ${e.message}`));
    return run.page;
  };

  run.finish = async (extra = {}) => {
    if (ctx) await ctx.close();
    if (profile) fs.rmSync(profile, { recursive: true, force: true });
    const ok = steps.every((s) => s.status !== 'failed');
    process.stdout.write(JSON.stringify({ ok, seconds: (Date.now() - t0) / 1000, steps, ...extra }) + '\n');
    process.exit(ok ? 0 : 1);
  };

  run.crashed = async (e) => {
    run.log(`driver crashed: ${e && e.stack ? e.stack : e}`);
    try {
      if (run.page) await run.shot('crash');
    } catch {
      /* ignore */
    }
    process.stdout.write(JSON.stringify({ ok: false, crashed: String(e), steps }) + '\n');
    process.exit(2);
  };

  // --- workbench helpers ---------------------------------------------------------------------

  run.openFolder = async (folder, expectRow) => {
    const page = run.page;
    await page.goto(`${config.url}/?folder=${encodeURIComponent(folder)}`);
    await page.waitForSelector('.monaco-workbench', { timeout: WAIT });
    if (expectRow) {
      await page.locator('.explorer-folders-view .monaco-list-row', { hasText: expectRow }).first().waitFor({ timeout: WAIT });
    }
  };

  run.palette = async (title, timeout = WAIT) => {
    const page = run.page;
    await page.keyboard.press('F1');
    const box = page.locator('.quick-input-widget .quick-input-box input');
    await box.waitFor({ state: 'visible', timeout });
    await box.fill(`>${title}`);
    await page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first().waitFor({ timeout });
    await page.keyboard.press('Enter');
  };

  run.quickOpen = async (relPath) => {
    const page = run.page;
    await page.keyboard.press('Control+P');
    const box = page.locator('.quick-input-widget .quick-input-box input');
    await box.waitFor({ state: 'visible', timeout: WAIT });
    await box.fill(relPath);
    const name = path.basename(relPath);
    await page.locator('.quick-input-list .monaco-list-row', { hasText: name }).first().waitFor({ timeout: WAIT });
    await page.keyboard.press('Enter');
    await page.locator('.tabs-container .tab', { hasText: name }).first().waitFor({ timeout: WAIT });
  };

  /** The frame of one of our webviews: webview views live in an overlay iframe holding an inner #active-frame. */
  run.webviewFrame = async (selector, what, timeout = WAIT) => {
    const end = Date.now() + timeout;
    while (Date.now() < end) {
      for (const f of run.page.frames()) {
        if (await f.locator(selector).count().catch(() => 0)) {
          return f;
        }
      }
      await run.page.waitForTimeout(200);
    }
    throw new Error(`${what} did not render`);
  };

  /** Shows the Pi Context side bar (clicking its activity-bar icon when it is already shown would hide it). */
  run.openContainer = async () => {
    const page = run.page;
    const title = page.locator('.part.sidebar .composite.title', { hasText: 'Pi Context' }).first();
    if (await title.isVisible().catch(() => false)) {
      return;
    }
    // Right after a window reload the side bar may still be restoring itself: a click then can land on a
    // shown container and hide it again. So: click, give it a few seconds, and look again.
    const icon = page.locator('.activitybar .action-item a[aria-label^="Pi Context"], .activitybar .action-item[aria-label^="Pi Context"]').first();
    const end = Date.now() + WAIT;
    while (Date.now() < end) {
      await icon.click();
      try {
        await title.waitFor({ timeout: 5000 });
        return;
      } catch {
        if (await title.isVisible().catch(() => false)) return;
      }
    }
    await title.waitFor({ timeout: 1000 });
  };

  /**
   * Shows the Chat view where the extension puts it, the Pi Chat container of the secondary side bar, through the
   * view's focus command (`piContext.chat.focus`, "Focus on Pi Chat View"): what a user's Ctrl+Alt+P runs too.
   */
  /**
   * The Chat view's webview for a driver: its frame, found once and found again when the view is rebuilt (a
   * driver that reloads the window sets ``frame`` to null); an element of it waited for (missing: the step is
   * waiting for it, with the selector named); the root's ``data-state``.
   */
  run.chatView = (needMs = 20000) => {
    const view = { frame: null };
    view.chat = async (timeout = needMs) => {
      const known = view.frame;
      if (known && !known.isDetached() && (await known.locator('[data-testid=chat-root]').count().catch(() => 0))) {
        return known;
      }
      try {
        view.frame = await run.webviewFrame('[data-testid=chat-root]', 'the Chat view', timeout);
      } catch {
        throw new Waiting("waits for the view's [data-testid=chat-root]");
      }
      return view.frame;
    };
    view.need = async (selector, options = {}) => {
      const f = await view.chat();
      const locator = options.within ? options.within.locator(selector) : f.locator(selector);
      const first = options.nth !== undefined ? locator.nth(options.nth) : locator.first();
      try {
        await first.waitFor({ state: options.state || 'attached', timeout: options.timeout || needMs });
      } catch {
        throw new Waiting(`waits for the view's ${selector}`);
      }
      return first;
    };
    view.rootState = async () =>
      (await view.chat()).locator('[data-testid=chat-root]').first().getAttribute('data-state');
    view.waitState = async (state, timeout = WAIT) => {
      await run.until(
        async () => (await view.rootState()) === state,
        `chat-root data-state=${state} (is ${await view.rootState()})`,
        timeout,
      );
    };
    return view;
  };

  run.openChat = async () => {
    const page = run.page;
    const bar = page.locator('.part.auxiliarybar').first();
    const title = page.locator('.part.auxiliarybar .composite.title', { hasText: 'Pi Chat' }).first();
    if (await title.isVisible().catch(() => false)) {
      return; // already shown (a reloaded window restores the secondary side bar as it was)
    }
    // Right after a window reload the workbench may not take F1 yet: try again, as openContainer does for its click.
    const end = Date.now() + WAIT;
    while (Date.now() < end) {
      try {
        await run.palette('Focus on Pi Chat View', 10000);
        await title.waitFor({ timeout: 5000 });
        await bar.waitFor({ state: 'visible', timeout: 1000 });
        return;
      } catch {
        if (await title.isVisible().catch(() => false)) return;
        await page.keyboard.press('Escape').catch(() => undefined);
      }
    }
    await title.waitFor({ timeout: 1000 });
  };

  /** Widens the secondary side bar (drags the sash at its left edge) so the chat reads well in screenshots. */
  run.widenChat = async (width) => {
    const page = run.page;
    const box = await page.locator('.part.auxiliarybar').first().boundingBox();
    if (!box || box.width >= width) return;
    const y = box.y + box.height / 2;
    await page.mouse.move(box.x - 1, y);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width - width, y, { steps: 8 });
    await page.mouse.up();
  };

  /** Expands or collapses one view of the side bar by its header title. */
  run.setViewExpanded = async (viewTitle, expanded) => {
    const header = run.page.locator('.part.sidebar .pane-header', { hasText: viewTitle }).first();
    if (!(await header.isVisible().catch(() => false))) return false;
    if ((await header.getAttribute('aria-expanded')) !== String(expanded)) {
      await header.click();
    }
    return true;
  };

  run.setSessionsExpanded = (expanded) => run.setViewExpanded('Sessions', expanded);

  /** Makes room for the Context view in screenshots: bottom panel and chat hidden, the Sessions view collapsed. */
  run.tidy = async () => {
    if (await run.page.locator('.part.panel').first().isVisible().catch(() => false)) {
      await run.palette('View: Hide Panel').catch(() => run.page.keyboard.press('Escape'));
    }
    // The chat has its own container in the secondary side bar: hidden here, the Context view has the room.
    if (await run.page.locator('.part.auxiliarybar').first().isVisible().catch(() => false)) {
      await run.palette('View: Hide Secondary Side Bar').catch(() => run.page.keyboard.press('Escape'));
    }
    await run.setSessionsExpanded(false);
  };

  /** The sidebar redraws whenever new data arrives: retry an action that met a replaced element. */
  run.settled = async (action, attempts = 10) => {
    for (let i = 1; ; i++) {
      try {
        return await action();
      } catch (e) {
        if (i >= attempts || !/not attached|detached/i.test(String(e))) throw e;
        await run.page.waitForTimeout(200);
      }
    }
  };

  run.textOf = async (locator) => ((await locator.textContent({ timeout: WAIT })) || '').trim();

  /** Waits until ``predicate()`` is truthy (polled), or throws ``what``. */
  run.until = async (predicate, what, timeout = WAIT) => {
    const end = Date.now() + timeout;
    for (;;) {
      const value = await predicate();
      if (value) return value;
      if (Date.now() > end) throw new Error(`timed out: ${what}`);
      await run.page.waitForTimeout(100);
    }
  };

  return run;
}

function formatExact(n) {
  return String(Math.abs(Math.round(n))).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

module.exports = { createRun, formatExact, Waiting };
