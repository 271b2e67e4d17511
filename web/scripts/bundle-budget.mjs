// The first-load budget (issue 15): the JavaScript that dist/index.html loads (its module
// scripts and modulepreloads), gzipped, must stay under 150 kB (kB = 1000 bytes, as vite
// prints). Run after `vite build`: `node scripts/bundle-budget.mjs [dist]`. Prints each
// file, the total and a "budget: N passed, M failed" line; exits 1 above the budget.
// Chunks loaded later (every route screen, the i18next engine the boot fetches beside the
// configuration) are listed for information and not counted.
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';

export const BUDGET_KB = 150;
const dist = resolve(process.argv[2] ?? new URL('../dist', import.meta.url).pathname);
const html = readFileSync(join(dist, 'index.html'), 'utf8');
const gz = (file) => gzipSync(readFileSync(join(dist, file)), { level: 9 }).length / 1000;

const first = new Set();
for (const tag of html.match(/<(script|link)\b[^>]*>/g) ?? []) {
  const src = /\b(?:src|href)="\/?([^"]+\.js)"/.exec(tag)?.[1];
  const module = /type="module"/.test(tag) || /rel="modulepreload"/.test(tag);
  if (src && module) first.add(src);
}
if (first.size === 0) {
  console.error(`no module script in ${join(dist, 'index.html')}: run vite build first`);
  process.exit(1);
}

let total = 0;
for (const file of first) {
  const size = gz(file);
  total += size;
  console.log(`first load  ${size.toFixed(2).padStart(8)} kB  ${file}`);
}
const boot = readdirSync(join(dist, 'assets')).filter((f) => /^engine-.*\.js$/.test(f));
for (const file of boot) console.log(`boot chunk  ${gz(join('assets', file)).toFixed(2).padStart(8)} kB  assets/${file} (not counted: fetched beside the configuration)`);
const ok = total <= BUDGET_KB;
console.log(`first-load JavaScript: ${total.toFixed(2)} kB gzipped (budget ${BUDGET_KB} kB)${ok ? '' : ' OVER BUDGET'}`);
console.log(`budget: ${ok ? 1 : 0} passed, ${ok ? 0 : 1} failed`);
process.exit(ok ? 0 : 1);
