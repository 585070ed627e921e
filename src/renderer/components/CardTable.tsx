/**
 * A data table of four columns or more, drawn as a card per row in a narrow window (`.grid.cards` in
 * views.css): each cell carries its column's header as `data-label`, drawn above it on the card. The
 * header is written once, in `columns`: it draws the `<th>` and labels each row's cells (a `CardRow`),
 * so a renamed header cannot drift from its card label (s43 wrote each label by hand in every table).
 */
import {
  Children,
  type HTMLAttributes,
  type ReactElement,
  type ReactNode,
  type Ref,
  type ThHTMLAttributes,
  cloneElement,
  createContext,
  isValidElement,
  useContext,
  useMemo,
} from 'react';

/** One column of a carded table. */
export interface CardColumn {
  /** The header's words: the `<th>`'s text (unless `head` draws it) and each of its cells' label on a card. */
  label: string;
  /** What the `<th>` holds instead of the plain label (the dashboard's sort buttons). */
  head?: ReactNode;
  /** The `<th>`'s own attributes (a class, aria-sort, a title). */
  th?: ThHTMLAttributes<HTMLTableCellElement>;
  /** Its cells are drawn without the label on a card: the card's title across its top (the first column). */
  bare?: boolean;
  /** Its cells take a card's whole width: sentences holding a path or a URL, whose parts would not fit a narrow column. */
  wide?: boolean;
}

/** What a row needs of its columns: their labels, and which go without one. */
type CellLabel = Pick<CardColumn, 'label' | 'bare' | 'wide'>;
const Columns = createContext<readonly CellLabel[]>([]);

export function CardTable({
  columns,
  label,
  className,
  bodyRef,
  children,
}: {
  columns: readonly CardColumn[];
  /** The table's accessible name. */
  label: string;
  className?: string;
  bodyRef?: Ref<HTMLTableSectionElement>;
  /** Its rows: `CardRow`s. */
  children: ReactNode;
}) {
  // The same value while the labels are the same: a new header (a sort arrow) does not redraw every row.
  const key = JSON.stringify(columns.map((c) => [c.label, c.bare ?? false, c.wide ?? false]));
  const labels = useMemo(() => (JSON.parse(key) as [string, boolean, boolean][]).map(([label, bare, wide]) => ({ label, bare, wide })), [key]);
  return (
    <table className={`grid cards${className ? ` ${className}` : ''}`} aria-label={label}>
      <thead>
        <tr>
          {columns.map((c) => (
            <th key={c.label} {...c.th}>
              {c.head ?? c.label}
            </th>
          ))}
        </tr>
      </thead>
      <tbody ref={bodyRef}>
        <Columns.Provider value={labels}>{children}</Columns.Provider>
      </tbody>
    </table>
  );
}

/**
 * A row of a `CardTable`: its cells (`<td>` elements, as direct children or arrays of them, one per column in
 * order) get their column's label.
 */
export function CardRow({ children, ...tr }: HTMLAttributes<HTMLTableRowElement>) {
  const columns = useContext(Columns);
  let at = 0;
  return (
    <tr {...tr}>
      {Children.map(children, (cell) => {
        if (!isValidElement(cell)) return cell;
        const column = columns[at++];
        if (!column) return cell;
        const props = cell.props as { className?: string };
        return cloneElement(cell as ReactElement<{ 'data-label'?: string; className?: string }>, {
          ...(column.bare ? {} : { 'data-label': column.label }),
          ...(column.wide ? { className: props.className ? `${props.className} wide` : 'wide' } : {}),
        });
      })}
    </tr>
  );
}
