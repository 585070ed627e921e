/**
 * The desktop integration: background work, deep links, the `memdir` command install, autostart, notifications.
 * The front door (STYLE.md "The house"): code outside this folder imports only from here.
 */
export { backgroundWork } from './background-work.js';
export { DEEP_LINK_SCHEME, deepLinkIn, deepLinkTarget, type DeepLinkTarget } from './deep-link.js';
export { type DesktopShell } from './desktop-shell.js';
export { commandInstallStatus, installMemdirCommand } from './install-command.js';
export { autostartFile, autostartProgram, readAutostart, writeAutostart } from './linux-autostart.js';
export { notificationFor } from './notifications.js';
