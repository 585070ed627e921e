/**
 * A second start, or a link, during the first start's opening (summons.ts; main.ts listens for
 * both from its first line and attaches the window once it exists).
 */
import { expect, it } from 'vitest';
import { Summons } from './summons.js';

function fakeWindow(): { calls: string[]; bringForward: () => void; openLink: (url: string) => void } {
  const calls: string[] = [];
  return { calls, bringForward: () => calls.push('forward'), openLink: (url) => calls.push(`open ${url}`) };
}

it('a second start before the window exists brings it forward once it is there', () => {
  const summons = new Summons();
  summons.secondStart(null);
  summons.secondStart(null);
  const window = fakeWindow();
  summons.attach(window);
  expect(window.calls).toEqual(['forward']);
});

it('a link that came before the window is opened once it is there; the last one asked wins', () => {
  const summons = new Summons();
  summons.openLink('memdir://open?project=a');
  summons.secondStart('memdir://open?project=b');
  summons.secondStart(null);
  const window = fakeWindow();
  summons.attach(window);
  expect(window.calls).toEqual(['open memdir://open?project=b']);
});

it('with the window there, each is done at once', () => {
  const summons = new Summons();
  const window = fakeWindow();
  summons.attach(window);
  expect(window.calls).toEqual([]);
  summons.secondStart(null);
  summons.secondStart('memdir://open?project=c');
  summons.openLink('memdir://open?project=d');
  expect(window.calls).toEqual(['forward', 'open memdir://open?project=c', 'open memdir://open?project=d']);
});
