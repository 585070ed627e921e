import { HomeScanCache, scanHome } from '../src/main/memdir/scan-home.js';
const home = process.argv[2]!;
const c = new HomeScanCache(); await scanHome(home, { cache: c, env: {} });
for (let i = 0; i < 10; i++) { const t = performance.now(); await scanHome(home, { cache: c, env: {} }); console.log('rescan', Math.round(performance.now() - t)); }
