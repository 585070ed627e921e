/** Every `memdir` sub-command, in the order `memdir --help` lists them. */
import type { CommandSpec } from './command.js';
import { historyCommand, restoreCommand } from './commands/history.js';
import { lintCommand } from './commands/lint.js';
import { recallCommand } from './commands/recall.js';
import { scanCommand } from './commands/scan.js';
import { secretsScanCommand } from './commands/secrets.js';
import { serverAdminCommand, serverCommand, serverCreateTeamCommand, serverIssueTokenCommand, serverListCommand, serverRevokeTokenCommand } from './commands/server.js';
import { showCommand } from './commands/show.js';
import { whereCommand } from './commands/where.js';

export const COMMANDS: CommandSpec[] = [whereCommand, scanCommand, lintCommand, showCommand, historyCommand, restoreCommand, recallCommand, secretsScanCommand, serverCommand, serverAdminCommand, serverCreateTeamCommand, serverIssueTokenCommand, serverRevokeTokenCommand, serverListCommand];
