/**
 * The one way a delete asks first — one memory from its editor, several picked in the list: the
 * question names what goes (the first few and how many more), says it stays in history and that
 * Undo brings it back; Keep has the focus, so Enter does not delete; Escape keeps, and focus goes
 * back to `returnTo` (the Delete button that asked).
 */
import type { RefObject } from 'react';
import { Question } from './DialogFocus.js';

/** How many names the question spells out before "and N more". */
const NAMED = 5;

/** The question before deleting `names` (file names as the list shows them). */
export function deleteQuestion(names: readonly string[]): string {
  if (names.length === 1) return `Delete ${names[0]}? It stays in history, and Undo brings it back with its index line.`;
  const shown = names.length <= NAMED ? names : names.slice(0, NAMED);
  const rest = names.length - shown.length;
  const listed = rest > 0 ? `${shown.join(', ')} and ${rest} more` : `${shown.slice(0, -1).join(', ')} and ${shown.at(-1)}`;
  return `Delete ${names.length} memories (${listed})? They stay in history, and Undo brings them back with their index lines.`;
}

export function ConfirmDelete({
  names,
  onDelete,
  onKeep,
  returnTo,
}: {
  names: readonly string[];
  onDelete: () => void;
  onKeep: () => void;
  returnTo?: RefObject<HTMLElement | null>;
}) {
  return (
    <Question label="Confirm delete" onClose={onKeep} returnTo={returnTo}>
      <span>{deleteQuestion(names)}</span>
      <button type="button" className="danger" onClick={onDelete}>
        Delete
      </button>
      <button type="button" onClick={onKeep} autoFocus>
        Keep
      </button>
    </Question>
  );
}
