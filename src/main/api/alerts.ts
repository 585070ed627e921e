/** The Alerts view: list, dismiss, redact, allow. Thin: AlertCenter and TeamService do the work. */
import type { Handlers } from './dispatch.js';
import { typedTeam } from './team.js';

export const alertHandlers: Pick<Handlers, 'alerts.list' | 'alerts.dismiss' | 'alerts.redact' | 'alerts.allow'> = {
  async 'alerts.list'(_input, ctx) {
    return typedTeam(() => ctx.team.alerts.list());
  },
  async 'alerts.dismiss'({ id }, ctx) {
    return typedTeam(async () => ({ alert: await ctx.team.alerts.dismiss(id) }));
  },
  async 'alerts.redact'({ id, fingerprint }, ctx) {
    return typedTeam(() => ctx.team.redact(id, fingerprint));
  },
  async 'alerts.allow'({ id, fingerprint, why }, ctx) {
    return typedTeam(() => ctx.team.allow(id, fingerprint, why));
  },
};
