/**
 * `memdir agents`: each sub-agent with its own memory (R-AGENT), from the service the app's
 * Agents view calls (`agents.list`, src/main/agents/list-agents.ts) — same answer, same warnings,
 * same refusals; `--json` prints that answer as it is.
 */
import path from 'node:path';
import { type CliIo, type CommandSpec, UsageError, homeOption, jsonOption, printJson } from '../command.js';
import { checkContractLimits } from '../contract-limits.js';
import { locateProjectOption } from '../project-option.js';
import { homeFrom } from './scan.js';
import { type AgentsListing, listProjectAgents, loadedAgentIndexText } from '../../main/agents/index.js';
import { scanProject } from '../../main/memdir/index.js';
import { CONTRACT } from '../../shared/contract/index.js';
import { cutFactsText } from '../../shared/index-cut.js';
import { INDEX_FILE } from '../../shared/limits.js';
import { plural } from '../../shared/size-text.js';
import { visibleText } from '../../shared/visible-text.js';

/** How many lines of what a sub-agent loads the text output shows. */
const HEAD_LINES = 5;
/** How many of a memory folder's problems the text output shows. */
const MAX_PROBLEMS = 3;

const SCOPE_WORDS = {
  user: 'user memory (every project)',
  project: 'project memory (committed with the repository)',
  local: 'local memory (never committed)',
} as const;

export const agentsCommand: CommandSpec = {
  name: ['agents'],
  summary: 'Show each sub-agent with memory: its scope, folder, files, what it loads, and warnings (the Agents view).',
  args: [],
  options: {
    project: {
      type: 'string',
      valueName: 'PATH|DIR',
      description: 'project directory, or its directory name under projects/ (default: user-level agents only)',
    },
    'launch-dir': {
      type: 'string',
      valueName: 'DIR',
      description: "with --project: one of the directories the project's sessions start in (default: its main one)",
    },
    home: homeOption,
    json: jsonOption,
  },
  details: `Sub-agents are .claude/agents/*.md files (in the Claude home, and in the directory a session starts in and
its parents up to the git root) whose frontmatter says memory: user, project or local. Claude Code keeps
project and local agent memory in the directory the session starts in, so a project launched in several
directories has agent memory in each: --launch-dir picks which one is shown; warnings name the others.
Without --project only user-level agents and their user memory are shown.
Text: one block per agent: its scope, definition files, memory folder, its memories and MEMORY.md (how
much of it a sub-agent loads: 200 lines / 25,000 characters, frontmatter and comments not stripped), the
first ${HEAD_LINES} lines it loads, what a sub-agent of the project's sessions was last given (of every sub-agent
transcript, projects/<folder>/<session>/subagents/agent-*.jsonl, the one whose prompt snapshot, in its first
50 lines, was taken last), and folders of the other scopes it does not load.
JSON (the app's agents.list answer): {"repoRoot", "launchDir", "launchDirs": [dir…],
  "agents": [{"agentType", "definedIn": [file…], "scopes": [{"scope": "user"|"project"|"local", "memoryDir",
    "exists", "enabled", "scan": {"memoryDir", "exists", "index": {…}, "memories": [{…}], "problems": [{…}], "lastChangeMs"} or null,
    "lastInjected": {"text", "at", "sessionId"} or null}]}],
  "warnings": [{"code", "file"?, "message"}]}
With auto memory off (warning auto-memory-off) Claude Code gives a sub-agent no memory, not even a
MEMORY.md already there, and makes no folder: each block says its MEMORY.md is not loaded and that it
loads nothing; --json keeps each folder's scan as it is.
"index", "memories" and "problems" are those of \`memdir scan --json\`; warning codes: auto-memory-off,
local-not-ignored, bad-agent-file, bad-memory-field, other-launch-dir, shared-memory-folder, agent-index-not-read
(a project or local MEMORY.md that is a link or not a plain file, or a folder leading out of the launch
directory: Claude Code does not read it and tells the sub-agent to write nothing there),
secret-in-committed-memory (a file of agent memory git commits — project memory, local memory not
git-ignored — holds a secret, named masked as \`memdir secrets scan\` names it: remove it before you commit;
once committed, git's history keeps it, so revoke it), secret-in-git-history (a secret a commit of
that folder added is no longer in the file — edited out, renamed or deleted — but git's history
keeps it: named masked with its commit; revoke it; Memdir reads the history, never rewrites it).
Exit codes: 0 shown, 2 usage or I/O error (unknown project, a --launch-dir no session of it starts in).`,
  async run({ values, io }) {
    const home = homeFrom(values, io);
    const asked = typeof values['launch-dir'] === 'string' ? values['launch-dir'] : undefined;
    if (asked !== undefined && values.project === undefined)
      throw new UsageError("--launch-dir goes with --project: it is one of the directories that project's sessions start in");
    if (asked?.trim() === '') throw new UsageError("--launch-dir is empty: give one of the directories the project's sessions start in");
    checkContractLimits('agents.list', { launchDir: asked });
    const loc = values.project === undefined ? null : await locateProjectOption(values, io);
    const project = loc ? await scanProject(home, loc.dir, { env: io.env }) : null;
    const launchDir = asked === undefined ? undefined : path.resolve(io.cwd, asked);
    const listing = await listProjectAgents(home, project, { launchDir, env: io.env });
    // Through the contract's own schema: the very shape (and field order) the app's agents.list answers.
    if (values.json) printJson(io, CONTRACT['agents.list'].output.parse(listing));
    else printListing(io, listing, loc && typeof values.project === 'string' ? { option: values.project, key: loc.key } : null);
    return 0;
  },
};

/** The text form: a heading, the warnings, one block per agent. */
function printListing(io: CliIo, listing: AgentsListing, project: { option: string; key: string } | null): void {
  if (!listing.repoRoot && !listing.launchDir)
    io.out(
      project
        ? `No Claude Code session has started in ${project.key} yet: its sub-agents get project and local memory once one does. User-level sub-agents:\n`
        : 'User-level sub-agents (give --project to see a project’s too):\n',
    );
  else {
    const where = listing.launchDir && listing.launchDir !== listing.repoRoot ? `, sessions started in ${listing.launchDir}` : '';
    io.out(`Sub-agents of ${listing.repoRoot ?? listing.launchDir}${where}\n`);
    const others = listing.launchDirs.filter((d) => d !== listing.launchDir);
    if (others.length > 0) io.out(`Its sessions also start in ${others.join(', ')} (--launch-dir DIR shows that directory's agent memory).\n`);
  }
  for (const w of listing.warnings) {
    io.out(`\nwarning: ${w.message}\n`);
    if (w.file) io.out(`         (${w.file})\n`);
    if (w.code === 'other-launch-dir' && w.file && project)
      io.out(`         memdir agents --project ${project.option} --launch-dir ${path.dirname(w.file)} shows it.\n`);
  }
  if (listing.agents.length === 0) {
    io.out('\nNo sub-agent has memory here. A sub-agent gets memory with a `memory:` field (user, project or local) in .claude/agents/<name>.md.\n');
    return;
  }
  // The listing's own word that auto memory is off where the sessions start (its warning): sub-agents then get no memory.
  const autoMemoryEnabled = !listing.warnings.some((w) => w.code === 'auto-memory-off');
  for (const agent of listing.agents) printAgent(io, agent, listing.launchDir, { autoMemoryEnabled });
}

function printAgent(io: CliIo, agent: AgentsListing['agents'][number], launchDir: string | null, settings: { autoMemoryEnabled: boolean }): void {
  const used = agent.scopes.find((s) => s.enabled);
  // A line break in a name would split the block: shown as `\u000a`, as other control characters are.
  io.out(`\n${visibleText(agent.agentType, { lines: false })}  ${used ? SCOPE_WORDS[used.scope] : 'no memory'}\n`);
  io.out(`  defined in  ${agent.definedIn.length ? agent.definedIn.join(', ') : 'no definition file found (only its memory folders)'}\n`);
  if (!used) {
    if (agent.definedIn.length) io.out('  memory      none: its definition has no `memory:` field (user, project or local)\n');
  } else {
    io.out(`  folder      ${used.memoryDir}\n`);
    const scan = used.scan;
    const off = !settings.autoMemoryEnabled;
    const { text, notRead } = loadedAgentIndexText(used.memoryDir, used.scope, launchDir, settings);
    if (!scan && off) io.out('  files       none: with auto memory off Claude Code does not make this folder\n');
    else if (!scan && notRead) io.out(`  files       none: Claude Code neither makes nor reads this folder: ${notRead}\n`);
    else if (!scan) io.out('  files       none yet: Claude Code makes the folder the first time it launches the sub-agent\n');
    else {
      const index = scan.index;
      const cut = cutFactsText(index);
      const size = `${INDEX_FILE} ${plural(index.lines, 'line')}, ${plural(index.chars, 'character')}`;
      const indexText = notRead
        ? `${INDEX_FILE} not read by Claude Code: ${notRead}`
        : !index.exists
          ? `no ${INDEX_FILE}`
          : off
            ? `${size}, not loaded: auto memory is off`
            : `${size}${index.reason ? `; cut at line ${index.firstCutLine}: ${index.reason}${cut ? ` (${cut})` : ''}` : ', all loaded'}`;
      io.out(`  files       ${plural(scan.memories.length, 'memory', 'memories')}; ${indexText}\n`);
      const lines = text.split('\n');
      if (off) io.out('  loads       nothing: auto memory is off, so Claude Code gives the sub-agent no memory\n');
      else if (notRead) io.out(`  loads       nothing of ${INDEX_FILE}: the sub-agent is told it was not loaded, and to write nothing in this folder\n`);
      else if (text !== '') {
        io.out(`  loads       ${lines.slice(0, HEAD_LINES).join('\n              ')}\n`);
        if (lines.length > HEAD_LINES) io.out(`              … ${plural(lines.length - HEAD_LINES, 'more line')}\n`);
      }
      const last = used.lastInjected;
      if (last) {
        const given =
          last.text === '' ? 'an empty index' : notRead && last.text === text ? `nothing of ${INDEX_FILE}` : plural(last.text.split('\n').length, 'line');
        io.out(
          `  last given  ${given}${last.at ? ` at ${last.at}` : ''} (session ${last.sessionId}): ${off ? 'it loads nothing now: auto memory is off' : last.text === text ? 'the same as it loads now' : 'not what it loads now: MEMORY.md changed since'}\n`,
        );
      }
      const problems = scan.problems.filter((x) => x.severity !== 'hint');
      for (const p of problems.slice(0, MAX_PROBLEMS))
        io.out(`  ${p.severity.padEnd(10)}  ${p.file ? `${p.file}${p.line ? `:${p.line}` : ''}: ` : ''}${p.message}\n`);
      if (problems.length > MAX_PROBLEMS) io.out(`              … ${plural(problems.length - MAX_PROBLEMS, 'more problem')} (--json lists them all)\n`);
    }
  }
  for (const s of agent.scopes.filter((x) => !x.enabled && x.exists)) {
    io.out(`  not loaded  ${SCOPE_WORDS[s.scope]} at ${s.memoryDir}${s.scan ? ` (${plural(s.scan.memories.length, 'memory', 'memories')})` : ''}\n`);
  }
}
