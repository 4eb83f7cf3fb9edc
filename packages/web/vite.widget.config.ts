import { defineConfig } from 'vite';

// The widget: one self-contained script (styles inside), served by the gateway as /widget.js from dist/web.
export default defineConfig({
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  define: { 'process.env.NODE_ENV': '"production"' },
  build: {
    outDir: '../../dist/web',
    emptyOutDir: false,
    sourcemap: false,
    lib: { entry: 'src/widget/main.tsx', formats: ['iife'], name: 'AskdataWidget', fileName: () => 'widget.js' },
  },
});
