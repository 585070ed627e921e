/**
 * `npm start` as its own process, for tests that signal it (Ctrl-C): the launcher's
 * `runLauncher` on a copied `electron` package (argv: its folder and version), writing to
 * stdout, ending as the launcher does when stopped. A started host would be a failure here.
 */
import { runLauncher } from '../launch.js';

const [dir, version] = process.argv.slice(2);
const outcome = await runLauncher({
  args: [],
  env: process.env,
  write: (text) => process.stdout.write(text),
  tty: false,
  electronPackage: { dir: dir!, version: version! },
  startHost: () => Promise.reject(new Error('the driver starts no host')),
});
process.stdout.write(`outcome: ${outcome.kind}\n`);
if (outcome.kind === 'stopped') process.exit(outcome.signal === 'SIGINT' ? 130 : 143);
if (outcome.kind === 'electron') outcome.child.on('close', () => process.exit(0));
