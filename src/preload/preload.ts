/** The Electron preload: exposes the typed link (see main/shell/electron/preload-bridge.ts), nothing else. */
import { exposeBridge } from '../main/shell/electron/preload-bridge.js';

exposeBridge();
