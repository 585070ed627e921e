/** The Alerts view: list, dismiss, redact, rename (a secret in a name), allow. Thin: AlertCenter and TeamService do the work. */
import type { Handlers } from './dispatch.js';

export const alertHandlers: Pick<Handlers, 'alerts.list' | 'alerts.dismiss' | 'alerts.redact' | 'alerts.rename' | 'alerts.allow'> = {
  async 'alerts.list'(_input, ctx) {
    return ctx.team.alerts.list();
  },
  async 'alerts.dismiss'({ id }, ctx) {
    return { alert: await ctx.team.alerts.dismiss(id) };
  },
  async 'alerts.redact'({ id, fingerprint }, ctx) {
    return ctx.team.redact(id, fingerprint);
  },
  async 'alerts.rename'({ id, fingerprint, to }, ctx) {
    return ctx.team.rename(id, fingerprint, to);
  },
  async 'alerts.allow'({ id, fingerprint, why }, ctx) {
    return ctx.team.allow(id, fingerprint, why);
  },
};
