// The Electron preload: one CommonJS file (sandboxed preloads cannot load ES modules),
// with `electron` left to the runtime.
import { defineConfig } from 'vite';

export default defineConfig({
  build: {
    outDir: 'out/preload',
    emptyOutDir: true,
    minify: false,
    target: 'node20',
    lib: { entry: 'src/preload/preload.ts', formats: ['cjs'], fileName: () => 'preload.cjs' },
    rollupOptions: { external: ['electron'] },
  },
});
