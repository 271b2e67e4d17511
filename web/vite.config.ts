/// <reference types="vitest/config" />
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';
import type { Plugin } from 'vite';

/**
 * i18next is its own chunk (src/features/i18n/engine.ts, loaded at boot beside the
 * configuration). react-i18next, in the first load, imports one helper from it
 * (`keyFromSelector`, for selector keys this client never uses); a rollup chunk holds a
 * module whole, so that import would pull the engine into the first load. In the build
 * react-i18next gets the helper from a stand-in instead (tests use the real one).
 */
function i18nextOffTheFirstLoad(): Plugin {
  const shim = fileURLToPath(new URL('./src/features/i18n/reactI18nextShim.ts', import.meta.url));
  return {
    name: 'i18next-off-the-first-load',
    apply: 'build',
    enforce: 'pre',
    resolveId(source, importer) {
      return source === 'i18next' && importer?.includes('/node_modules/react-i18next/') ? shim : null;
    },
  };
}

// The Rust server (api/) listens on 8080 and serves the same paths in production.
const backend = 'http://127.0.0.1:8080';

export default defineConfig({
  base: '/',
  plugins: [react(), i18nextOffTheFirstLoad()],
  server: {
    proxy: {
      '/api': backend,
      '/skins': backend,
      '/healthz': backend,
      '/swarm': { target: backend, ws: true },
      '/ws': { target: backend, ws: true },
    },
  },
  build: {
    outDir: 'dist',
    target: 'es2020',
    sourcemap: false,
  },
  test: {
    environment: 'jsdom',
    setupFiles: ['./src/test/setup.ts'],
    include: ['src/**/*.test.{ts,tsx}'],
    restoreMocks: true,
  },
});
