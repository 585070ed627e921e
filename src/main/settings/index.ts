/**
 * Memdir's own settings and credentials, and edits to Claude Code's settings.json (R-SETTINGS).
 * The front door (STYLE.md "The house"): code outside this folder imports only from here.
 */
export { type AppSettings, loadAppSettings, type ModelTask, updateAppSettings } from './app-settings.js';
export { readAutoDreamSetting, writeAutoDreamSetting } from './auto-dream-setting.js';
export { applySettingsEdit, planSettingsEdit, readSettingsFile, type SettingsEdit, type SettingsEditResult, userSettingsFile } from './claude-settings-file.js';
export { CREDENTIAL_NAMES, type CredentialCipher, CREDENTIALS_FILE, type CredentialStore, FileCredentialStore } from './credentials.js';
export { JsoncDocument, JsoncSyntaxError } from './jsonc-edit.js';
