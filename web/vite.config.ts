// Builds the console into web/dist, which the service serves at /console/ (src/console/console-routes.ts).
// Preact's JSX through Vite's own transform: no plugin beyond Vite.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/console/',
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // The service reads the build once at start; source maps would only add to it.
    sourcemap: false,
    reportCompressedSize: false,
  },
});
