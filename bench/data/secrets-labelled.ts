/**
 * A labelled set for the secret scanner: fake credentials in the formats providers document
 * (and public gitleaks / secretlint rules describe), inside the kind of sentence a memory
 * holds, plus realistic text that only looks like a secret. Credentials are generated from a
 * seeded PRNG at run time — random bodies in the documented shape, never real keys — so no
 * key-shaped string sits in the repository for other scanners (or push protection) to trip on.
 *
 * Sources of the formats:
 *   AWS        docs.aws.amazon.com/IAM/latest/UserGuide/security-creds.html (AKIA/ASIA + 16, 40-char secret)
 *   GitHub     github.blog/2021-04-05-behind-githubs-new-authentication-token-formats (ghp_/gho_/ghu_/ghs_/ghr_ + 36; github_pat_ + 82)
 *   GitLab     docs.gitlab.com/ee/security/token_overview.html (glpat-, gldt-, glrt-)
 *   Slack      api.slack.com/authentication/token-types (xoxb-, xoxp-), api.slack.com/messaging/webhooks
 *   Stripe     docs.stripe.com/keys (sk_live_, rk_live_, sk_test_; pk_ keys are publishable)
 *   Google     cloud.google.com/docs/authentication/api-keys (AIza + 35)
 *   Anthropic  docs.anthropic.com (sk-ant-api03-, sk-ant-admin01-); Claude Code OAuth (sk-ant-oat01-, sk-ant-ort01-)
 *   OpenAI     platform.openai.com/docs (sk-proj-…T3BlbkFJ…, legacy sk-…T3BlbkFJ…)
 *   npm        docs.npmjs.com/about-access-tokens (npm_ + 36)
 *   PyPI       pypi.org/help/#apitoken (pypi-AgEIcHlwaS5vcmc…)
 *   Twilio     twilio.com/docs/iam/api-keys (SK + 32 hex)
 *   SendGrid   docs.sendgrid.com (SG.<22>.<43>)
 *   Mailgun    documentation.mailgun.com (key- + 32)
 *   Shopify    shopify.dev/docs/apps/auth (shpat_, shpss_ + 32 hex)
 *   Hugging Face, Linear, Databricks, DigitalOcean, Vault, Docker: gitleaks config/gitleaks.toml
 *   PEM        RFC 7468; JWT RFC 7519; connection strings: each database's URI docs.
 */
import { prng } from '../lib.js';

export interface LabelledSample {
  id: string;
  /** `secret`: the scanner must report it; `clean`: it must not. */
  label: 'secret' | 'clean';
  provider: string;
  text: string;
  /** The file's path in its memory folder, when the sample is about the name (a token in a file or folder name). */
  name?: string;
}

const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const DIGITS = '0123456789';
const ALNUM = UPPER + LOWER + DIGITS;
const HEX = '0123456789abcdef';
const B64URL = `${ALNUM}-_`;
const B64 = `${ALNUM}+/`;

/** The labelled set; the same seed gives the same set. */
export function buildLabelledSet(seed = 20260305): LabelledSample[] {
  const random = prng(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const rand = (alphabet: string, n: number): string => Array.from({ length: n }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
  const b64url = (text: string): string => Buffer.from(text).toString('base64url');
  const say = (token: string): string =>
    pick([
      `- Staging deploy uses \`${token}\` (rotate monthly).`,
      `The CI job authenticates with ${token} — ask Mei before changing it.`,
      `Remember: ${token} is the key for the nightly export.`,
      `Note from the incident on 2026-03-05: we pasted ${token} into the runbook.`,
    ]);
  const samples: LabelledSample[] = [];
  const secret = (provider: string, text: string, name?: string) =>
    samples.push({ id: `secret-${samples.length}`, label: 'secret', provider, text, ...(name ? { name } : {}) });
  const clean = (provider: string, text: string, name?: string) =>
    samples.push({ id: `clean-${samples.length}`, label: 'clean', provider, text, ...(name ? { name } : {}) });

  // ---- credentials -------------------------------------------------------------------------
  secret('aws', say(`AKIA${rand(UPPER + DIGITS, 16)}`));
  secret('aws', `Temporary creds for the migration: ASIA${rand(UPPER + DIGITS, 16)}`);
  secret('aws', `aws_secret_access_key = ${rand(B64, 40)}`);
  secret('aws', `[default]\naws_access_key_id = AKIA${rand(UPPER + DIGITS, 16)}\naws_secret_access_key = ${rand(B64, 40)}`);
  secret('github', say(`ghp_${rand(ALNUM, 36)}`));
  secret('github', `Fine-grained PAT for the release bot: github_pat_${rand(ALNUM, 22)}_${rand(ALNUM, 59)}`);
  secret('github', `OAuth token from the device flow: gho_${rand(ALNUM, 36)}`);
  secret('github', `App installation token ghs_${rand(ALNUM, 36)} expires hourly.`);
  secret('github', `User-to-server token ghu_${rand(ALNUM, 36)} and refresh ghr_${rand(ALNUM, 36)}`);
  secret('gitlab', say(`glpat-${rand(B64URL, 20)}`));
  secret('gitlab', `Runner auth token: glrt-${rand(B64URL, 20)}`);
  secret('gitlab', `Deploy token for the registry gldt-${rand(B64URL, 20)}`);
  secret('slack', `Bot token: xoxb-${rand(DIGITS, 12)}-${rand(DIGITS, 13)}-${rand(ALNUM, 24)}`);
  secret('slack', `User token xoxp-${rand(DIGITS, 12)}-${rand(DIGITS, 12)}-${rand(DIGITS, 13)}-${rand(HEX, 32)}`);
  secret('slack', `Alerts go to https://hooks.slack.com/services/T${rand(UPPER + DIGITS, 8)}/B${rand(UPPER + DIGITS, 10)}/${rand(ALNUM, 24)}`);
  secret('stripe', say(`sk_live_${rand(ALNUM, 24)}`));
  secret('stripe', `Restricted key for reporting: rk_live_${rand(ALNUM, 24)}`);
  secret('stripe', `STRIPE_SECRET_KEY=sk_test_${rand(ALNUM, 24)}`);
  secret('google', say(`AIza${rand(B64URL, 35)}`));
  secret('google', `maps key: "AIza${rand(B64URL, 35)}"`);
  secret('anthropic', `ANTHROPIC_API_KEY=sk-ant-api03-${rand(B64URL, 93)}AA`);
  secret('anthropic', say(`sk-ant-api03-${rand(B64URL, 93)}AA`));
  secret('anthropic', `Admin API key (org settings): sk-ant-admin01-${rand(B64URL, 93)}AA`);
  secret('anthropic', `Claude Code OAuth access token sk-ant-oat01-${rand(B64URL, 93)}AA`);
  secret('anthropic', `refresh: sk-ant-ort01-${rand(B64URL, 93)}AA`);
  secret('openai', say(`sk-proj-${rand(B64URL, 74)}T3BlbkFJ${rand(B64URL, 74)}`));
  secret('openai', `legacy key sk-${rand(ALNUM, 20)}T3BlbkFJ${rand(ALNUM, 20)}`);
  secret('openai', `service account: sk-svcacct-${rand(B64URL, 58)}T3BlbkFJ${rand(B64URL, 58)}`);
  secret('npm', `//registry.npmjs.org/:_authToken=npm_${rand(ALNUM, 36)}`);
  secret('npm', say(`npm_${rand(ALNUM, 36)}`));
  secret('pypi', `[pypi]\n  username = __token__\n  password = pypi-AgEIcHlwaS5vcmc${rand(B64URL, 70)}`);
  secret('pypi', say(`pypi-AgEIcHlwaS5vcmc${rand(B64URL, 120)}`));
  secret('twilio', say(`SK${rand(HEX, 32)}`));
  secret('sendgrid', say(`SG.${rand(B64URL, 22)}.${rand(B64URL, 43)}`));
  secret('mailgun', say(`key-${rand(HEX, 32)}`));
  secret('shopify', `Admin API access token shpat_${rand(HEX, 32)}`);
  secret('shopify', `App shared secret: shpss_${rand(HEX, 32)}`);
  secret('huggingface', say(`hf_${rand(UPPER + LOWER, 34)}`));
  secret('linear', say(`lin_api_${rand(ALNUM, 40)}`));
  secret('databricks', say(`dapi${rand(HEX, 32)}`));
  secret('digitalocean', say(`dop_v1_${rand(HEX, 64)}`));
  secret('vault', `VAULT_TOKEN=hvs.${rand(B64URL, 95)}`);
  secret('docker', `docker login -u ci -p dckr_pat_${rand(B64URL, 27)}`);
  secret('memdir', `team sync token mdt_${rand(HEX, 16)}_${rand(B64URL, 43)}`);
  const pem = (label: string, magic: string) =>
    `-----BEGIN ${label}PRIVATE KEY-----\n${(magic + rand(B64, 64 * 12)).match(/.{1,64}/g)!.join('\n')}\n-----END ${label}PRIVATE KEY-----`;
  secret('private-key', `Deploy key for the bastion:\n${pem('RSA ', 'MIIEpAIBAAKCAQEA')}`);
  secret('private-key', pem('', 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASC'));
  secret('private-key', pem('OPENSSH ', 'b3BlbnNzaC1rZXktdjEAAAAA'));
  secret('private-key', pem('EC ', 'MHcCAQEEI'));
  const jwt = (payload: object) => `${b64url('{"alg":"HS256","typ":"JWT"}')}.${b64url(JSON.stringify(payload))}.${rand(B64URL, 43)}`;
  secret('jwt', `Session cookie for the admin UI: ${jwt({ sub: 'u_1029', name: 'Mei', iat: 1772668800 })}`);
  secret('jwt', `curl -H "Authorization: Bearer ${jwt({ sub: 'svc-export', scope: 'read:all', exp: 1800000000 })}" https://api.internal/export`);
  secret(
    'jwt',
    `id_token: ${`${b64url('{"alg":"RS256","kid":"k1"}')}.${b64url(JSON.stringify({ iss: 'https://auth.internal', aud: 'cli' }))}.${rand(B64URL, 342)}`}`,
  );
  const pw = () => `${rand(ALNUM, 10)}${pick(['!', '#', '%', '&', '@'])}${rand(DIGITS, 2)}`;
  secret('postgres', `Prod DB: postgres://app_user:${pw()}@db.prod.internal:5432/app`);
  secret('postgres', `DATABASE_URL=postgresql://report:${rand(ALNUM, 16)}@10.0.4.12/warehouse?sslmode=require`);
  secret('mysql', `mysql://deploy:${rand(ALNUM, 14)}@mysql.internal:3306/shop`);
  secret('mongodb', `mongodb+srv://analytics:${rand(ALNUM, 18)}@cluster0.ab1cd.mongodb.net/events`);
  secret('redis', `Cache: redis://:${rand(ALNUM, 24)}@cache.internal:6379/0`);
  secret('amqp', `amqps://orders:${rand(ALNUM, 16)}@mq.internal:5671/prod`);
  secret('generic', `password = "${pw()}"`);
  secret('generic', `db_password: ${pw()}`);
  secret('generic', `api_key: ${rand(ALNUM, 32)}`);
  secret('generic', `secret: "${rand(B64, 40)}"`);
  secret('generic', `token=${rand(HEX, 40)}`);
  secret('generic', `export DATADOG_API_KEY=${rand(HEX, 32)}`);
  secret('generic', `"client_secret": "${rand(B64URL, 48)}"`);
  secret('generic', `The staging admin password is: ${pw()}`);
  secret('generic', `- **Password**: ${pw()}`);
  secret('generic', `curl -H "Authorization: Bearer ${rand(ALNUM, 40)}" https://api.vendor.io/v2/jobs`);
  secret('generic', `AZURE_STORAGE: DefaultEndpointsProtocol=https;AccountName=prodlogs;AccountKey=${rand(B64, 86)}==`);

  // ---- the same credentials written the ways notes really hold them (issue 15) -------------
  // A private key with or without its END line, whatever the key type, however its lines are
  // prefixed; tokens URL-encoded inside another URL, in comments without spaces, split by an
  // invisible character; and tokens in a file or folder name.
  const indent = (text: string, prefix: string) =>
    text
      .split('\n')
      .map((l) => `${prefix}${l}`)
      .join('\n');
  const cut = (block: string) => block.slice(0, block.lastIndexOf('\n-----END'));
  secret('private-key', `Signing key for the webhooks:\n\n${indent(pem('EC ', 'MHcCAQEEI'), '    ')}`);
  secret('private-key', `- the JWT signer:\n  ${indent(pem('EC ', 'MHcCAQEEI'), '  ').trimStart()}`);
  secret('private-key', `Service config: ${JSON.stringify({ signing_key: pem('EC ', 'MHcCAQEEI'), kid: 'k1' })}`);
  secret('private-key', `"private_key": ${JSON.stringify(pem('RSA ', 'MIIEpAIBAAKCAQEA'))}`);
  secret('private-key', `From the runbook:\n\n${indent(pem('RSA ', 'MIIEpAIBAAKCAQEA'), '> ')}`);
  secret('private-key', indent(pem('', 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASC'), '> '));
  secret('private-key', indent(pem('OPENSSH ', 'b3BlbnNzaC1rZXktdjEAAAAA'), '> '));
  secret('private-key', indent(pem('EC ', 'MHcCAQEEI'), '>> '));
  secret('private-key', `Pasted before the END line:\n${cut(pem('RSA ', 'MIIEpAIBAAKCAQEA'))}`);
  secret('private-key', cut(pem('', 'MIIEvQIBADANBgkqhkiG9w0BAQEFAASC')));
  secret('private-key', `${cut(pem('OPENSSH ', 'b3BlbnNzaC1rZXktdjEAAAAA'))}\n(the rest is in 1Password)`);
  secret('private-key', indent(cut(pem('EC ', 'MHcCAQEEI')), '> '));
  secret(
    'private-key',
    `-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,${rand(HEX, 32).toUpperCase()}\n\n${rand(B64, 64 * 8)
      .match(/.{1,64}/g)!
      .join('\n')}\n-----END RSA PRIVATE KEY-----`,
  );
  secret('github', `Login link: https://app.internal/login?next=https%3A%2F%2Fapi.github.com%2F%3Faccess_token%3Dghp_${rand(ALNUM, 36)}`);
  secret('stripe', `Checkout test: https://r.internal/go?u=${encodeURIComponent(encodeURIComponent(`https://pay.internal/?key=sk_live_${rand(ALNUM, 24)}`))}`);
  secret(
    'slack',
    `Alerts relay: https://relay.internal/r?u=${encodeURIComponent(`https://hooks.slack.com/services/T${rand(UPPER + DIGITS, 8)}/B${rand(UPPER + DIGITS, 10)}/${rand(ALNUM, 24)}`)}`,
  );
  secret('anthropic', `Notes for CI\n<!--sk-ant-api03-${rand(B64URL, 93)}AA-->`);
  secret('github', `<!--ghp_${rand(ALNUM, 36)}-->`);
  const aws = `AKIA${rand(UPPER + DIGITS, 16)}`;
  secret('aws', `key id ${aws.slice(0, 8)}\u200b${aws.slice(8)} (copied from the console)`);
  const stripe = `sk_live_${rand(ALNUM, 24)}`;
  secret('stripe', `billing: ${stripe.slice(0, 12)}\u00ad${stripe.slice(12)}`);
  secret('postgres', `{"url": "postgres:\\/\\/app:${rand(ALNUM, 16)}@db.internal:5432\\/app"}`);
  secret('github', 'The token for the release bot is in this file name.', `reference_ghp_${rand(ALNUM, 36)}.md`);
  secret('stripe', 'Billing notes.', `notes_sk_live_${rand(ALNUM, 24)}_billing.md`);
  secret('aws', 'A folder named after the key id.', `AKIA${rand(UPPER + DIGITS, 16)}/credentials.md`);
  secret('slack', 'Bot setup.', `reference_xoxb-${rand(DIGITS, 12)}-${rand(DIGITS, 13)}-${rand(ALNUM, 24)}.md`);
  secret('gitlab', 'CI runner.', `project_glpat-${rand(B64URL, 20)}.md`);
  secret('npm', 'Publishing.', `npm_${rand(ALNUM, 36)}.md`);
  secret('anthropic', 'Keys.', `infra/sk-ant-api03-${rand(B64URL, 93)}AA.md`);

  // ---- look-alikes that are not secrets ----------------------------------------------------
  const sha = () => rand(HEX, 40);
  const uuid = () => `${rand(HEX, 8)}-${rand(HEX, 4)}-4${rand(HEX, 3)}-${pick(['8', '9', 'a', 'b'])}${rand(HEX, 3)}-${rand(HEX, 12)}`;
  clean('git', `Fixed in commit ${sha()} (see PR #4211).`);
  clean('git', `Reverted ${rand(HEX, 7)} and ${rand(HEX, 7)} after the outage.`);
  clean('git', `Tag v2.3.1 points at ${sha()}; the release branch is release/2.3.`);
  clean('uuid', `Session ${uuid()} is where we decided to drop the ORM.`);
  clean('uuid', `request_id: ${uuid()}`);
  clean('uuid', `originSessionId: ${uuid()}`);
  clean('hash', `sha256: ${rand(HEX, 64)}`);
  clean('hash', `checksum = ${rand(HEX, 64)}`);
  clean('hash', `image: ghcr.io/acme/api@sha256:${rand(HEX, 64)}`);
  clean('hash', `md5 of the fixture is ${rand(HEX, 32)}`);
  clean('hash', `"integrity": "sha512-${rand(B64, 86)}=="`);
  clean('base64', `![architecture](data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAA${rand(B64, 400)}=)`);
  clean('base64', `font: url(data:font/woff2;base64,d09GMgABAAAAA${rand(B64, 300)}) format("woff2");`);
  clean('placeholder', 'Anthropic keys look like sk-ant-xxxx; never paste one here.');
  clean('placeholder', 'ANTHROPIC_API_KEY=<your-key>');
  clean('placeholder', 'export OPENAI_API_KEY=${OPENAI_API_KEY}');
  clean('placeholder', 'api_key: "YOUR_API_KEY"');
  clean('placeholder', 'password: changeme');
  clean('placeholder', 'token: ****');
  clean('placeholder', 'password = "<password>"');
  clean('placeholder', 'api_key: xxxxxxxxxxxxxxxxxxxxxxxx');
  clean('placeholder', 'Stripe test keys start with sk_test_ and live keys with sk_live_xxxxxxxxxxxxxxxxxxxxxxxx.');
  clean('placeholder', `GitHub PATs look like ghp_${'x'.repeat(36)}`);
  clean('placeholder', 'AWS example key id AKIAIOSFODNN7EXAMPLE from the AWS docs.');
  clean('placeholder', 'aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY');
  clean('placeholder', 'Authorization: Bearer <token>');
  clean('placeholder', 'curl -H "Authorization: Bearer $API_TOKEN" https://api.internal/health');
  clean('placeholder', 'secret: "{{ .Values.apiSecret }}"');
  clean('placeholder', 'GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}');
  clean('placeholder', 'postgres://user:password@localhost:5432/app');
  clean('placeholder', 'mongodb://<user>:<password>@cluster0.mongodb.net/db');
  clean('placeholder', 'mysql://root:root@localhost/test');
  clean('placeholder', 'amqp://guest:guest@localhost:5672/');
  clean('placeholder', 'redis://:${REDIS_PASSWORD}@cache:6379');
  clean('vault', 'DB credentials: `vault kv get secret/db/prod` (needs the ops role).');
  clean('vault', "The Stripe live key is in 1Password under 'Payments / Stripe live'.");
  clean('vault', 'aws secretsmanager get-secret-value --secret-id prod/api/anthropic');
  clean('vault', 'password: op://Engineering/Postgres prod/password');
  clean('vault', 'Rotate the API token in Vault at secret/data/ci/github, then restart the runner.');
  clean('env', 'Set ANTHROPIC_API_KEY and GITHUB_TOKEN in the CI settings, never in code.');
  clean('env', 'secret: STRIPE_SECRET_KEY');
  clean('env', 'token: GITHUB_TOKEN');
  clean('env', 'password: process.env.DB_PASSWORD');
  clean('env', 'api_key = os.environ["OPENAI_API_KEY"]');
  clean('env', 'password: config.database.password');
  clean('url', 'The public API is https://api.example.com/v1/users?limit=50.');
  clean('url', 'Local DB: postgres://localhost:5432/app (no password, trust auth).');
  clean('url', 'Replica: postgres://app@db-replica.internal:5432/app');
  clean('url', 'redis://cache.internal:6379/0');
  clean('url', 'Clone with git@github.com:acme/platform.git or https://github.com/acme/platform.git');
  clean('url', 'Dashboards: https://grafana.internal/d/abc123/api-latency?orgId=1&from=now-6h');
  clean('version', 'Pinned @anthropic-ai/sdk 1.16.0 and node v20.19.0; vite 8.3.8 (8.4 breaks npm ci).');
  clean('version', 'Build 2026.03.05-rc1 shipped with schema version 42.');
  clean('words', 'pneumonoultramicroscopicsilicovolcanoconiosis is the longest word in the dictionary.');
  clean('words', 'We use internationalization keys like checkout.payment.cardDeclinedDescription.');
  clean('config', 'max_tokens: 4096');
  clean('config', 'token_count: 123456');
  clean('config', 'secret_name: prod-db-credentials');
  clean('config', 'password_policy: min 12 chars, rotate every 90 days');
  clean('config', 'tokenizer: cl100k_base');
  clean('config', 'secret: true');
  clean('config', 'password_min_length: 12');
  clean('config', 'auth_token_ttl: 3600');
  clean('config', 'api_key_header: X-Api-Key');
  clean('prose', 'The API key lives in Vault; ask Bob for access.');
  clean('prose', 'Password reset links expire after 24 hours.');
  clean('prose', 'Tokens rotate every 90 days; the rotation job runs on Sundays.');
  clean('prose', 'Never log the bearer token; the middleware strips the Authorization header.');
  clean('ids', `Stripe publishable key (public by design): pk_live_${rand(ALNUM, 24)}`);
  clean('ids', `Twilio account SID AC${rand(HEX, 32)} (an identifier, not a secret).`);
  clean('ids', 'AWS account 123456789012 hosts prod; region eu-west-1.');
  clean('ids', 'Slack channel C0123ABCD, user U024BE7LH.');
  clean('ids', `OpenAI org id org-${rand(ALNUM, 24)}`);
  clean('ids', `Sentry DSN project id 4504${rand(DIGITS, 12)}`);
  clean('css', 'Brand colours: #ff00aa, #1a2b3c, rgb(12, 34, 56).');
  clean('network', 'Bastion at 10.0.4.12:2222; VPN subnet 172.16.0.0/12.');
  // Look-alikes of the forms above.
  const block = (label: string, magic: string) =>
    `-----BEGIN ${label}-----\n${(magic + rand(B64, 64 * 6)).match(/.{1,64}/g)!.join('\n')}\n-----END ${label}-----`;
  clean('public-key', `Verify webhooks with:\n${block('PUBLIC KEY', 'MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA')}`);
  clean('public-key', indent(block('RSA PUBLIC KEY', 'MIIBCgKCAQEA'), '> '));
  clean('public-key', `deploy key (public half): ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI${rand(B64, 43)} ci@acme`);
  clean('certificate', `The internal CA:\n${indent(block('CERTIFICATE', 'MIIDdzCCAl+gAwIBAgIE'), '    ')}`);
  clean('certificate', `"ca": ${JSON.stringify(block('CERTIFICATE', 'MIIDdzCCAl+gAwIBAgIE'))}`);
  clean('placeholder', '-----BEGIN PRIVATE KEY-----\n<paste the key from 1Password here>\n-----END PRIVATE KEY-----');
  clean('placeholder', 'The bastion key is the -----BEGIN OPENSSH PRIVATE KEY----- block in Vault at secret/ssh/bastion; never paste it here.');
  clean('placeholder', '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU...\n-----END OPENSSH PRIVATE KEY-----');
  clean('url', `Guide: https://l.internal/r?u=${encodeURIComponent(`https://docs.example.com/guide?utm_source=slack&id=${uuid()}`)}`);
  clean('url', 'Search: https://grafana.internal/explore?left=%7B%22queries%22%3A%5B%7B%22expr%22%3A%22rate(http_requests_total%5B5m%5D)%22%7D%5D%7D');
  clean('html', '<!--TODO: link the dashboard once it exists-->\n<!-- owner: platform team -->');
  clean('json', '{"note": "Deploys run at 10:00.\\nAsk Mei first.\\tThanks!", "path": "C:\\\\new\\\\tools"}');
  clean('unicode', 'Mei\u200d owns deploys; 👩\u200d💻 on call this week; soft\u00adhyphen in a long word.');
  clean('names', 'A decision from that session.', `project_session_${uuid()}.md`);
  clean('names', 'Why we reverted.', `project_revert_${sha()}.md`);
  clean('names', 'Pinned image.', `reference_image_sha256_${rand(HEX, 64)}.md`);
  clean('names', 'Release notes.', 'project_2026-03-05_release_freeze.md');
  clean('names', 'No ORM.', 'feedback_no_orm_in_integration_tests.md');
  clean('names', 'Dashboards.', 'infra/reference_grafana_api_latency_dashboards.md');
  clean('names', 'Internationalization keys.', 'reference_checkout.payment.cardDeclinedDescription.md');
  return samples;
}
