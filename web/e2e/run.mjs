// End-to-end checks of the client in headless Debian Chromium (never a downloaded
// browser). BASE_URL points at the real server (default http://127.0.0.1:8080/);
// E2E_MOCK=1 starts e2e/mock-server.mjs instead. Ends with "N passed, M failed".
import { existsSync, mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const CHROMIUM = '/usr/bin/chromium';
const here = fileURLToPath(new URL('.', import.meta.url));
const SHOTS = resolve(here, 'screenshots');
const TIMEOUT_MS = 30_000;

const tests = [
  {
    name: 'header shows the demo balance',
    async run(page, baseUrl) {
      await page.goto(baseUrl, { waitUntil: 'domcontentloaded' });
      const balance = page.locator('[data-testid=balance]');
      await balance.filter({ hasText: '10,000.00' }).waitFor({ timeout: TIMEOUT_MS });
      await page.locator('[data-testid=balance-currency]').filter({ hasText: 'CNY' }).waitFor({ timeout: TIMEOUT_MS });
      await page.screenshot({ path: resolve(SHOTS, 'balance.png') });
    },
  },
];

async function main() {
  if (!existsSync(CHROMIUM)) {
    console.error(`${CHROMIUM} not found: apt-get update && apt-get install -y chromium`);
    console.log(`0 passed, ${tests.length} failed`);
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
    for (const test of tests) {
      const context = await browser.newContext({
        viewport: { width: 390, height: 844 },
        deviceScaleFactor: 2,
        isMobile: true,
        hasTouch: true,
        locale: 'zh-CN',
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
  console.log(`0 passed, ${tests.length} failed`);
  process.exit(1);
});
