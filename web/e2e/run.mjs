// End-to-end checks of the client in headless Debian Chromium (never a downloaded
// browser). BASE_URL points at the real server (default http://127.0.0.1:8080/);
// E2E_MOCK=1 starts e2e/mock-server.mjs instead; E2E_ONLY=text picks tests by name.
// Ends with "N passed, M failed".
import { existsSync, mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const CHROMIUM = '/usr/bin/chromium';
const here = fileURLToPath(new URL('.', import.meta.url));
const SHOTS = resolve(here, 'screenshots');
const TIMEOUT_MS = 30_000;

/** Codes "sent" by the DEMO server: GET /api/dev/outbox, newest first. */
async function outboxCode(page, baseUrl, match, what) {
  for (let i = 0; i < 60; i++) {
    const res = await page.request.get(new URL('api/dev/outbox', baseUrl).href);
    const body = await res.json().catch(() => null);
    const list = Array.isArray(body) ? body : Array.isArray(body?.data) ? body.data : [];
    const hit = list.find(match);
    if (hit) return String(hit.code);
    await page.waitForTimeout(250);
  }
  throw new Error(`no outbox entry for ${what}`);
}

/** The digits of the captcha image on screen (issued when the image loads). */
async function captchaCode(page, baseUrl) {
  const img = page.locator('[data-testid=captcha-image]').first();
  await img.waitFor({ timeout: TIMEOUT_MS });
  await page.waitForFunction(() => {
    const el = document.querySelector('[data-testid=captcha-image]');
    return el instanceof HTMLImageElement && el.complete && el.naturalWidth > 0;
  }, null, { timeout: TIMEOUT_MS });
  const uid = await img.getAttribute('data-uid');
  return outboxCode(page, baseUrl, (e) => e.channel === 'captcha' && e.uid === uid, `captcha ${uid}`);
}

const byTestId = (page, id) => page.locator(`[data-testid="${id}"]`);

/** Opens the login popup and logs in; runs the safety verification when the server asks for it. */
async function logIn(page, baseUrl, account, password, { shot, safetyTo } = {}) {
  await byTestId(page, 'open-login').click();
  await byTestId(page, 'login-popup').waitFor({ timeout: TIMEOUT_MS });
  await byTestId(page, 'field-account').fill(account);
  await byTestId(page, 'field-password').fill(password);
  await byTestId(page, 'field-captcha').fill(await captchaCode(page, baseUrl));
  if (shot) await page.screenshot({ path: resolve(SHOTS, shot) });
  await byTestId(page, 'login-submit').click();
  const outcome = await Promise.race([
    byTestId(page, 'balance').waitFor({ timeout: TIMEOUT_MS }).then(() => 'in'),
    byTestId(page, 'safety-confirm').waitFor({ timeout: TIMEOUT_MS }).then(() => 'safety'),
    byTestId(page, 'login-error').waitFor({ timeout: TIMEOUT_MS }).then(() => 'error'),
  ]);
  if (outcome === 'error') throw new Error(`login refused: ${await byTestId(page, 'login-error').textContent()}`);
  if (outcome === 'safety') {
    await byTestId(page, 'safety-confirm-ok').click();
    await byTestId(page, 'safety-popup').waitFor({ timeout: TIMEOUT_MS });
    await byTestId(page, 'send-code').click();
    await byTestId(page, 'send-code').filter({ hasText: /\d/ }).waitFor({ timeout: TIMEOUT_MS }); // the countdown runs
    const code = await outboxCode(page, baseUrl,
      (e) => e.type === 8 && (!safetyTo || String(e.to).endsWith(safetyTo)), 'safety code');
    await byTestId(page, 'field-code').fill(code);
    await page.screenshot({ path: resolve(SHOTS, 'safety.png') });
    await byTestId(page, 'safety-verify').click();
    await byTestId(page, 'safety-relogin').waitFor({ timeout: TIMEOUT_MS });
    await byTestId(page, 'field-captcha').fill(await captchaCode(page, baseUrl));
    await byTestId(page, 'safety-relogin').click();
    await byTestId(page, 'balance').waitFor({ timeout: TIMEOUT_MS });
  }
  return outcome;
}

/** A fresh mainland number (the zhh market's rule: 11 digits starting with 1). */
const newPhone = () => `139${String(Date.now()).slice(-8)}`;
const account = { phone: newPhone(), password: 'abc12345' };

const tests = [
  {
    name: 'log in as demo and see the balance in the header',
    async run(page, baseUrl) {
      await page.goto(baseUrl, { waitUntil: 'domcontentloaded' });
      await logIn(page, baseUrl, 'demo', 'demo1234', { shot: 'login.png' });
      const balance = page.locator('[data-testid=balance]');
      await balance.filter({ hasText: /\d/ }).waitFor({ timeout: TIMEOUT_MS });
      await page.locator('[data-testid=balance-currency]').filter({ hasText: 'CNY' }).waitFor({ timeout: TIMEOUT_MS });
      await page.screenshot({ path: resolve(SHOTS, 'balance.png') });
    },
  },
  {
    name: 'register by phone with the SMS code, then log out',
    async run(page, baseUrl) {
      await page.goto(new URL('/#action=register', baseUrl).href, { waitUntil: 'domcontentloaded' });
      await byTestId(page, 'register-popup').waitFor({ timeout: TIMEOUT_MS });
      await byTestId(page, 'field-phone').fill(account.phone);
      await byTestId(page, 'send-code').click();
      const code = await outboxCode(page, baseUrl, (e) => e.channel === 'sms' && String(e.to).endsWith(account.phone) && e.type === 2, 'registration SMS');
      await byTestId(page, 'field-code').fill(code);
      await byTestId(page, 'field-password').fill(account.password);
      await byTestId(page, 'field-repassword').fill(account.password);
      await byTestId(page, 'field-gender').selectOption('M');
      await byTestId(page, 'field-birth_date').fill('1990-05-20');
      await byTestId(page, 'field-agree').check();
      await page.screenshot({ path: resolve(SHOTS, 'register.png'), fullPage: false });
      await byTestId(page, 'register-submit').click();
      const done = await Promise.race([
        byTestId(page, 'register-success').waitFor({ timeout: TIMEOUT_MS }).then(() => true),
        byTestId(page, 'register-error').waitFor({ timeout: TIMEOUT_MS }).then(() => false),
      ]);
      if (!done) throw new Error(`registration refused: ${await byTestId(page, 'register-error').textContent()}`);
      await page.screenshot({ path: resolve(SHOTS, 'register-success.png') });
      await byTestId(page, 'register-success-ok').click();
      await byTestId(page, 'balance').waitFor({ timeout: TIMEOUT_MS });
      await byTestId(page, 'menu-button').click();
      await byTestId(page, 'menu-logout').click();
      await byTestId(page, 'auth-buttons').waitFor({ timeout: TIMEOUT_MS });
    },
  },
  {
    name: 'log in with the new phone account and change the nickname',
    async run(page, baseUrl) {
      await page.goto(baseUrl, { waitUntil: 'domcontentloaded' });
      await logIn(page, baseUrl, account.phone, account.password, { safetyTo: account.phone });
      await page.goto(new URL('/setting/changenickname', baseUrl).href, { waitUntil: 'domcontentloaded' });
      const nickname = `Ace${String(Date.now()).slice(-6)}`;
      await byTestId(page, 'field-nickname').fill(nickname);
      await byTestId(page, 'settings-submit').click();
      await byTestId(page, 'settings-ok').waitFor({ timeout: TIMEOUT_MS });
      await byTestId(page, 'menu-button').click();
      await byTestId(page, 'menu-nickname').filter({ hasText: nickname }).waitFor({ timeout: TIMEOUT_MS });
      await page.screenshot({ path: resolve(SHOTS, 'nickname.png') });
    },
  },
  {
    name: 'live list, a live game, and a price that moves',
    async run(page, baseUrl) {
      await page.goto(new URL('/live', baseUrl).href, { waitUntil: 'domcontentloaded' });
      await byTestId(page, 'game-row').first().waitFor({ timeout: TIMEOUT_MS });
      await byTestId(page, 'game-clock').first().waitFor({ timeout: TIMEOUT_MS });
      await page.screenshot({ path: resolve(SHOTS, 'live.png') });
      await byTestId(page, 'game-link').first().click();
      await byTestId(page, 'game-page').waitFor({ timeout: TIMEOUT_MS });
      await byTestId(page, 'price-value').first().waitFor({ timeout: TIMEOUT_MS });
      if (!/\/live\/game\/\d+$/.test(new URL(page.url()).pathname)) throw new Error(`unexpected game path ${page.url()}`);
      const prices = () => page.evaluate(() => Object.fromEntries([...document.querySelectorAll('[data-testid=price]')]
        .map((el) => [el.getAttribute('data-event'), el.querySelector('[data-testid=price-value]')?.firstChild?.textContent ?? 'locked'])));
      const before = await prices();
      if (Object.keys(before).length === 0) throw new Error('no prices on the game page');
      let changed = false;
      for (let i = 0; i < 60 && !changed; i++) {
        await page.waitForTimeout(500);
        const now = await prices();
        changed = Object.entries(before).some(([id, price]) => id in now && now[id] !== price);
      }
      if (!changed) throw new Error(`no price changed within 30 s: ${JSON.stringify(before)}`);
      await page.screenshot({ path: resolve(SHOTS, 'game.png') });
    },
  },
  {
    name: 'prematch list and the search overlay',
    async run(page, baseUrl) {
      await page.goto(new URL('/prematch', baseUrl).href, { waitUntil: 'domcontentloaded' });
      await byTestId(page, 'game-row').first().waitFor({ timeout: TIMEOUT_MS });
      await page.screenshot({ path: resolve(SHOTS, 'prematch.png') });
      const team = (await page.locator('.game-row__name').first().textContent()).trim();
      await byTestId(page, 'search-button').click();
      await byTestId(page, 'search-overlay').waitFor({ timeout: TIMEOUT_MS });
      await byTestId(page, 'search-input').fill(team.slice(0, 6));
      await byTestId(page, 'search-result').first().waitFor({ timeout: TIMEOUT_MS });
      await page.screenshot({ path: resolve(SHOTS, 'search.png') });
      await byTestId(page, 'search-result').first().click();
      await byTestId(page, 'game-page').waitFor({ timeout: TIMEOUT_MS });
    },
  },
  {
    name: 'betslip: a single, an express and a system 2/3, each with the success popup, then the bet history',
    async run(page, baseUrl) {
      await page.goto(new URL('/prematch', baseUrl).href, { waitUntil: 'domcontentloaded' });
      await logIn(page, baseUrl, 'demo', 'demo1234');
      await byTestId(page, 'game-row').nth(5).waitFor({ timeout: TIMEOUT_MS });
      let row = 0;
      /** Picks an open price from each of `n` further games (one game each: no conflicts). */
      const pickGames = async (n) => {
        for (let picked = 0; picked < n; row++) {
          if (row >= (await byTestId(page, 'game-row').count())) throw new Error('not enough games with open prices');
          const price = byTestId(page, 'game-row').nth(row).locator('[data-testid=price]:not([disabled])').first();
          if ((await price.count()) === 0) continue;
          await price.click();
          picked++;
        }
      };
      const place = async ({ picks, type, stakeKeys, shot, system }) => {
        await pickGames(picks);
        await byTestId(page, 'betslip-count').filter({ hasText: String(picks) }).waitFor({ timeout: TIMEOUT_MS });
        await byTestId(page, 'betslip-button').click();
        await byTestId(page, 'betslip').waitFor({ timeout: TIMEOUT_MS });
        if (type === 3) await byTestId(page, 'bet-type-3').click();
        await byTestId(page, `bet-type-${type}`).and(page.locator('.is-active')).waitFor({ timeout: TIMEOUT_MS });
        if (system) await byTestId(page, 'system-select').selectOption(String(system));
        await byTestId(page, 'accept-mode').selectOption('2'); // prices move: accept any change
        await byTestId(page, 'stake-input').click();
        for (const key of stakeKeys) await byTestId(page, `kb-${key}`).click();
        await byTestId(page, 'kb-done').click();
        await byTestId(page, 'possible-win').filter({ hasText: /[1-9]/ }).waitFor({ timeout: TIMEOUT_MS });
        if (shot) await page.screenshot({ path: resolve(SHOTS, shot) });
        for (let attempt = 0; ; attempt++) {
          await byTestId(page, 'place-bet').click();
          const outcome = await Promise.race([
            byTestId(page, 'bet-success').waitFor({ timeout: TIMEOUT_MS }).then(() => 'ok'),
            byTestId(page, 'betslip-message').waitFor({ timeout: TIMEOUT_MS }).then(() => 'message'),
          ]);
          if (outcome === 'ok') break;
          const text = await byTestId(page, 'betslip-message').textContent();
          const accept = byTestId(page, 'accept-changes');
          if (attempt < 3 && (await accept.count()) > 0) {
            await accept.first().click();
            continue;
          }
          throw new Error(`bet refused: ${text}`);
        }
        const id = (await byTestId(page, 'bet-success-id').textContent()).trim();
        if (!/^\d+$/.test(id)) throw new Error(`no bet id in the success popup: ${id}`);
        return id;
      };
      const ids = [];
      ids.push(await place({ picks: 1, type: 1, stakeKeys: ['1', '0'] }));
      await page.screenshot({ path: resolve(SHOTS, 'bet-success.png') });
      await byTestId(page, 'bet-success-continue').click();
      await byTestId(page, 'betslip-count').filter({ hasText: '0' }).waitFor({ timeout: TIMEOUT_MS });
      ids.push(await place({ picks: 2, type: 2, stakeKeys: ['2', '0'] }));
      await byTestId(page, 'bet-success-continue').click();
      await byTestId(page, 'betslip-count').filter({ hasText: '0' }).waitFor({ timeout: TIMEOUT_MS });
      ids.push(await place({ picks: 3, type: 3, system: 2, stakeKeys: ['3', '0'], shot: 'betslip.png' }));
      await byTestId(page, 'bet-success-history').click();
      await byTestId(page, 'history-page').waitFor({ timeout: TIMEOUT_MS });
      if (new URL(page.url()).pathname !== '/history/bets') throw new Error(`unexpected path ${page.url()}`);
      for (const id of ids) await page.locator(`[data-testid=bet-record][data-bet="${id}"]`).waitFor({ timeout: TIMEOUT_MS });
      await page.screenshot({ path: resolve(SHOTS, 'history.png') });
      // The games end (a DEMO-only call: simulated games last minutes) and
      // the three bets settle: they move to the settled tab.
      for (const id of ids) {
        const ended = await page.request.post(new URL('api/dev/end-bet-games', baseUrl).href, { data: { bet_id: id } });
        if (!ended.ok()) throw new Error(`could not end the games of bet ${id}: ${ended.status()}`);
      }
      const settleBy = Date.now() + TIMEOUT_MS;
      for (;;) {
        await page.goto(new URL('history/bets', baseUrl).href, { waitUntil: 'domcontentloaded' });
        await byTestId(page, 'history-page').waitFor({ timeout: TIMEOUT_MS });
        await byTestId(page, 'history-tab-settled').click();
        const shown = await Promise.all(ids.map((id) => page.locator(`[data-testid=bet-record][data-bet="${id}"]`).count()));
        if (shown.every((n) => n > 0)) break;
        if (Date.now() > settleBy) throw new Error(`bets did not settle: ${JSON.stringify(shown)}`);
        await page.waitForTimeout(1000);
      }
      await page.screenshot({ path: resolve(SHOTS, 'history-settled.png') });
      await page.locator(`[data-testid=bet-record][data-bet="${ids[2]}"] a`).click();
      await byTestId(page, 'bet-detail').waitFor({ timeout: TIMEOUT_MS });
      // the right panel: bets of the last 24 hours; settled now, under 'Billed note'
      await byTestId(page, 'record-button').click();
      await byTestId(page, 'record-tab-settled').click();
      await page.locator(`[data-testid=bet-record-panel] [data-testid=bet-record][data-bet="${ids[0]}"]`).waitFor({ timeout: TIMEOUT_MS });
    },
  },
];

/** E2E_ONLY=text runs the tests whose name contains it. */
const selected = process.env.E2E_ONLY ? tests.filter((t) => t.name.includes(process.env.E2E_ONLY)) : tests;

async function main() {
  if (!existsSync(CHROMIUM)) {
    console.error(`${CHROMIUM} not found: apt-get update && apt-get install -y chromium`);
    console.log(`0 passed, ${selected.length} failed`);
    process.exit(1);
  }
  mkdirSync(SHOTS, { recursive: true });

  const mock = process.env.E2E_MOCK === '1' ? await (await import('./mock-server.mjs')).startMockServer() : null;
  const baseUrl = mock?.url ?? process.env.BASE_URL ?? 'http://127.0.0.1:8080/';
  if (mock) console.log(`using the MOCK server at ${baseUrl}`);

  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
      '--disable-component-update', '--no-first-run', '--disable-sync'],
  });

  let passed = 0;
  let failed = 0;
  try {
    for (const test of selected) {
      const context = await browser.newContext({
        viewport: { width: 390, height: 844 },
        deviceScaleFactor: 2,
        isMobile: true,
        hasTouch: true,
        locale: 'zh-CN',
        reducedMotion: 'reduce', // screenshots without half-finished slide-ins
      });
      const page = await context.newPage();
      const pageErrors = [];
      page.on('pageerror', (err) => pageErrors.push(err.message));
      try {
        await test.run(page, baseUrl);
        if (pageErrors.length) throw new Error(`uncaught page errors: ${pageErrors.join('; ')}`);
        passed++;
        console.log(`ok   ${test.name}`);
      } catch (err) {
        failed++;
        console.log(`FAIL ${test.name}: ${err instanceof Error ? err.message : err}`);
        await page.screenshot({ path: resolve(SHOTS, `failed-${passed + failed}.png`) }).catch(() => {});
      } finally {
        await context.close();
      }
    }
  } finally {
    await browser.close();
    await mock?.close();
  }

  console.log(`${passed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}

main().catch((err) => {
  console.error(err);
  console.log(`0 passed, ${selected.length} failed`);
  process.exit(1);
});
