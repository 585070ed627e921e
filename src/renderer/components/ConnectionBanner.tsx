/**
 * What the page says when Memdir does not answer it (stores/connection.ts): while the event
 * stream reconnects (what the page shows may be out of date, and changes cannot be saved), or
 * for good when the page belongs to an earlier run of the headless host. Once the stream is live
 * again the banner goes, and the stores read again what changed meanwhile (live-events.ts).
 * The live region is always there, so screen readers announce what appears in it.
 */
import { useConnection } from '../stores/connection.js';

export function ConnectionBanner() {
  const status = useConnection((s) => s.status);
  return (
    <div className="connection" role="status" aria-live="polite">
      {status === 'down' && (
        <div className="banner info">
          Memdir is not answering — reconnecting… <span className="muted">What this page shows may be out of date until it is back.</span>
        </div>
      )}
      {status === 'refused' && (
        <div className="banner warning">
          This page belongs to an earlier run of Memdir: open the link Memdir printed when it started. Drafts Memdir kept are there; an edit it said it could
          not keep is only on this page, so copy it first.
        </div>
      )}
    </div>
  );
}
