/** Sub-agent memory (R-AGENT): each agent type's user, project and local memory, kept apart. */
import { useEffect } from 'react';
import { plural } from '../../shared/size-text.js';
import { Badge } from '../components/Badge.js';
import { type CardColumn, CardRow, CardTable } from '../components/CardTable.js';
import { ago, toMs, when } from '../components/format.js';
import { LoadMeter } from '../components/LoadMeter.js';
import { useAgents } from '../stores/agents.js';

const SCOPE_HELP = {
  user: 'All projects (agent-memory in the Claude home, or in CLAUDE_CODE_REMOTE_MEMORY_DIR when set)',
  project: 'The directory the sessions start in, committed and shared through git',
  local: 'The directory the sessions start in, never committed',
} as const;
const SCOPES = ['user', 'project', 'local'] as const;
const AGENT_COLUMNS: CardColumn[] = [{ label: 'Agent', bare: true }, ...SCOPES.map((s) => ({ label: s, th: { title: SCOPE_HELP[s] } }))];

export function AgentsView({ dir }: { dir?: string }) {
  const result = useAgents((s) => (s.dir === dir ? s.result : null));
  const error = useAgents((s) => (s.dir === dir ? s.error : null));
  useEffect(() => {
    void useAgents.getState().load(dir);
  }, [dir]);
  if (error) return <div className="banner error">{error}</div>;
  if (!result) return <p className="muted">Looking for agents…</p>;
  return (
    <section>
      <header className="view-head">
        <h1>Agent memory</h1>
        <span className="muted">
          {result.repoRoot
            ? `for ${result.repoRoot}${result.launchDir && result.launchDir !== result.repoRoot ? ` (sessions start in ${result.launchDir})` : ''}`
            : 'user level (open a project to see its agents)'}
        </span>
        {result.launchDirs.length > 1 && (
          <label>
            Sessions started in{' '}
            <select value={result.launchDir ?? ''} onChange={(e) => void useAgents.getState().load(dir, e.target.value)}>
              {result.launchDirs.map((d) => (
                <option key={d} value={d}>
                  {d}
                </option>
              ))}
            </select>
          </label>
        )}
      </header>
      {result.warnings.map((w, i) => (
        <div key={i} className="banner warning">
          {w.message}
        </div>
      ))}
      {result.agents.length === 0 ? (
        <p className="muted">No sub-agent has memory here. Agents get memory with a `memory:` field in .claude/agents/&lt;name&gt;.md.</p>
      ) : (
        <CardTable label="Agent memory" columns={AGENT_COLUMNS}>
          {result.agents.map((a) => (
            <CardRow key={a.agentType}>
              <td>
                <strong>{a.agentType}</strong>
                <div className="muted small">{a.definedIn.length ? a.definedIn.join(', ') : 'no definition file found'}</div>
              </td>
              {SCOPES.map((s) => {
                const scope = a.scopes.find((x) => x.scope === s);
                // Claude Code does not read this MEMORY.md (a link, a special file, a folder leading out): said, not metered.
                const notRead = scope?.enabled
                  ? result.warnings.find(
                      (w) =>
                        w.code === 'agent-index-not-read' && w.file !== undefined && [scope.memoryDir, 'MEMORY.md'].includes(inFolder(w.file, scope.memoryDir)),
                    )
                  : undefined;
                const notReadBadge = notRead && (
                  <Badge tone="warning" why={notRead.message}>
                    MEMORY.md not read by Claude Code
                  </Badge>
                );
                return (
                  <td key={s} title={scope?.memoryDir}>
                    {!scope ? (
                      '—'
                    ) : scope.scan ? (
                      <>
                        {plural(scope.scan.memories.length, 'memory', 'memories')} {notReadBadge || <LoadMeter index={scope.scan.index} compact />}
                        {scope.scan.problems.filter((p) => p.severity !== 'hint').length > 0 && (
                          <span className="badge warning">{scope.scan.problems.length} problems</span>
                        )}
                        {scope.lastInjected && (
                          // What a sub-agent of this project was last given, from its own transcript.
                          <div className="muted small" title={scope.lastInjected.text || 'an empty index'}>
                            last given to a sub-agent{' '}
                            {scope.lastInjected.at ? <span title={when(scope.lastInjected.at)}>{ago(toMs(scope.lastInjected.at))}</span> : ''}
                          </div>
                        )}
                      </>
                    ) : (
                      (notReadBadge ?? <span className="muted">{scope.enabled ? 'enabled, empty' : '—'}</span>)
                    )}
                  </td>
                );
              })}
            </CardRow>
          ))}
        </CardTable>
      )}
    </section>
  );
}

/** `file` itself when it is `folder`, its name when it lies directly in it, else ''. */
function inFolder(file: string, folder: string): string {
  if (file === folder) return folder;
  const rest = file.startsWith(folder) ? file.slice(folder.length) : '';
  return /^[\\/][^\\/]+$/.test(rest) ? rest.slice(1) : '';
}
