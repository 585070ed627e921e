/** A V8 CPU profile (`Profiler.stop`) summed by function, for the opt-in profilers (profile-scan.ts, profile-secrets.ts). */

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

export interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Milliseconds of self time per function (`name file:line`), summed over the profile. */
export function selfTimes(profile: Profile): Map<string, number> {
  const perNode = new Map<number, number>();
  profile.samples.forEach((id, i) => perNode.set(id, (perNode.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000));
  const out = new Map<string, number>();
  for (const node of profile.nodes) {
    const ms = perNode.get(node.id);
    if (!ms) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    const where = url ? ` ${url.split('/').slice(-2).join('/')}:${lineNumber + 1}` : '';
    const key = `${functionName || '(anonymous)'}${where}`;
    out.set(key, (out.get(key) ?? 0) + ms);
  }
  return out;
}
