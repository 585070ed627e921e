/**
 * Git's commit-graph file (`objects/info/commit-graph`, or the layers listed in
 * `objects/info/commit-graphs/commit-graph-chain`), read from disk: every commit's parents by
 * position, so the walk to a repository's root commits (issue 18, identity) costs microseconds
 * per commit instead of a pack lookup and an inflate. git writes it on `gc` (and `fetch` when
 * asked); commits newer than the graph are read as objects until the walk reaches it.
 * Format: Documentation/gitformat-commit-graph.txt (version 1). Bounded; a file that does not
 * look right is ignored (the walk falls back to objects).
 */
import fs from 'node:fs';
import path from 'node:path';

/** Graph files larger than this are not loaded (a repository of millions of commits): objects are read instead. */
const MAX_GRAPH_BYTES = 256 * 1024 * 1024;
const NO_PARENT = 0x70000000;
const EXTRA_EDGES = 0x80000000;
const LAST_EDGE = 0x80000000;

interface Layer {
  count: number;
  /** Global position of this layer's first commit. */
  base: number;
  fanout: Uint32Array;
  oids: Buffer;
  data: Buffer;
  edges: Buffer | null;
}

/** The commit-graph of a repository, loaded: positions, names and parents. */
export class CommitGraph {
  private constructor(
    private readonly layers: Layer[],
    private readonly hashBytes: number,
    readonly size: number,
  ) {}

  /** The graph of `objectsDir` (`<common dir>/objects`), or null when there is none usable. */
  static open(objectsDir: string, hashBytes: number): CommitGraph | null {
    const info = path.join(objectsDir, 'info');
    let files: string[];
    const chain = readText(path.join(info, 'commit-graphs', 'commit-graph-chain'));
    if (chain !== null) {
      files = chain
        .split('\n')
        .map((l) => l.trim())
        .filter((l) => /^[0-9a-f]{40,64}$/.test(l))
        .map((h) => path.join(info, 'commit-graphs', `graph-${h}.graph`));
    } else files = [path.join(info, 'commit-graph')];
    const layers: Layer[] = [];
    let total = 0;
    let bytes = 0;
    for (const file of files) {
      let buf: Buffer;
      try {
        const st = fs.statSync(file);
        bytes += st.size;
        if (!st.isFile() || bytes > MAX_GRAPH_BYTES) return null;
        buf = fs.readFileSync(file);
      } catch {
        return null;
      }
      const layer = parseLayer(buf, hashBytes, total);
      if (!layer) return null;
      layers.push(layer);
      total += layer.count;
    }
    return layers.length > 0 ? new CommitGraph(layers, hashBytes, total) : null;
  }

  /** The position of commit `oid` (hex), or -1 when the graph does not hold it. */
  position(oid: string): number {
    const name = Buffer.from(oid, 'hex');
    for (const layer of this.layers) {
      const first = name[0]!;
      let lo = first === 0 ? 0 : layer.fanout[first - 1]!;
      let hi = layer.fanout[first]!;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        const order = layer.oids.compare(name, 0, this.hashBytes, mid * this.hashBytes, (mid + 1) * this.hashBytes);
        if (order === 0) return layer.base + mid;
        if (order > 0) hi = mid;
        else lo = mid + 1;
      }
    }
    return -1;
  }

  /** The object id at `pos`. */
  oid(pos: number): string {
    const layer = this.layerAt(pos);
    const i = pos - layer.base;
    return layer.oids.toString('hex', i * this.hashBytes, (i + 1) * this.hashBytes);
  }

  /** The parents of the commit at `pos`, as positions; null when the graph is inconsistent. */
  parents(pos: number): number[] | null {
    // Called once per commit of a walk (30,000 in the bench's): no checked reads.
    const layer = this.layerAt(pos);
    const at = (pos - layer.base) * (this.hashBytes + 16) + this.hashBytes;
    if (at + 8 > layer.data.length) return null;
    const p1 = uint32(layer.data, at);
    const p2 = uint32(layer.data, at + 4);
    const out: number[] = [];
    if (p1 !== NO_PARENT) out.push(p1);
    if (p2 === NO_PARENT) return out;
    if ((p2 & EXTRA_EDGES) === 0) {
      out.push(p2);
      return out;
    }
    if (!layer.edges) return null;
    for (let e = (p2 & 0x7fffffff) * 4; e + 4 <= layer.edges.length; e += 4) {
      const v = layer.edges.readUInt32BE(e);
      out.push(v & 0x7fffffff);
      if (v & LAST_EDGE) return out;
    }
    return null;
  }

  /** The layer (file) holding the commit at `pos`. */
  private layerAt(pos: number): Layer {
    // Nearly every graph is one file.
    if (this.layers.length === 1 && pos < this.size) return this.layers[0]!;
    for (const layer of this.layers) if (pos < layer.base + layer.count) return layer;
    throw new RangeError(`commit-graph position ${pos} is out of range`);
  }
}

/** The big-endian unsigned 32-bit number at `at` (in bounds). */
function uint32(buf: Buffer, at: number): number {
  return ((buf[at]! << 24) | (buf[at + 1]! << 16) | (buf[at + 2]! << 8) | buf[at + 3]!) >>> 0;
}

function readText(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

function parseLayer(buf: Buffer, hashBytes: number, base: number): Layer | null {
  if (buf.length < 8 || buf.toString('latin1', 0, 4) !== 'CGPH' || buf[4] !== 1) return null;
  if ((buf[5] === 2 ? 32 : 20) !== hashBytes) return null;
  const chunks = buf[6]!;
  const table = new Map<string, { start: number; end: number }>();
  for (let c = 0; c < chunks; c++) {
    const at = 8 + c * 12;
    if (at + 24 > buf.length) return null;
    const id = buf.toString('latin1', at, at + 4);
    const start = Number(buf.readBigUInt64BE(at + 4));
    const end = Number(buf.readBigUInt64BE(at + 16));
    if (start > end || end > buf.length) return null;
    table.set(id, { start, end });
  }
  const oidf = table.get('OIDF');
  const oidl = table.get('OIDL');
  const cdat = table.get('CDAT');
  if (!oidf || !oidl || !cdat || oidf.end - oidf.start !== 1024) return null;
  const fanout = new Uint32Array(256);
  for (let i = 0; i < 256; i++) fanout[i] = buf.readUInt32BE(oidf.start + i * 4);
  const count = fanout[255]!;
  if (oidl.end - oidl.start !== count * hashBytes || cdat.end - cdat.start !== count * (hashBytes + 16)) return null;
  const edge = table.get('EDGE');
  return {
    count,
    base,
    fanout,
    oids: buf.subarray(oidl.start, oidl.end),
    data: buf.subarray(cdat.start, cdat.end),
    edges: edge ? buf.subarray(edge.start, edge.end) : null,
  };
}
