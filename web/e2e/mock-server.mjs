// MOCK server for running the e2e suite before (or without) the real Rust server.
// It is not the product: it serves web/dist with SPA fallback, /skins from
// config/skins, a fake GET /api/dev/balance (the demo wallet) and /healthz.
//
//   node e2e/mock-server.mjs            # listens on PORT or 8080
//   E2E_MOCK=1 npm run e2e              # run.mjs starts it on a free port itself
//
// It has no encrypted request layer (getapitoken, login, register ...): the client
// now needs an API token to boot, so the suite needs the real DEMO=1 server.
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
const DIST = resolve(here, '../dist');
const SKINS = resolve(here, '../../config/skins');

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.ico': 'image/x-icon',
};

export const DEMO_BALANCE = {
  balance: '10000.00',
  bonus_balance: '0.00',
  bonus_win_balance: '0.00',
  frozen_balance: '0.00',
  currency: 'CNY',
  username: 'demo',
};

async function sendFile(res, root, relative) {
  const path = normalize(join(root, relative));
  if (path !== root && !path.startsWith(root + sep)) return false;
  try {
    if (!(await stat(path)).isFile()) return false;
    res.writeHead(200, { 'Content-Type': TYPES[extname(path)] ?? 'application/octet-stream' });
    res.end(await readFile(path));
    return true;
  } catch {
    return false;
  }
}

const sendJson = (res, status, body) => {
  res.writeHead(status, { 'Content-Type': TYPES['.json'] });
  res.end(JSON.stringify(body));
};

/** Starts the mock; `loggedIn: false` answers the balance with status 12. */
export function startMockServer({ port = 0, loggedIn = true } = {}) {
  const server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://mock').pathname);
    if (path === '/healthz') return sendJson(res, 200, { status: 'ok', store: 'mock' });
    if (path === '/api/dev/balance') {
      return loggedIn
        ? sendJson(res, 200, { status: 0, msg: '', data: DEMO_BALANCE })
        : sendJson(res, 200, { status: 12, msg: 'Not logged in', data: null });
    }
    if (path.startsWith('/api/')) return sendJson(res, 404, { status: 404, msg: 'mock: no such endpoint', data: null });
    if (path.startsWith('/skins/')) {
      if (await sendFile(res, SKINS, path.slice('/skins/'.length))) return;
      res.writeHead(404).end();
      return;
    }
    if (path !== '/' && (await sendFile(res, DIST, path.slice(1)))) return;
    if (path.startsWith('/assets/')) return void res.writeHead(404).end();
    if (!(await sendFile(res, DIST, 'index.html'))) res.writeHead(500).end('web/dist missing: run npm run build');
  });
  return new Promise((resolveStart) => {
    server.listen(port, '127.0.0.1', () => {
      const { port: actual } = server.address();
      resolveStart({ url: `http://127.0.0.1:${actual}/`, close: () => new Promise((r) => server.close(r)) });
    });
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { url } = await startMockServer({ port: Number(process.env.PORT ?? 8080) });
  console.log(`mock server (not the product) on ${url}`);
}
