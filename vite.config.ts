// The renderer bundle (React). Output: out/renderer, loaded by Electron (app:// protocol) and
// served by the headless host.
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

export default defineConfig({
  root: 'src/renderer',
  base: './',
  plugins: [react()],
  build: {
    outDir: '../../out/renderer',
    emptyOutDir: true,
    sourcemap: true,
    target: 'chrome130',
    chunkSizeWarningLimit: 2000,
  },
});
