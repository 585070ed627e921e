/**
 * A long name — a project's path or folder, "-work-owner__repo" — that may wrap where it reads
 * on: after a run of `/`, `_`, `-` or `\` after other characters, so a narrow column shows it
 * whole on two or three lines instead of pushing the columns after it past the window's edge.
 * The text, and so what a search, a copy or a screen reader gets, is unchanged: the wrap points
 * are `<wbr>`.
 */
import { Fragment } from 'react';

/** The parts a name may wrap between: each ends with its run of separators ("-work-", "owner__", "repo"). */
export function wrapParts(text: string): string[] {
  return text.split(/(?<=[^-/_\\][-/_\\]+)(?=[^-/_\\])/);
}

export function Breakable({ text }: { text: string }) {
  const parts = wrapParts(text);
  return (
    <>
      {parts.map((part, i) => (
        <Fragment key={i}>
          {i > 0 && <wbr />}
          {part}
        </Fragment>
      ))}
    </>
  );
}
