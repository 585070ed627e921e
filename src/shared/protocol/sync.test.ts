import { describe, expect, it } from 'vitest';
import { formatEtag, parseEtag, parseEtagList } from './sync.js';

describe('ETags', () => {
  it('round-trip and are strong, quoted, epoch-version', () => {
    expect(formatEtag({ epoch: '0a1b2c3d', version: 42 })).toBe('"0a1b2c3d-42"');
    expect(parseEtag('"0a1b2c3d-42"')).toEqual({ epoch: '0a1b2c3d', version: 42 });
    expect(parseEtag('0a1b2c3d-42')).toEqual({ epoch: '0a1b2c3d', version: 42 });
    expect(parseEtag('"xyz"')).toBeNull();
  });

  it('parses header lists with weak tags and *', () => {
    expect(parseEtagList('W/"a", "b" ,*')).toEqual([
      { tag: '"a"', weak: true },
      { tag: '"b"', weak: false },
      { tag: '*', weak: false },
    ]);
  });
});
