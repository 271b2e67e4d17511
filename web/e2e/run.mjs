// End-to-end checks of the client in headless Debian Chromium (never a downloaded
// browser). BASE_URL points at the real server (default http://127.0.0.1:8080/);
// E2E_MOCK=1 starts e2e/mock-server.mjs instead; E2E_ONLY=text picks tests by name
// (E2E_ONLY=cash-out, E2E_ONLY="counter offer"). Ends with "N passed, M failed" (", K skipped"
// when a test needs a server part that is not there yet).
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const CHROMIUM = '/usr/bin/chromium';
const here = fileURLToPath(new URL('.', import.meta.url));
const SHOTS = resolve(here, 'screenshots');
const TIMEOUT_MS = 30_000;
/** The texts the client shows in its default language (the browser's locale is zh-CN). */
const ZHH = JSON.parse(readFileSync(resolve(here, '../../config/skins/languages/zhh.json'), 'utf8'));

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

/** Picks the first open price of the list on screen; returns its event id. */
async function pickOpenPrice(page) {
  await byTestId(page, 'game-row').first().waitFor({ timeout: TIMEOUT_MS });
  const rows = await byTestId(page, 'game-row').count();
  for (let row = 0; row < rows; row++) {
    const price = byTestId(page, 'game-row').nth(row).locator('[data-testid=price]:not([disabled])').first();
    if ((await price.count()) === 0) continue;
    const eventId = await price.getAttribute('data-event');
    await price.click();
    return Number(eventId);
  }
  throw new Error('no open price on the page');
}

/** Places the slip on screen (accepting any price change) and returns the bet id from the success popup. */
async function placeSlip(page, stakeKeys) {
  await byTestId(page, 'betslip-count').filter({ hasText: '1' }).waitFor({ timeout: TIMEOUT_MS });
  await byTestId(page, 'betslip-button').click();
  await byTestId(page, 'betslip').waitFor({ timeout: TIMEOUT_MS });
  await byTestId(page, 'accept-mode').selectOption('2');
  await byTestId(page, 'stake-input').click();
  for (const key of stakeKeys) await byTestId(page, `kb-${key}`).click();
  await byTestId(page, 'kb-done').click();
  for (let attempt = 0; ; attempt++) {
    await byTestId(page, 'place-bet').click();
    const outcome = await Promise.race([
      byTestId(page, 'bet-success').waitFor({ timeout: TIMEOUT_MS }).then(() => 'ok'),
      byTestId(page, 'betslip-message').waitFor({ timeout: TIMEOUT_MS }).then(() => 'message'),
    ]);
    if (outcome === 'ok') break;
    const accept = byTestId(page, 'accept-changes');
    if (attempt < 3 && (await accept.count()) > 0) {
      await accept.first().click();
      continue;
    }
    throw new Error(`bet refused: ${await byTestId(page, 'betslip-message').textContent()}`);
  }
  const id = (await byTestId(page, 'bet-success-id').textContent()).trim();
  if (!/^\d+$/.test(id)) throw new Error(`no bet id in the success popup: ${id}`);
  return id;
}

/**
 * Commands on a Swarm session of its own, as the logged-in member of `page`
 * (request_session, restore_login with the stored auth data, then `commands`).
 * Returns the `data` of each command's answer; a non-zero code throws.
 */
async function swarmAsMember(page, commands) {
  return page.evaluate(async (cmds) => {
    const auth = JSON.parse(localStorage.getItem('authData') ?? 'null');
    if (!auth) throw new Error('not logged in');
    const conf = await (await fetch('/skins/conf.json')).json();
    const ws = new WebSocket(`${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/swarm`);
    await new Promise((ok, fail) => { ws.onopen = ok; ws.onerror = () => fail(new Error('swarm socket error')); });
    let rid = 0;
    const waiting = new Map();
    ws.onmessage = (m) => {
      const answer = JSON.parse(String(m.data));
      const w = waiting.get(String(answer.rid));
      if (!w) return;
      waiting.delete(String(answer.rid));
      if (answer.code === 0) w.ok(answer.data);
      else w.fail(new Error(`${w.command}: code ${answer.code} ${answer.msg ?? ''}`));
    };
    const send = (command, params) => new Promise((ok, fail) => {
      const id = `e2e${++rid}`;
      waiting.set(id, { ok, fail, command });
      ws.send(JSON.stringify({ command, params, rid: id }));
    });
    try {
      await send('request_session', { language: 'eng', site_id: conf.site_id, source: 42 });
      await send('restore_login', { user_id: auth.user_id, auth_token: auth.auth_token });
      const out = [];
      for (const [command, params] of cmds) out.push(await send(command, params));
      return out;
    } finally {
      ws.close();
    }
  }, commands);
}

/** The current price of one selection, from a `get` on the feed (wherever the event sits in the answer). */
async function selectionPrice(page, eventId) {
  const [answer] = await swarmAsMember(page, [['get', {
    source: 'betting', what: { game: ['id'], market: ['id'], event: ['id', 'price'] }, where: { event: { id: { '@in': [eventId] } } }, subscribe: false,
  }]]);
  const find = (node) => {
    if (!node || typeof node !== 'object') return null;
    if (Number(node.id) === eventId && node.price !== undefined) return Number(node.price);
    for (const v of Object.values(node)) {
      const hit = find(v);
      if (hit !== null) return hit;
    }
    return null;
  };
  const price = find(answer);
  if (!(price > 1)) throw new Error(`no price for selection ${eventId}`);
  return price;
}

/**
 * Support declines the member's open super bets through the back office API: a member
 * has one active super bet at most (1026), and a server that ran this test before keeps it.
 */
async function declineOpenSuperBets(page, baseUrl, username) {
  const api = (path) => new URL(`api/backoffice${path}`, baseUrl).href;
  const login = await page.request.post(api('/login'), { data: { username: 'support', password: 'support1234' } });
  const token = (await login.json())?.data?.token;
  if (!token) throw new Error(`support login refused: ${login.status()}`);
  const headers = { Authorization: `Bearer ${token}` };
  const queue = await (await page.request.get(api('/counter-offers?status=open'), { headers })).json();
  for (const bet of queue?.data ?? []) {
    if (bet.username !== username) continue;
    await page.request.post(api(`/counter-offers/${bet.bet_id}/decline`), { headers, data: { reason: 'e2e: a fresh super bet follows' } });
  }
}

/** The record of one bet on the history page. */
const betRecord = (page, id) => page.locator(`[data-testid=bet-record][data-bet="${id}"]`);

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
        // Give the list its time to load before counting.
        await page.locator(`[data-testid=bet-record][data-bet="${ids[ids.length - 1]}"]`).waitFor({ timeout: 5000 }).catch(() => {});
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
  {
    name: 'cash-out: a single cashed out from the bet history',
    requires: 'backoffice',
    async run(page, baseUrl) {
      await page.goto(new URL('/prematch', baseUrl).href, { waitUntil: 'domcontentloaded' });
      await logIn(page, baseUrl, 'demo', 'demo1234');
      await pickOpenPrice(page);
      const id = await placeSlip(page, ['1', '0']);
      await byTestId(page, 'bet-success-history').click();
      await byTestId(page, 'history-page').waitFor({ timeout: TIMEOUT_MS });
      const record = betRecord(page, id);
      await record.locator('[data-testid=cashout-button]').waitFor({ timeout: TIMEOUT_MS });
      await record.locator('[data-testid=cashout-button]').click();
      const dialog = byTestId(page, 'cashout-dialog');
      // the amount comes from calculate_cashout_amount, again every 5 s: a moment of suspension passes
      await page.locator('[data-testid=cashout-dialog][data-phase=normal]').waitFor({ timeout: TIMEOUT_MS });
      await byTestId(page, 'cashout-amount').filter({ hasText: /\d/ }).waitFor({ timeout: TIMEOUT_MS });
      await page.screenshot({ path: resolve(SHOTS, 'cashout.png') });
      await byTestId(page, 'cashout-submit').click();
      for (let attempt = 0; ; attempt++) {
        const outcome = await Promise.race([
          byTestId(page, 'cashout-done').waitFor({ timeout: TIMEOUT_MS }).then(() => 'done'),
          byTestId(page, 'cashout-fail').waitFor({ timeout: TIMEOUT_MS }).then(() => 'moved'),
          byTestId(page, 'cashout-error').waitFor({ timeout: TIMEOUT_MS }).then(() => 'error'),
        ]);
        if (outcome === 'done') break;
        if (outcome === 'moved' && attempt < 3) {
          // 'Cannot cash out' with the amount the server offers instead: taken with one tap
          await page.screenshot({ path: resolve(SHOTS, 'cashout-moved.png') });
          await byTestId(page, 'cashout-accept-suggested').click();
          continue;
        }
        throw new Error(`cash-out refused: ${await dialog.textContent()}`);
      }
      await byTestId(page, 'cashout-done').filter({ hasText: ZHH['cashout.done'] }).waitFor({ timeout: TIMEOUT_MS });
      await page.screenshot({ path: resolve(SHOTS, 'cashout-done.png') });
      await byTestId(page, 'cashout-done-close').click();
      // the list loads again after the cash-out: the bet is settled now, as Cashed out
      await byTestId(page, 'history-tab-settled').click();
      const cashedOut = page.locator(`[data-testid=bet-record][data-bet="${id}"][data-outcome="5"]`);
      await cashedOut.waitFor({ timeout: TIMEOUT_MS });
      await cashedOut.locator('[data-testid=bet-status]').filter({ hasText: ZHH['history.status.cashed_out'] }).waitFor({ timeout: TIMEOUT_MS });
      await page.screenshot({ path: resolve(SHOTS, 'cashout-history.png') });
    },
  },
  {
    name: 'counter offer: a super bet, support offers a lower stake, the member accepts',
    requires: 'backoffice',
    async run(page, baseUrl, { browser }) {
      await page.goto(new URL('/prematch', baseUrl).href, { waitUntil: 'domcontentloaded' });
      await logIn(page, baseUrl, 'demo', 'demo1234');
      const eventId = await pickOpenPrice(page);
      // the super bet (mode -1) goes straight to do_bet: the slip offers it only after a 1510 over the member's limit
      await declineOpenSuperBets(page, baseUrl, 'demo');
      let placed = null;
      for (let attempt = 0; attempt < 3 && !placed; attempt++) {
        const price = await selectionPrice(page, eventId);
        const [answer] = await swarmAsMember(page, [['do_bet', {
          type: 1, mode: -1, amount: 20, each_way: false, source: 42, bets: [{ event_id: eventId, price, banker: false }], odd_type: 0, is_offer: false,
        }]]);
        if (String(answer.result).toUpperCase() === 'OK') placed = answer.details;
        else if (Number(answer.result) !== 1800) throw new Error(`super bet refused: ${JSON.stringify(answer)}`);
      }
      if (!placed) throw new Error('super bet refused three times: the price kept moving');
      if (Number(placed.status) !== -5) throw new Error(`the super bet is not On Hold: ${JSON.stringify(placed)}`);
      const id = String(placed.bet_id);

      await page.goto(new URL('/history/bets', baseUrl).href, { waitUntil: 'domcontentloaded' });
      const record = betRecord(page, id);
      await record.locator('[data-testid=counter-offer-waiting]').filter({ hasText: ZHH['error.onhold'] }).waitFor({ timeout: TIMEOUT_MS });
      await page.screenshot({ path: resolve(SHOTS, 'super-bet-waiting.png') });

      // support, in a browser of its own on a laptop screen
      const staff = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'zh-CN', reducedMotion: 'reduce' });
      try {
        const desk = await staff.newPage();
        await desk.goto(new URL('/backoffice', baseUrl).href, { waitUntil: 'domcontentloaded' });
        await byTestId(desk, 'bo-username').fill('support');
        await byTestId(desk, 'bo-password').fill('support1234');
        await byTestId(desk, 'bo-login-submit').click();
        await desk.locator('[data-testid=bo-role][data-role=support]').waitFor({ timeout: TIMEOUT_MS });
        if ((await byTestId(desk, 'bo-nav-audit').count()) > 0) throw new Error('support sees the audit navigation');
        const item = desk.locator(`[data-testid=bo-queue-item][data-bet="${id}"]`);
        await item.waitFor({ timeout: TIMEOUT_MS }); // the queue reloads every 5 s
        await desk.screenshot({ path: resolve(SHOTS, 'backoffice-queue.png') });
        await item.locator('[data-testid=bo-queue-open]').click();
        await byTestId(desk, 'bo-bet-amount').filter({ hasText: '20.00' }).waitFor({ timeout: TIMEOUT_MS });
        await byTestId(desk, 'bo-offer-amount').fill('10');
        await byTestId(desk, 'bo-offer-reason').fill('Market limit for this event');
        await byTestId(desk, 'bo-offer-submit').click();
        const decided = await Promise.race([
          byTestId(desk, 'bo-decision-done').waitFor({ timeout: TIMEOUT_MS }).then(() => true),
          byTestId(desk, 'bo-decision-error').waitFor({ timeout: TIMEOUT_MS }).then(() => false),
        ]);
        if (!decided) throw new Error(`counter offer refused: ${await byTestId(desk, 'bo-decision-error').textContent()}`);
        await byTestId(desk, 'bo-bet-offered').waitFor({ timeout: TIMEOUT_MS });
        await desk.screenshot({ path: resolve(SHOTS, 'backoffice-offer.png'), fullPage: true });
      } finally {
        await staff.close();
      }

      // the member: the realtime tip reloads the history; a reload covers a missed tip
      const accept = record.locator('[data-testid=counter-accept]');
      if (!(await accept.waitFor({ timeout: TIMEOUT_MS / 2 }).then(() => true, () => false))) {
        await page.reload({ waitUntil: 'domcontentloaded' });
        await accept.waitFor({ timeout: TIMEOUT_MS });
      }
      await record.locator('[data-testid=counter-offer-amount]').filter({ hasText: '10.00' }).waitFor({ timeout: TIMEOUT_MS });
      await page.screenshot({ path: resolve(SHOTS, 'counter-offer.png') });
      await accept.click();
      await byTestId(page, 'notice').filter({ hasText: ZHH['betslip.bet_accepted'] }).waitFor({ timeout: TIMEOUT_MS });
      // accepted on the offered terms: an ordinary unsettled bet of 10.00
      await page.locator(`[data-testid=bet-record][data-bet="${id}"][data-outcome="0"]`).waitFor({ timeout: TIMEOUT_MS });
      await page.screenshot({ path: resolve(SHOTS, 'counter-offer-accepted.png') });
    },
  },
];

/**
 * Tests of a server part that may not be there yet: 'backoffice' (issue 6: cash-out,
 * counter offers and the back office) runs once /api/backoffice answers, and is
 * reported as skipped before.
 */
async function available(baseUrl, what) {
  if (what !== 'backoffice') return true;
  try {
    const res = await fetch(new URL('api/backoffice/me', baseUrl).href);
    return res.status !== 404;
  } catch {
    return false;
  }
}

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
  let skipped = 0;
  try {
    for (const test of selected) {
      if (test.requires && !(await available(baseUrl, test.requires))) {
        skipped++;
        console.log(`skip ${test.name}: the server has no ${test.requires} yet`);
        continue;
      }
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
        await test.run(page, baseUrl, { browser });
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

  console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
  process.exit(failed ? 1 : 0);
}

main().catch((err) => {
  console.error(err);
  console.log(`0 passed, ${selected.length} failed`);
  process.exit(1);
});
