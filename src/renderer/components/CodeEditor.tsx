/**
 * CodeMirror as every text box of the app uses it (a memory's body, MEMORY.md, a merge result):
 * named on the editable element a screen reader reads (not on CodeMirror's outer box, which no one
 * focuses), and Tab moves on to the next control, as everywhere else — with Tab indenting, a
 * keyboard user who tabbed in was caught.
 */
import CodeMirror, { EditorView, type Extension, type ReactCodeMirrorProps } from '@uiw/react-codemirror';
import { useMemo } from 'react';

const NONE: Extension[] = [];

export function CodeEditor({
  label,
  extensions = NONE,
  ...props
}: Omit<ReactCodeMirrorProps, 'extensions' | 'indentWithTab'> & { label: string; extensions?: Extension[] }) {
  const named = useMemo(() => [...extensions, EditorView.contentAttributes.of({ 'aria-label': label, tabindex: '0' })], [extensions, label]);
  return <CodeMirror {...props} extensions={named} indentWithTab={false} />;
}
