/**
 * R-SYNC: personal sync on a machine where Claude Code syncs the memory folder itself as the
 * user's own store (its `.memory-sync` is in the memory dir): the folder is left alone, and a
 * sync with nothing changed costs one 304 and says the refusal once, not on every sync.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { describeStores } from '../../server/test-support/stores.js';
import { makeMachine, startPersonalServer } from './test-support/personal-fixture.js';

describeStores('personal sync beside a Claude Code user store', (h) => {
  it('pulls the space once, then each sync with nothing changed is a 304 with nothing refused again', async () => {
    const tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-userstore-'));
    const store = await h.open(await h.freshDb());
    const server = await startPersonalServer(store, ['laptop', 'desktop']);
    try {
      const laptop = await makeMachine(tmp, 'laptop', server, 'a/billing', 'git@github.com:Acme/Billing.git');
      const desktop = await makeMachine(tmp, 'desktop', server, 'b/billing', 'https://github.com/acme/billing');
      await laptop.connect('correct horse battery staple');
      for (let i = 0; i < 5; i++) await laptop.write(`m${i}.md`, `---\nname: m${i}\ndescription: d\ntype: project\n---\nbody ${i}\n`);
      expect((await (await laptop.enable()).sync()).push.uploaded).toHaveLength(5);
      await desktop.connect('correct horse battery staple');
      await desktop.write('.memory-sync', '{"v":1,"partition":"/u"}');
      await desktop.write('mine.md', 'mine\n');
      const sync = await desktop.enable();
      const first = await sync.sync();
      expect(first.pull.refused).toHaveLength(5);
      expect(first.waiting.map((w) => [w.key, w.reason])).toEqual([['.', 'claude-code-store']]);
      for (let i = 0; i < 3; i++) {
        const again = await sync.sync();
        expect(again.error).toBeNull();
        expect([again.pull.status, again.pull.full, again.pull.refused.length]).toEqual([304, false, 0]);
      }
      const alerts = (await desktop.alerts.list()).alerts.filter((a) => a.title.endsWith('entries were not written'));
      expect(alerts.map((a) => a.count)).toEqual([1]);
      expect(await desktop.read('m0.md')).toBeNull();
      expect(await desktop.read('mine.md')).toBe('mine\n');
    } finally {
      await server.server.close();
    }
  }, 60_000);
});
