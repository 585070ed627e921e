/** The window's size and place, remembered across runs in Memdir's data dir. */
import fs from 'node:fs';
import path from 'node:path';

export interface WindowState {
  bounds: { width: number; height: number; x?: number; y?: number };
  maximized: boolean;
}

const DEFAULT: WindowState = { bounds: { width: 1280, height: 820 }, maximized: false };

export function loadWindowState(dataDir: string): WindowState {
  try {
    const raw = JSON.parse(fs.readFileSync(path.join(dataDir, 'window.json'), 'utf8')) as Partial<WindowState>;
    const b = raw.bounds;
    if (!b || !(b.width >= 400 && b.height >= 300)) return DEFAULT;
    return {
      bounds: { width: b.width, height: b.height, ...(Number.isFinite(b.x) && Number.isFinite(b.y) ? { x: b.x!, y: b.y! } : {}) },
      maximized: raw.maximized === true,
    };
  } catch {
    return DEFAULT;
  }
}

export function saveWindowState(dataDir: string, bounds: { width: number; height: number; x: number; y: number }, maximized: boolean): void {
  try {
    // Synchronous (the window is closing) but still atomic: temp file, then rename.
    fs.mkdirSync(dataDir, { recursive: true });
    const temp = path.join(dataDir, `.window.json.${process.pid}.tmp`);
    fs.writeFileSync(temp, JSON.stringify({ bounds, maximized }));
    fs.renameSync(temp, path.join(dataDir, 'window.json'));
  } catch {
    // Losing the window position is not worth an error dialog.
  }
}
