/** Every `memdir` sub-command, in the order `memdir --help` lists them. */
import { type CommandSpec, familyCommand } from './command.js';
import { agentsCommand } from './commands/agents.js';
import { dreamCommand, dreamConfirmCommand, dreamListCommand, dreamRevertCommand, dreamStatusCommand } from './commands/dream.js';
import { extractCommand } from './commands/extract.js';
import { historyCommand, restoreCommand, undoCommand } from './commands/history.js';
import { hookCommand } from './commands/hook.js';
import { hooksConnectCommand, hooksDisconnectCommand, hooksStatusCommand } from './commands/hooks.js';
import { lintCommand } from './commands/lint.js';
import {
  personalCommand,
  personalConflictsCommand,
  personalConnectCommand,
  personalDisconnectCommand,
  personalResolveCommand,
  personalStatusCommand,
  personalSyncCommand,
} from './commands/personal.js';
import { recallCommand } from './commands/recall.js';
import { RELINK_COMMANDS } from './commands/relink.js';
import { scanCommand } from './commands/scan.js';
import { sessionStatusCommand } from './commands/session.js';
import { secretsScanCommand } from './commands/secrets.js';
import {
  serverAdminCommand,
  serverBackupCommand,
  serverCommand,
  serverCreatePersonalCommand,
  serverCreateTeamCommand,
  serverIssueTokenCommand,
  serverListCommand,
  serverResetPersonalCommand,
  serverRevokeTokenCommand,
} from './commands/server.js';
import { showCommand } from './commands/show.js';
import {
  teamCommand,
  teamConflictsCommand,
  teamConnectCommand,
  teamRetireCommand,
  teamDisconnectCommand,
  teamResolveCommand,
  teamStatusCommand,
  teamSyncCommand,
} from './commands/team.js';
import { whereCommand } from './commands/where.js';

export const COMMANDS: CommandSpec[] = [
  whereCommand,
  scanCommand,
  lintCommand,
  showCommand,
  agentsCommand,
  historyCommand,
  restoreCommand,
  undoCommand,
  ...RELINK_COMMANDS,
  recallCommand,
  extractCommand,
  familyCommand('session', "Session Memory: Memdir's note of each live Claude Code session (Claude Code 2.1.332 keeps none) (status).", [sessionStatusCommand]),
  sessionStatusCommand,
  hookCommand,
  familyCommand('hooks', "Connect Claude Code's hooks to Memdir, take them out again, or see their state.", [
    hooksConnectCommand,
    hooksDisconnectCommand,
    hooksStatusCommand,
  ]),
  hooksConnectCommand,
  hooksDisconnectCommand,
  hooksStatusCommand,
  dreamCommand,
  dreamStatusCommand,
  dreamListCommand,
  dreamRevertCommand,
  dreamConfirmCommand,
  familyCommand('secrets', 'Find secrets in files with the scanner every save goes through (scan).', [secretsScanCommand]),
  secretsScanCommand,
  serverCommand,
  serverAdminCommand,
  serverBackupCommand,
  serverCreateTeamCommand,
  serverCreatePersonalCommand,
  serverResetPersonalCommand,
  serverIssueTokenCommand,
  serverRevokeTokenCommand,
  serverListCommand,
  teamCommand,
  teamConnectCommand,
  teamStatusCommand,
  teamSyncCommand,
  teamConflictsCommand,
  teamResolveCommand,
  teamRetireCommand,
  teamDisconnectCommand,
  personalCommand,
  personalConnectCommand,
  personalStatusCommand,
  personalSyncCommand,
  personalConflictsCommand,
  personalResolveCommand,
  personalDisconnectCommand,
];
