/** Scans one memory dir and prints the result as JSON: run as another user to test permissions. */
import { scanMemoryDir } from '../scan-dir.js';

process.stdout.write(JSON.stringify(scanMemoryDir(process.argv[2]!, { scope: 'private' })));
