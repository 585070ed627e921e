/**
 * Where the desktop window may go (navigation-policy.ts, wired in main.ts to will-navigate,
 * will-frame-navigate, will-redirect and the window-open handler, and to the IPC sender check).
 */
import { describe, expect, it } from 'vitest';
import { APP_ORIGIN, browserLink, isAppUrl, navigationVerdict } from './navigation-policy.js';

describe('the app’s own pages', () => {
  it('are recognised under the app scheme, though Node’s URL gives them the origin "null"', () => {
    // The rule main.ts had (`new URL(url).origin === 'app://memdir'`) held for no page at all:
    // every call from the window was refused as "not from the Memdir window".
    expect(new URL(`${APP_ORIGIN}/index.html`).origin).toBe('null');
    expect(isAppUrl(`${APP_ORIGIN}/index.html`)).toBe(true);
    expect(isAppUrl(`${APP_ORIGIN}/index.html#/p/-work-x/memories`)).toBe(true);
    expect(isAppUrl(`${APP_ORIGIN}/`)).toBe(true);
  });

  it('are not another host under the scheme, a look-alike, or not a URL at all', () => {
    for (const url of [
      'app://memdir.evil/index.html',
      'app://evil/index.html',
      'app://user@memdir/index.html',
      'file:///index.html',
      'https://memdir/',
      'memdir',
      '',
    ])
      expect(isAppUrl(url), url).toBe(false);
  });
});

describe('a navigation away from the app', () => {
  it('is allowed only to the app’s own pages, whichever way it comes', () => {
    for (const kind of ['navigate', 'frame-navigate', 'redirect'] as const) {
      expect(navigationVerdict(kind, `${APP_ORIGIN}/index.html`), kind).toEqual({ allow: true, openInBrowser: null });
      expect(navigationVerdict(kind, 'https://example.com/').allow, kind).toBe(false);
      expect(navigationVerdict(kind, 'file:///etc/passwd').allow, kind).toBe(false);
      expect(navigationVerdict(kind, 'javascript:alert(1)').allow, kind).toBe(false);
    }
  });

  it('opens a web link a person followed in their browser: from the main frame or a new window, http or https', () => {
    expect(navigationVerdict('navigate', 'https://docs.anthropic.com/x')).toEqual({ allow: false, openInBrowser: 'https://docs.anthropic.com/x' });
    expect(navigationVerdict('navigate', 'http://example.com')).toEqual({ allow: false, openInBrowser: 'http://example.com/' });
    expect(navigationVerdict('window-open', 'https://example.com/a')).toEqual({ allow: false, openInBrowser: 'https://example.com/a' });
  });

  it('never opens the browser for a redirect or a frame, nor for anything but the web', () => {
    expect(navigationVerdict('redirect', 'https://example.com/')).toEqual({ allow: false, openInBrowser: null });
    expect(navigationVerdict('frame-navigate', 'https://example.com/')).toEqual({ allow: false, openInBrowser: null });
    for (const url of ['file:///etc/passwd', 'javascript:alert(1)', 'smb://host/share', 'memdir://open', 'data:text/html,x', 'not a url'])
      expect(navigationVerdict('navigate', url).openInBrowser, url).toBeNull();
  });

  it('never opens a new window, even on the app’s own pages', () => {
    expect(navigationVerdict('window-open', `${APP_ORIGIN}/index.html`)).toEqual({ allow: false, openInBrowser: null });
  });

  it('the browser gets the address as parsed, not the raw text', () => {
    expect(browserLink('HTTPS://Example.com/a b')).toBe('https://example.com/a%20b');
  });
});
