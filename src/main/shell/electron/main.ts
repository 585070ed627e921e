/**
 * The Electron shell: the only code that imports `electron`. Thin by design — windows, menu,
 * tray, notifications and the IPC wiring; everything else is the same services the headless
 * host and the CLI use.
 *
 * Security: contextIsolation and sandbox on, nodeIntegration off, the renderer loaded from a
 * privileged custom scheme (`app://memdir/`) with a strict CSP, every navigation away from it
 * and every new window refused (navigation-policy.ts), permissions denied, and every IPC call
 * checked to come from our own main frame.
 *
 * Each decision lives in a plain module with its own test (Electron cannot run in CI here):
 * navigation-policy.ts, summons.ts (a second start), call-gate.ts and quit.ts (quitting).
 */
import { app, BrowserWindow, ipcMain, Menu, Notification, nativeTheme, net, protocol, shell, Tray, nativeImage, type IpcMainInvokeEvent } from 'electron';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { APP_ROOT, builtPath } from '../../core/app-root.js';
import { AppContext } from '../../app/app-context.js';
import { createAppDispatcher } from '../../api/index.js';
import { CONTENT_SECURITY_POLICY } from '../host/host-server.js';
import {
  autostartFile,
  autostartProgram,
  backgroundWork,
  DEEP_LINK_SCHEME,
  deepLinkIn,
  deepLinkTarget,
  type DeepLinkTarget,
  type DesktopShell,
  notificationFor,
  readAutostart,
  writeAutostart,
} from '../../desktop/index.js';
import { loadAppSettings } from '../../settings/index.js';
import { CallGate } from './call-gate.js';
import { callWords } from './call-words.js';
import { APP_ORIGIN, APP_SCHEME, isAppUrl, type NavigationKind, navigationVerdict } from './navigation-policy.js';
import { closeWithin, quitCutSentence } from './quit.js';
import { Summons } from './summons.js';
import { CALL_CHANNEL, EVENT_CHANNEL, SUBSCRIBE_CHANNEL } from './ipc-channels.js';
import { loadWindowState, saveWindowState } from './window-state.js';

const RENDERER_DIR = builtPath('renderer');
const PRELOAD = builtPath('preload', 'preload.cjs');

protocol.registerSchemesAsPrivileged([{ scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } }]);

/** What only the desktop app can do, for the services (src/main/desktop/desktop-shell.ts). */
const desktop: DesktopShell = {
  revealFile: (file) => shell.showItemInFolder(file),
  openFile: (file) => shell.openPath(file),
  // Electron's login-item API works on macOS and Windows; Linux uses the autostart entry.
  openAtLogin: async () => (process.platform === 'linux' ? readAutostart(autostartFile(process.env)) : app.getLoginItemSettings().openAtLogin),
  setOpenAtLogin: async (on) => {
    if (process.platform === 'linux') await writeAutostart(autostartFile(process.env), on, autostartProgram(process.env));
    else app.setLoginItemSettings({ openAtLogin: on });
  },
  applyTheme: (theme) => {
    nativeTheme.themeSource = theme;
  },
};

// Listened for from the first line: a second start or a link can come during the opening
// (macOS sends a link before 'ready'), before there is a window to show it; the window does it
// once it is there (summons.ts).
const summons = new Summons();
const startLink = deepLinkIn(process.argv);
if (startLink) summons.openLink(startLink);
app.on('open-url', (event, url) => {
  event.preventDefault();
  summons.openLink(url);
});

if (!app.requestSingleInstanceLock()) {
  // A second start (npm start, a memdir:// link): the running instance gets our argv and comes forward.
  process.stdout.write('Memdir is already running: its window was brought forward.\n');
  app.quit();
} else {
  app.on('second-instance', (_event, argv) => summons.secondStart(deepLinkIn(argv)));
  void main();
}

async function main(): Promise<void> {
  const { values } = parseArgs({ args: process.argv.slice(app.isPackaged ? 1 : 2), options: { home: { type: 'string' } }, strict: false });
  if (app.isPackaged) app.setAsDefaultProtocolClient(DEEP_LINK_SCHEME);
  await app.whenReady();
  const ctx = await AppContext.create({ ...(typeof values.home === 'string' ? { homeFlag: values.home } : {}), watch: true, desktop });
  desktop.applyTheme((await loadAppSettings(ctx.dataDir)).settings.theme);
  const dispatcher = createAppDispatcher(ctx);

  protocol.handle(APP_SCHEME, (request) => {
    const url = new URL(request.url);
    const rel = decodeURIComponent(url.pathname === '/' ? '/index.html' : url.pathname);
    const file = path.resolve(RENDERER_DIR, `.${rel}`);
    if (!file.startsWith(RENDERER_DIR + path.sep) || !fs.existsSync(file)) return new Response('Not found', { status: 404 });
    return net.fetch(pathToFileURL(file).toString()).then((res) => {
      if (!file.endsWith('.html')) return res;
      const headers = new Headers(res.headers);
      headers.set('Content-Security-Policy', CONTENT_SECURITY_POLICY);
      return new Response(res.body, { status: res.status, headers });
    });
  });

  const state = loadWindowState(ctx.dataDir);
  const win = new BrowserWindow({
    ...state.bounds,
    minWidth: 900,
    minHeight: 600,
    title: 'Memdir',
    show: false,
    webPreferences: {
      preload: PRELOAD,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      experimentalFeatures: false,
      navigateOnDragDrop: false,
      spellcheck: false,
      disableBlinkFeatures: 'Auxclick',
    },
  });
  if (state.maximized) win.maximize();
  // Asked for before its first paint, it shows then (in front): shown now, it would be blank.
  let painted = false;
  win.once('ready-to-show', () => {
    painted = true;
    win.show();
  });
  const bringForward = () => {
    if (!painted || win.isDestroyed()) return;
    if (win.isMinimized()) win.restore();
    win.show();
    win.focus();
  };

  // Closing the window keeps Memdir in the tray while background work is on (extraction,
  // dreams, team sync run only while it runs — Settings says so); with none, it quits.
  let quitting = false;
  app.on('before-quit', () => {
    quitting = true;
  });
  win.on('close', (event) => {
    saveWindowState(ctx.dataDir, win.getNormalBounds(), win.isMaximized());
    if (quitting) return;
    event.preventDefault();
    void backgroundWork(ctx)
      .catch(() => [])
      .then((work) => (work.length > 0 ? win.hide() : app.quit()));
  });

  // The renderer's event stream: places to go wait until it listens.
  let rendererListening = false;
  let pendingTarget: DeepLinkTarget | null = null;
  const navigate = (target: DeepLinkTarget) => {
    bringForward();
    if (rendererListening) ctx.events.publish({ type: 'navigate', ...target });
    else pendingTarget = target;
  };
  summons.attach({ bringForward, openLink: (url) => void deepLinkTarget(url, (dir) => ctx.project(dir)).then(navigate) });

  // Notifications only for what needs the user (secret alerts, sync conflicts); a click opens
  // the place to act. Kept referenced until closed, or a click could arrive at a collected one.
  const shown = new Set<Notification>();
  ctx.events.subscribe((event) => {
    const note = notificationFor(event);
    if (!note || !Notification.isSupported()) return;
    const notification = new Notification({ title: note.title, body: note.body });
    shown.add(notification);
    notification.on('click', () => navigate({ hash: note.hash, message: null }));
    notification.on('close', () => shown.delete(notification));
    notification.show();
  });

  // Quitting waits for the window's calls in flight (a save finishes; one asked later is refused,
  // never begun), then for the app's own close: Electron would end the process right after
  // will-quit, cutting both short. Past the cap (quit.ts) it quits anyway, saying what it cut —
  // on the terminal it was started from and in a notification. The window goes away when the
  // wait begins: it could only look frozen for those seconds (a call asked now is refused anyway).
  const gate = new CallGate();
  let closed = false;
  let closing: Promise<void> | null = null;
  app.on('before-quit', (event) => {
    if (closed) return;
    event.preventDefault();
    if (!closing && !win.isDestroyed()) win.hide();
    closing ??= closeWithin(gate, () => ctx.close()).then((unfinished) => {
      closed = true;
      const cut = quitCutSentence(unfinished);
      if (!cut) return app.quit();
      process.stderr.write(`memdir: ${cut}\n`);
      if (Notification.isSupported()) new Notification({ title: 'Memdir quit before it was done', body: cut }).show();
      // What is still running would answer into a closing app: end here, a moment after the
      // notification was handed to the desktop (ended at once, the process could take it along).
      setTimeout(() => app.exit(0), 1_000);
    });
  });

  // Only our own main frame may call main.
  const fromUs = (event: IpcMainInvokeEvent): boolean =>
    event.sender === win.webContents && event.senderFrame !== null && event.senderFrame === win.webContents.mainFrame && isAppUrl(event.senderFrame.url);
  ipcMain.handle(CALL_CHANNEL, async (event, name: unknown, input: unknown) => {
    if (!fromUs(event)) return { ok: false, error: { code: 'unauthorized', message: 'Calls are only accepted from the Memdir window.' } };
    return gate.run(() => dispatcher.call(name, input), callWords(name, input));
  });
  let unsubscribe: (() => void) | null = null;
  ipcMain.handle(SUBSCRIBE_CHANNEL, (event, name: unknown, input: unknown) => {
    if (!fromUs(event)) return { ok: false };
    unsubscribe?.();
    const sub = dispatcher.subscribe(name, input, (e) => {
      if (!win.isDestroyed()) win.webContents.send(EVENT_CHANNEL, e);
    });
    unsubscribe = sub.ok ? sub.unsubscribe : null;
    if (sub.ok && !rendererListening) {
      rendererListening = true;
      if (pendingTarget) ctx.events.publish({ type: 'navigate', ...pendingTarget });
      pendingTarget = null;
    }
    return { ok: sub.ok };
  });

  // Nothing but the app's own pages loads in its window, however a page tries to leave
  // (navigation-policy.ts); a web link a person followed opens in their browser instead.
  const contents = win.webContents;
  const leaving = (kind: NavigationKind, url: string): boolean => {
    const verdict = navigationVerdict(kind, url);
    if (verdict.openInBrowser) void shell.openExternal(verdict.openInBrowser);
    return verdict.allow;
  };
  contents.on('will-navigate', (event) => {
    if (!leaving('navigate', event.url)) event.preventDefault();
  });
  contents.on('will-frame-navigate', (event) => {
    if (!leaving('frame-navigate', event.url)) event.preventDefault();
  });
  contents.on('will-redirect', (event) => {
    if (!leaving('redirect', event.url)) event.preventDefault();
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    leaving('window-open', url);
    return { action: 'deny' };
  });
  contents.session.setPermissionRequestHandler((_wc, _permission, callback) => callback(false));
  // Checks too (navigator.permissions, device APIs): Electron answers them "granted" by default.
  contents.session.setPermissionCheckHandler(() => false);

  const dreamNow = async () => {
    const route = new URL(contents.getURL()).hash.match(/^#\/p\/([^/]+)/);
    if (!route) {
      new Notification({ title: 'Memdir', body: 'Open a project first, then choose Dream now.' }).show();
      return;
    }
    const result = await dispatcher.call('dream.now', { dir: decodeURIComponent(route[1]!) });
    const body = result.ok ? ((result.result as { reason: string | null }).reason ?? 'Dream started.') : result.error.message;
    new Notification({ title: 'Dream now', body }).show();
  };
  Menu.setApplicationMenu(
    Menu.buildFromTemplate([
      ...(process.platform === 'darwin' ? [{ role: 'appMenu' as const }] : []),
      { role: 'fileMenu' },
      { role: 'editMenu' },
      { label: 'Memory', submenu: [{ label: 'Dream now', accelerator: 'CmdOrCtrl+Shift+D', click: () => void dreamNow() }] },
      { role: 'viewMenu' },
      { role: 'windowMenu' },
    ]),
  );
  const icon = path.join(APP_ROOT, 'assets', 'tray.png');
  const tray = new Tray(fs.existsSync(icon) ? nativeImage.createFromPath(icon) : nativeImage.createEmpty());
  tray.setToolTip('Memdir');
  tray.setContextMenu(
    Menu.buildFromTemplate([
      { label: 'Show Memdir', click: bringForward },
      { label: 'Dream now', click: () => void dreamNow() },
      { type: 'separator' },
      { label: 'Quit', role: 'quit' },
    ]),
  );

  app.on('activate', bringForward);
  app.on('window-all-closed', () => app.quit());
  await win.loadURL(`${APP_ORIGIN}/index.html`);
}
