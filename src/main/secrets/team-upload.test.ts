// Issue 15, finding 1: credentials written the ways real notes hold them — and in file and folder
// names — never reach a team server. A real `memdir server` in its own process on loopback, and
// `memdir team connect|sync|status` as the CLI runs them.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../../cli/command.js';
import { runCli } from '../../cli/main.js';
import { type ServerProcess, startServerProcess } from '../../server/test-support/server-process.js';
import { AlertCenter } from '../team/alert-center.js';
import { maskedName } from './index.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const MEMDIR = ['--import', 'tsx', path.resolve(here, '../../cli/memdir.ts')];

// Key-shaped strings are built at run time, so none sits in the repository.
let seed = 11;
const rand = (alphabet: string, n: number): string =>
  Array.from({ length: n }, () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return alphabet[(seed >>> 8) % alphabet.length];
  }).join('');
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const B64 = `${ALNUM}+/`;
const pem = (label: string, magic: string, end = true): string =>
  `-----BEGIN ${label}PRIVATE KEY-----\n${(magic + rand(B64, 64 * 5)).match(/.{1,64}/g)!.join('\n')}${end ? `\n-----END ${label}PRIVATE KEY-----` : ''}`;
const ghp = `ghp_${rand(ALNUM, 36)}`;
const ant = `sk-ant-api03-${rand(`${ALNUM}-_`, 93)}AA`;
const slack = `https://hooks.slack.com/services/T${rand('ABCDEFGHJKLMNPQRSTUVWXYZ23456789', 8)}/B${rand('ABCDEFGHJKLMNPQRSTUVWXYZ23456789', 10)}/${rand(ALNUM, 24)}`;
const akia = `AKIA${rand('ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', 16)}`;
const ghp2 = `ghp_${rand(ALNUM, 36)}`;
const envBlob = Buffer.from(`NODE_ENV=production\nDEPLOY_TOKEN=${rand(ALNUM, 24)}\nGITHUB_TOKEN=${ghp2}\n`)
  .toString('base64')
  .match(/.{1,76}/g)!
  .join('\n');
const ec = pem('EC ', 'MHcCAQEEI');
const ghp3 = `ghp_${rand(ALNUM, 36)}`;
const ghp4 = `ghp_${rand(ALNUM, 36)}`;
const ghp5 = `ghp_${rand(ALNUM, 36)}`;
const b64Value = Buffer.from(`ghp_${rand(ALNUM, 36)}`).toString('base64');
// Session 42: the shapes the one scanner still missed.
const slack2 = `https://hooks.slack.com/services/T${rand('ABCDEFGHJKLMNPQRSTUVWXYZ23456789', 8)}/B${rand('ABCDEFGHJKLMNPQRSTUVWXYZ23456789', 10)}/${rand(ALNUM, 24)}`;
const linkB64 = Buffer.from(`ghp_${rand(ALNUM, 36)}`).toString('base64');
const nameB64 = Buffer.from(`ghp_${rand(ALNUM, 36)}`).toString('base64url');
const ghp6 = `ghp_${rand(ALNUM, 36)}`;
const ghp7 = `ghp_${rand(ALNUM, 36)}`;
const fullWidth = [...`ghp_${rand(ALNUM, 36)}`].map((c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0)).join('');

/** key → content of files that must stay home, and the secret each one holds. */
const LEAKS: { key: string; content: string; secret: string }[] = [
  {
    key: 'reference_ec_indented.md',
    content: `Signing key:\n\n${ec
      .split('\n')
      .map((l) => `    ${l}`)
      .join('\n')}\n`,
    secret: ec.split('\n')[1]!,
  },
  { key: 'reference_ec_json.md', content: `Service config: ${JSON.stringify({ signing_key: pem('EC ', 'MHcCAQEEI') })}\n`, secret: 'MHcCAQEEI' },
  {
    key: 'reference_rsa_quoted.md',
    content: `From the runbook:\n\n${pem('RSA ', 'MIIEpAIBAAKCAQEA')
      .split('\n')
      .map((l) => `> ${l}`)
      .join('\n')}\n`,
    secret: 'MIIEpAIBAAKCAQEA',
  },
  {
    key: 'reference_pkcs8_cut.md',
    content: `Pasted before the END line:\n${pem('', 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASC', false)}\n`,
    secret: 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASC',
  },
  {
    key: 'reference_login_link.md',
    content: `Login link: https://app.internal/login?next=https%3A%2F%2Fapi.github.com%2F%3Faccess_token%3D${ghp}\n`,
    secret: ghp,
  },
  { key: 'reference_alerts.md', content: `Alerts hook: https://relay.internal/r?u=${encodeURIComponent(slack)}\n`, secret: slack.split('/').at(-1)! },
  { key: 'reference_comment.md', content: `Notes\n<!--${ant}-->\n`, secret: ant },
  // Review x2, F2: real passwords that hold a word placeholders use (Secret, todo in Mastodon).
  { key: 'reference_db.md', content: 'prod db: postgres://app:MySecretPw2024@prod-db.internal:5432/app\n', secret: 'MySecretPw2024' },
  { key: 'reference_cache.md', content: '缓存: redis://default:Mastodon2024!@cache.internal:6379\n', secret: 'Mastodon2024!' },
  { key: 'reference_env.md', content: 'DB_PASSWORD=MySecret#2024\n', secret: 'MySecret#2024' },
  // Real passwords holding <, > or dots are no templates.
  { key: 'reference_env_angle.md', content: 'DB_PASSWORD=Xk9<q2!vR>t...\n', secret: 'Xk9<q2!vR>t' },
  { key: 'reference_redis_angle.md', content: 'cache: redis://default:<q2!vR>tXk9@cache.internal:6379\n', secret: '<q2!vR>tXk9' },
  // Review x2 (lower grade): a .env piped through base64 and pasted, and a token split across two lines.
  { key: 'reference_env_blob.md', content: `The CI .env, as \`base64 .env\` printed it:\n\n${envBlob}\n`, secret: envBlob.slice(-60, -20) },
  { key: 'reference_split.md', content: `Bot token (wrapped by the terminal):\n${ghp2.slice(0, 23)}\n${ghp2.slice(23)}\n`, secret: ghp2.slice(0, 23) },
  { key: `reference_${ghp}.md`, content: 'The token for the release bot is in this file name.\n', secret: ghp },
  // Session 41, every exit: the forms people write, in files Claude Code wrote (not through Memdir).
  {
    key: 'reference_desc.md',
    content: `---\nname: bot\ndescription: release bot, token ${ghp3}\ntype: reference\n---\n\nSee the description.\n`,
    secret: ghp3,
  },
  { key: 'reference_crlf.md', content: `Bot token (wrapped, CRLF):\r\n${ghp4.slice(0, 21)}\r\n${ghp4.slice(21)}\r\n`, secret: ghp4.slice(0, 21) },
  { key: 'reference_git_url.md', content: 'Mirror: git clone https://deploy:Vq7rT2mXk9Lp@git.internal/app.git\n', secret: 'Vq7rT2mXk9Lp' },
  { key: 'reference_env_value_b64.md', content: `CI secret, base64 as a .env value:\n\nGH_B64=${b64Value}\n`, secret: b64Value },
  { key: 'MEMORY.md', content: `- [Release bot](reference_bot.md) — token ${ghp5}\n`, secret: ghp5 },
  { key: `${akia}/notes.md`, content: 'A folder named after a key id.\n', secret: akia },
  // Session 42: a Slack webhook wrapped at a `/` (LF, CRLF), base64 of a token in a link target and in a
  // file name, HTML references and percent-encoding, full-width letters, user:password@host without a scheme.
  { key: 'reference_slack_wrapped.md', content: `Alerts hook:\n${slack2.replace('/B', '/\nB')}\n`, secret: slack2.split('/').at(-1)! },
  {
    key: 'reference_slack_crlf.md',
    content: `Alerts hook:\r\n${slack2.slice(0, slack2.lastIndexOf('/') + 1)}\r\n${slack2.slice(slack2.lastIndexOf('/') + 1)}\r\n`,
    secret: slack2.split('/').at(-1)!,
  },
  { key: 'reference_links.md', content: `- [Release bot](notes/${linkB64}.md) — how it logs in\n`, secret: linkB64 },
  { key: `reference_${nameB64}.md`, content: 'The name says it all.\n', secret: nameB64 },
  { key: 'reference_wiki.md', content: `Token, copied from the wiki's HTML: ${ghp6.replace('_', '&#95;')}\n`, secret: ghp6.slice(4) },
  { key: 'reference_wiki_hex.md', content: `Token: &#x67;${ghp7.slice(1).replace('_', '%5F')}\n`, secret: ghp7.slice(4) },
  { key: 'reference_fullwidth.md', content: `Token (typed with a CJK input method): ${fullWidth}\n`, secret: fullWidth },
  { key: 'reference_backups.md', content: 'Backups: pg_dump deploy:S3cr3tP4ss@db.internal:5432\n', secret: 'S3cr3tP4ss' },
  // Session 44: an all-lower-case password before a host, a full stop after the host, a .env's
  // _PASS name, a .netrc line, a curl command line, a Docker registry's auth.
  { key: 'reference_nightly.md', content: 'Nightly dump: pg_dump deploy:qzvbnmxkwplt@db.internal:5432/app\n', secret: 'qzvbnmxkwplt' },
  { key: 'reference_sentence.md', content: 'The nightly dump logs in as deploy:Hq4vZ8wNc2Lt@db.internal.\n', secret: 'Hq4vZ8wNc2Lt' },
  { key: 'reference_smtp.md', content: 'Mail relay:\n\nSMTP_HOST=smtp.internal\nSMTP_PASS=Vq7rT2mXk9Lp!\n', secret: 'Vq7rT2mXk9Lp!' },
  // Session 45: a .pgpass line, a login and password side by side, a word password whose URL user is an e-mail address.
  { key: 'reference_pgpass.md', content: 'Our ~/.pgpass:\n\n    db.internal:5432:app:app_user:vohpon-Koxsy2-dafgeh\n', secret: 'vohpon-Koxsy2-dafgeh' },
  { key: 'reference_grafana.md', content: 'Grafana: admin / S3cr3tP4ss!\n', secret: 'S3cr3tP4ss!' },
  { key: 'reference_deploy_login.md', content: 'Deploy box — user: deploy pass: Xk9#mP2q\n', secret: 'Xk9#mP2q' },
  { key: 'reference_mail.md', content: 'Mail: smtp://alice@gmail.com:sunshine@smtp.gmail.com\n', secret: 'sunshine' },
  { key: 'reference_netrc.md', content: 'Our ~/.netrc line: machine api.internal login ci password Rt5mW9xKq2Zb\n', secret: 'Rt5mW9xKq2Zb' },
  { key: 'reference_curl.md', content: 'Health check: curl -u admin:Pn8sD3fGj6Vy https://api.internal/health\n', secret: 'Pn8sD3fGj6Vy' },
  { key: 'reference_label.md', content: 'Staging env — Set: DB_PASSWORD=Jd6tR1wQx8Mv\n', secret: 'Jd6tR1wQx8Mv' },
  { key: 'reference_query.md', content: 'Feed: https://feeds.internal/v2/items?page=1&api_key=Lw3nB8vKc5Tz9qHs&sort=new\n', secret: 'Lw3nB8vKc5Tz9qHs' },
  {
    key: 'reference_registry.md',
    content: `~/.docker/config.json: {"auths":{"registry.internal":{"auth":"${Buffer.from('ci:Yc2bN7kLm4Qx').toString('base64')}"}}}\n`,
    secret: Buffer.from('ci:Yc2bN7kLm4Qx').toString('base64'),
  },
];

// Review x2, F3: files held back for another reason than a secret, a token in their names.
const HELD_FOR_OTHER_REASONS = {
  user: `ghp_${rand(ALNUM, 36)}`,
  link: `ghp_${rand(ALNUM, 36)}`,
  binary: `ghp_${rand(ALNUM, 36)}`,
  target: `ghp_${rand(ALNUM, 36)}`,
};

/** Each file as its sync report and alert name it: a secret in its name masked by the scanner's own mask (maskedName, heuristics.ts maskSecret). */
const shownNames = new Map<string, string>();
const shown = (leak: { key: string }): string => shownNames.get(leak.key)!;
const IN_NAMES = LEAKS.filter((l) => l.key.includes(l.secret));

/**
 * Whether `shown` names `key` with `secret` masked to no more than its format's public prefix
 * (GitHub's `ghp_`, AWS's `AKIA`): the rest of the name as it is, the secret's place only stars
 * (with the length a long mask leaves out). Written out here, not taken from the mask under test (review s45-4 #11).
 */
function showsOnlyPublicPrefix(shown: string, key: string, secret: string): boolean {
  const at = key.indexOf(secret);
  const prefix = /^(?:ghp_|AKIA)/.exec(secret)?.[0] ?? '';
  const escape = (t: string) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^${escape(key.slice(0, at) + prefix)}\\*{4,32}(?:…\\(\\d+\\))?${escape(key.slice(at + secret.length))}$`).test(shown);
}

let root: string;
let home: string;
let dataDir: string;
let teamDir: string;
let server: ServerProcess;
let token: string;

interface Report {
  push: { uploaded: string[] };
  waiting: { key: string; reason: string }[];
  error: unknown;
}

async function memdir(args: string[], stdin?: string): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: CliIo = {
    out: (t) => (out += t),
    err: (t) => (err += t),
    env: { MEMDIR_DATA_DIR: dataDir, HOME: root },
    cwd: root,
    ...(stdin !== undefined ? { stdin: Readable.from([stdin]) } : {}),
  };
  const code = await runCli(args, io);
  return { code, out, err };
}

beforeAll(async () => {
  for (const leak of LEAKS) shownNames.set(leak.key, (await maskedName(leak.key)).masked);
  root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'memdir-secret-upload-')));
  home = path.join(root, 'claude-home');
  dataDir = path.join(root, 'data');
  teamDir = path.join(home, 'projects', '-work-app', 'memory', 'team');
  await fs.mkdir(teamDir, { recursive: true });
  const db = path.join(root, 'team.sqlite');
  const admin = { ...process.env, MEMDIR_DATA_DIR: dataDir };
  const run = async (args: string[]) => {
    let out = '';
    const code = await runCli(args, { out: (t) => (out += t), err: () => undefined, env: admin, cwd: root });
    if (code !== 0) throw new Error(`memdir ${args.join(' ')} failed`);
    return out;
  };
  // The server creates its store; admin commands only open one that is there.
  server = await startServerProcess(MEMDIR, db, { rate: 1000 });
  await run(['server', 'admin', 'create-team', 'platform', '--db', db]);
  token = (JSON.parse(await run(['server', 'admin', 'issue-token', 'platform', '--member', 'mei', '--db', db, '--json'])) as { token: string }).token;
  await fs.writeFile(path.join(teamDir, 'project_api.md'), '---\nname: API\ndescription: v2 cutover\ntype: project\n---\n\nv2 on 2026-04-01.\n');
  for (const leak of LEAKS) {
    await fs.mkdir(path.dirname(path.join(teamDir, leak.key)), { recursive: true });
    await fs.writeFile(path.join(teamDir, leak.key), leak.content);
  }
  const other = HELD_FOR_OTHER_REASONS;
  await fs.writeFile(path.join(teamDir, `user_${other.user}.md`), '---\nname: me\ndescription: me\ntype: user\n---\n\nI like tea.\n');
  await fs.symlink(path.join(root, `notes_${other.target}.md`), path.join(teamDir, `link_${other.link}.md`));
  await fs.writeFile(path.join(teamDir, `reference_${other.binary}.md`), Buffer.from([0x2d, 0x2d, 0xff, 0xfe, 0x00, 0x41]));
}, 60_000);
afterAll(async () => {
  await server?.stop();
  await fs.rm(root, { recursive: true, force: true });
});

describe('a team sync to a real server', () => {
  it('uploads none of the files whose content or name holds a credential, raises an alert for each, and says so in team status', async () => {
    const connect = await memdir(
      ['team', 'connect', '--project', '-work-app', '--home', home, '--server', server.url, '--team', 'platform', '--token-stdin', '--json'],
      token,
    );
    const first = (JSON.parse(connect.out) as { sync: Report }).sync;
    const sync = await memdir(['team', 'sync', '--project', '-work-app', '--home', home, '--json']);
    const again = JSON.parse(sync.out) as Report;
    for (const report of [first, again]) {
      expect(report.error).toBeNull();
      expect(new Set(report.waiting.filter((w) => w.reason === 'secret').map((w) => w.key))).toEqual(new Set(LEAKS.map(shown)));
    }
    expect(first.push.uploaded).toEqual(['project_api.md']);
    expect(again.push.uploaded).toEqual([]);
    expect(sync.code).toBe(1);

    // What the server holds: the clean file from connect's first sync, and nothing else.
    const res = await fetch(`${server.url}/v1/teams/platform/entries`, { headers: { authorization: `Bearer ${token}` } });
    const held = await res.text();
    expect(Object.keys((JSON.parse(held) as { entries: Record<string, unknown> }).entries)).toEqual(['project_api.md']);
    for (const leak of LEAKS) expect(held).not.toContain(leak.secret);

    const status = await memdir(['team', 'status', '--project', '-work-app', '--home', home, '--json']);
    expect(status.code).toBe(1);
    const waiting = (JSON.parse(status.out) as { waiting: { key: string; reason: string }[] }).waiting;
    for (const leak of LEAKS) expect(waiting).toContainEqual(expect.objectContaining({ key: shown(leak), reason: 'secret' }));
    for (const leak of IN_NAMES) expect(showsOnlyPublicPrefix(shown(leak), leak.key, leak.secret), `${leak.key} shown as ${shown(leak)}`).toBe(true);

    const alerts = (await new AlertCenter(dataDir).list()).alerts.filter((a) => a.kind === 'secret' && a.status === 'open');
    // The alert still points at the file (Open), but says its name as the report does: masked.
    expect(new Set(alerts.map((a) => a.file))).toEqual(new Set(LEAKS.map((l) => `team/${l.key}`)));
    expect(new Set(alerts.map((a) => a.findings[0]!.file))).toEqual(new Set(LEAKS.map((l) => `team/${shown(l)}`)));

    // A token in a file's name is printed nowhere: not in the JSON, the text, nor in what the alert says.
    const text = await memdir(['team', 'status', '--project', '-work-app', '--home', home]);
    const said = [connect.out, sync.out, status.out, text.out, JSON.stringify(alerts.map((a) => [a.title, a.message, a.findings]))].join('\n');
    expect(IN_NAMES).toHaveLength(3);
    for (const leak of IN_NAMES) {
      expect(said).not.toContain(leak.secret);
      expect(text.out).toContain(`Held back: team/${shown(leak)} — team/${shown(leak)} was not uploaded to the team:`);
    }
  });

  it('a token in the name of a file held back for another reason (a user memory, a link, not UTF-8) is printed nowhere either', async () => {
    const sync = await memdir(['team', 'sync', '--project', '-work-app', '--home', home, '--json']);
    const report = JSON.parse(sync.out) as Report & { waiting: { key: string; reason: string; detail: string }[] };
    const reasons = new Set(report.waiting.map((w) => w.reason));
    for (const reason of ['user-memory', 'symlink', 'not-utf8']) expect(reasons).toContain(reason);
    const status = await memdir(['team', 'status', '--project', '-work-app', '--home', home, '--json']);
    const text = await memdir(['team', 'status', '--project', '-work-app', '--home', home]);
    // What an alert says and names (the Alerts page, the desktop notification's body); its topic is Memdir's own key, never shown.
    const alerts = (await new AlertCenter(dataDir).list()).alerts.map((a) => [a.title, a.message, a.file]);
    expect(alerts.some(([title]) => title === 'A link in the team folder was refused')).toBe(true);
    const said = [sync.out, status.out, text.out, JSON.stringify(alerts)].join('\n');
    for (const token of Object.values(HELD_FOR_OTHER_REASONS)) expect(said).not.toContain(token.slice(4));
    // Still named, masked as a secret's name is.
    const link = (await maskedName(`link_${HELD_FOR_OTHER_REASONS.link}.md`)).masked;
    const user = (await maskedName(`user_${HELD_FOR_OTHER_REASONS.user}.md`)).masked;
    expect(showsOnlyPublicPrefix(link, `link_${HELD_FOR_OTHER_REASONS.link}.md`, HELD_FOR_OTHER_REASONS.link), link).toBe(true);
    expect(showsOnlyPublicPrefix(user, `user_${HELD_FOR_OTHER_REASONS.user}.md`, HELD_FOR_OTHER_REASONS.user), user).toBe(true);
    expect(text.out).toContain(`team/${link}`);
    expect(report.waiting).toContainEqual(expect.objectContaining({ key: user, reason: 'user-memory' }));
  });

  it('a file whose name holds a secret allowed on purpose is named masked while it waits to be pushed, and once pushed', async () => {
    const leak = IN_NAMES.find((l) => l.secret === ghp)!;
    const alerts = new AlertCenter(dataDir);
    const alert = (await alerts.list()).alerts.find((a) => a.kind === 'secret' && a.status === 'open' && a.file === `team/${leak.key}`)!;
    await alerts.allow(alert.id, alert.findings[0]!.fingerprint, 'mei', 'the release bot token is revoked, the name is history');
    const status = await memdir(['team', 'status', '--project', '-work-app', '--home', home, '--json']);
    const waiting = (JSON.parse(status.out) as { waiting: { key: string; reason: string; detail: string }[] }).waiting;
    expect(waiting).toContainEqual({ key: shown(leak), reason: 'pending', detail: `team/${shown(leak)} changed here and waits to be pushed.` });
    const text = await memdir(['team', 'status', '--project', '-work-app', '--home', home]);
    expect(text.out).toContain(`Waiting: team/${shown(leak)} — team/${shown(leak)} changed here and waits to be pushed.`);
    const sync = await memdir(['team', 'sync', '--project', '-work-app', '--home', home, '--json']);
    // (The same token is allowed in every file of the team memory: the login link's goes up too.)
    expect((JSON.parse(sync.out) as Report).push.uploaded).toContain(shown(leak));
    await fs.appendFile(path.join(teamDir, leak.key), 'Rotated since.\n');
    const said = await memdir(['team', 'sync', '--project', '-work-app', '--home', home]);
    expect(said.out).toContain(`Push: 1 file(s): ${shown(leak)}.`);
    for (const out of [status.out, text.out, sync.out, said.out]) expect(out).not.toContain(ghp);
    // Sent on purpose: the server has it under its name.
    const res = await fetch(`${server.url}/v1/teams/platform/entries`, { headers: { authorization: `Bearer ${token}` } });
    expect(Object.keys((JSON.parse(await res.text()) as { entries: Record<string, unknown> }).entries)).toContain(leak.key);
  });
});
