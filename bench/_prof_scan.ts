import { HomeScanCache, scanHome } from '../src/main/memdir/scan-home.js';
const home = process.argv[2]!;
for (let i = 0; i < 3; i++) { const t = performance.now(); await scanHome(home, { cache: new HomeScanCache(), env: {} }); console.log('scan', performance.now() - t); }
const c = new HomeScanCache(); await scanHome(home, { cache: c, env: {} });
for (let i = 0; i < 3; i++) { const t = performance.now(); await scanHome(home, { cache: c, env: {} }); console.log('rescan', performance.now() - t); }
