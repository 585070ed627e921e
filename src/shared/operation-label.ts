/**
 * How an extraction operation is named in a line that says what became of it (the CLI, the
 * review log): its file — `team/` first for a team memory — or, when the model gave no usable
 * file name, words that say so (never an empty name before the colon).
 */
export function operationLabel(operation: { file: string; scope: 'private' | 'team' }): string {
  if (operation.file === '') return 'an operation without a file name';
  return `${operation.scope === 'team' ? 'team/' : ''}${operation.file}`;
}
