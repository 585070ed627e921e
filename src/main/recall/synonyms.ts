/**
 * Query expansion with a small curated table of everyday software terms, English ↔ Chinese
 * (and common abbreviations), so "数据库迁移" finds a memory written as "database migration"
 * and "k8s" finds "Kubernetes". The table is generic developer vocabulary, written before and
 * independently of the labelled queries; expanded terms weigh less than the user's own words
 * (EXPANSION_WEIGHT), so they rerank more than they reorder.
 */
import { DEFAULT_TOKENIZE, type TokenizeOptions, isCjk, tokenize } from './tokenize.js';

/** Each group: words that mean the same thing for recall. */
export const SYNONYM_GROUPS: readonly (readonly string[])[] = [
  ['database', 'db', '数据库'],
  ['test', 'tests', 'testing', '测试', '单测', '单元测试'],
  ['integration test', 'e2e', '集成测试', '端到端'],
  ['deploy', 'deployment', '部署', '上线'],
  ['release', '发布', '发版', '版本发布'],
  ['ci', 'pipeline', '持续集成', '流水线'],
  ['bug', 'defect', '缺陷', 'bug单'],
  ['error', 'exception', '错误', '报错', '异常'],
  ['log', 'logging', 'logs', '日志'],
  ['config', 'configuration', 'settings', '配置', '设置'],
  ['documentation', 'docs', 'doc', '文档'],
  ['api', 'endpoint', '接口'],
  ['frontend', 'front-end', 'ui', '前端'],
  ['backend', 'back-end', 'server', '后端', '服务端'],
  ['code review', 'review', 'pr', 'pull request', '代码审查', '评审', '审查'],
  ['commit', '提交'],
  ['branch', '分支'],
  ['merge', '合并'],
  ['performance', 'perf', 'slow', '性能', '慢'],
  ['latency', 'response time', '延迟', '响应时间'],
  ['security', '安全'],
  ['secret', 'password', 'credential', 'key', '密码', '密钥', '凭证'],
  ['cache', 'caching', '缓存'],
  ['monitoring', 'monitor', 'metrics', '监控', '指标'],
  ['dashboard', 'grafana', '看板', '仪表盘', '面板'],
  ['alert', 'alerting', 'page', '告警', '报警'],
  ['deadline', 'due date', '截止', '截止日期', '期限'],
  ['meeting', 'standup', '会议', '例会', '站会'],
  ['customer', 'client', '客户'],
  ['payment', 'billing', '支付', '付款', '账单'],
  ['order', '订单'],
  ['search', '搜索', '检索'],
  ['migration', 'migrate', '迁移'],
  ['dependency', 'dependencies', 'package', 'library', '依赖', '库'],
  ['version', '版本'],
  ['upgrade', 'update', '升级', '更新'],
  ['format', 'formatting', 'formatter', 'prettier', '格式', '格式化'],
  ['lint', 'linter', 'eslint', '代码检查'],
  ['style', 'convention', '风格', '规范', '约定'],
  ['typescript', 'ts', '类型'],
  ['mobile', 'ios', 'android', '移动端', '手机'],
  ['translation', 'i18n', 'localization', '翻译', '国际化', '本地化'],
  ['queue', 'kafka', '队列', '消息队列'],
  ['schedule', 'plan', 'roadmap', '计划', '排期', '路线图'],
  ['on-call', 'oncall', 'rota', '值班', '轮值'],
  ['incident', 'outage', 'postmortem', '事故', '故障', '复盘'],
  ['infrastructure', 'infra', '基础设施'],
  ['container', 'docker', 'image', '容器', '镜像'],
  ['kubernetes', 'k8s', 'cluster', '集群'],
  ['preference', 'prefer', 'prefers', 'like', '偏好', '喜欢', '习惯'],
  ['explain', 'explanation', '解释', '讲解'],
  ['english', '英文', '英语'],
  ['chinese', '中文', '汉语'],
  ['comment', 'comments', '注释'],
  ['naming', 'name', '命名'],
  ['function', '函数'],
  ['refactor', 'refactoring', '重构'],
  ['authentication', 'auth', 'login', 'sign in', 'sso', '认证', '鉴权', '登录'],
  ['permission', 'access', '权限'],
  ['backup', '备份'],
  ['budget', 'cost', '预算', '成本', '费用'],
  ['design', 'mockup', 'figma', '设计', '设计稿'],
  ['ticket', 'issue', 'jira', '工单', '需求单'],
  ['team', '团队'],
  ['owner', 'manager', 'lead', '负责人', '经理'],
  ['report', 'reporting', '报表', '报告'],
  ['email', 'mail', '邮件', '邮箱'],
  ['notification', 'notify', '通知'],
  ['freeze', 'code freeze', '冻结', '封版'],
  ['rollback', 'revert', '回滚', '回退'],
  ['staging', 'pre-production', '预发', '预发布'],
  ['production', 'prod', 'live', '生产', '线上', '生产环境'],
  ['python', 'py'],
  ['javascript', 'js', 'node', 'nodejs'],
  ['sql', 'query', '查询'],
  ['orm', 'prisma', 'sequelize', 'typeorm'],
  ['timezone', 'time zone', 'utc', '时区'],
  ['date', 'time', '日期', '时间'],
  ['user', 'users', '用户'],
  ['password reset', '重置密码'],
  ['tab', 'tabs', 'indent', 'indentation', '缩进'],
  ['git', 'repository', 'repo', '仓库'],
  ['server', 'host', 'machine', '服务器', '机器'],
  ['network', 'vpn', 'proxy', '网络', '代理'],
  ['tool', 'tooling', '工具'],
  ['architecture', '架构'],
  ['contract', 'agreement', '合同', '协议'],
  ['legal', 'compliance', 'gdpr', '法务', '合规'],
  ['analytics', 'tracking', 'event', '埋点', '分析'],
  ['experiment', 'a/b test', 'feature flag', '实验', '灰度', '开关'],
  ['screen reader', 'accessibility', 'a11y', '无障碍'],
];

/** How much an expanded term counts relative to a word of the query. */
export const EXPANSION_WEIGHT = 0.6;

interface Member {
  raw: string;
  tokens: string[];
  cjk: boolean;
}

const cache = new Map<string, Member[][]>();

function groups(options: TokenizeOptions): Member[][] {
  const key = JSON.stringify(options);
  let built = cache.get(key);
  if (!built) {
    built = SYNONYM_GROUPS.map((group) =>
      group.map((raw) => {
        const normalised = raw.normalize('NFKC').toLowerCase();
        return { raw: normalised, tokens: tokenize(normalised, options), cjk: isCjk(normalised) };
      }),
    );
    cache.set(key, built);
  }
  return built;
}

/**
 * Terms to add to a query: for each group one of whose members the query contains (a CJK
 * member as a substring, a Latin one as all of its terms), the terms of the other members.
 * Returns only terms not already in `queryTerms`.
 */
export function expandQuery(query: string, queryTerms: readonly string[], options: TokenizeOptions = DEFAULT_TOKENIZE): string[] {
  const normalised = query.normalize('NFKC').toLowerCase();
  const have = new Set(queryTerms);
  const added = new Set<string>();
  for (const group of groups(options)) {
    const hit = group.some((m) => (m.cjk ? normalised.includes(m.raw) : m.tokens.length > 0 && m.tokens.every((t) => have.has(t))));
    if (!hit) continue;
    for (const member of group) for (const term of member.tokens) if (!have.has(term)) added.add(term);
  }
  return [...added];
}
