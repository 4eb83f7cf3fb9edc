import { defineConfig } from 'vite';

// The console: a page and its hashed assets under /console, served by the gateway from the service's dist/web.
export default defineConfig({
  root: 'src/console',
  base: '/console/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: { outDir: '../../../../dist/web/console', emptyOutDir: true, assetsDir: 'assets', sourcemap: true, modulePreload: { polyfill: false } },
});
