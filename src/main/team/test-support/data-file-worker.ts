/**
 * Child process for the cross-process tests of Memdir's team data files (as the CLI would run
 * beside the app): prints "ready", waits for a line on stdin (so every worker starts together),
 * then `count` times either records a connection of its own (`connections`) or raises an alert
 * of its own (`alerts`): each a read-modify-write of the shared `connections.json` / `alerts.json`.
 */
import { once } from 'node:events';
import path from 'node:path';
import { AlertCenter } from '../alert-center.js';
import { ConnectionStore } from '../connections.js';

const [kind = '', dataDir = '', name = '', count = '0'] = process.argv.slice(2);

const connections = new ConnectionStore(dataDir);
const alerts = new AlertCenter(dataDir);
process.stdout.write('ready\n');
await once(process.stdin, 'data');
process.stdin.pause();
for (let i = 0; i < Number(count); i++) {
  if (kind === 'alerts') {
    await alerts.raise({ topic: `test:${name}-${i}`, kind: 'sync', title: `Alert ${name}-${i}`, message: 'raised by a test worker' });
    continue;
  }
  await connections.save({
    memoryDir: path.join(dataDir, '..', 'homes', `${name}-${i}`, 'memory'),
    dir: `${name}-${i}`,
    server: 'http://127.0.0.1:1',
    team: 'platform',
    member: name,
    tokenId: '0123456789abcdef',
    connectedAt: new Date().toISOString(),
    pullIntervalSec: 60,
  });
}
