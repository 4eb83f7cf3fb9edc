import { defineConfig } from 'vite';

// The console: a page and its hashed assets under /console, served by the gateway.
export default defineConfig({
  root: 'src/console',
  base: '/console/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: { outDir: '../../dist/console', emptyOutDir: true, assetsDir: 'assets', sourcemap: true, modulePreload: { polyfill: false } },
});
