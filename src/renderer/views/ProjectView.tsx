/** One project: its memories, its index, its health, its history. */
import { useEffect } from 'react';
import type { Route } from '../stores/nav.js';
import { projectName, useProjects } from '../stores/projects.js';
import { useProject } from '../stores/project.js';
import { Breakable } from '../components/Breakable.js';
import { ProjectTimeline } from '../components/ProjectTimeline.js';
import { DreamTab } from './DreamTab.js';
import { HealthTab } from './HealthTab.js';
import { HistoryTab } from './HistoryTab.js';
import { IndexTab } from './IndexTab.js';
import { MemoriesTab } from './MemoriesTab.js';
import { RecallTab } from './RecallTab.js';
import { TeamSyncTab } from './TeamSyncTab.js';
import { autoMemoryDirectoryTrustSentence } from '../../shared/settings-text.js';

export function ProjectView({ route }: { route: Extract<Route, { view: 'project' }> }) {
  const open = useProject((s) => s.open);
  const scan = useProject((s) => s.scan);
  const error = useProject((s) => s.error);
  const summary = useProjects((s) => s.projects.find((p) => p.dir === route.dir));
  useEffect(() => {
    void open(route.dir);
  }, [open, route.dir]);
  return (
    <section className="project">
      <header className="view-head">
        <h1 title={scan?.memoryDir}>
          <Breakable text={summary ? projectName(summary) : route.dir} />
        </h1>
        {scan && (
          <span className="muted small" title={['Memory directory', autoMemoryDirectoryTrustSentence(scan.settings)].filter(Boolean).join('. ')}>
            {scan.memoryDir}
            {scan.settings.autoMemoryDirectorySource !== 'default' && ` (moved by ${scan.settings.autoMemoryDirectorySource} settings)`}
          </span>
        )}
      </header>
      {error && <div className="banner error">{error}</div>}
      {scan && route.tab === 'memories' && <MemoriesTab route={route} scan={scan} />}
      {scan && route.tab === 'index' && <IndexTab dir={route.dir} scan={scan} initialScope={route.scope} />}
      {scan && route.tab === 'health' && <HealthTab scan={scan} />}
      {route.tab === 'history' && <ProjectTimeline dir={route.dir} version={scan} />}
      {route.tab === 'history' && <HistoryTab dir={route.dir} />}
      {scan && route.tab === 'recall' && <RecallTab dir={route.dir} scan={scan} />}
      {route.tab === 'dream' && <DreamTab dir={route.dir} version={scan} />}
      {route.tab === 'team' && <TeamSyncTab dir={route.dir} />}
    </section>
  );
}
