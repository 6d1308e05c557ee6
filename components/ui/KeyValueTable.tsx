/** A two-column table of names and values (headers, query and form parameters), rendered as text. */
export function KeyValueTable({
  rows,
  emptyText,
  "data-testid": testId,
  nameLabel = "Name",
}: {
  rows: [string, string][];
  emptyText: string;
  "data-testid"?: string;
  nameLabel?: string;
}) {
  if (rows.length === 0) {
    return (
      <p data-testid={testId} className="px-4 py-3 text-sm text-zinc-500 dark:text-zinc-400">
        {emptyText}
      </p>
    );
  }
  return (
    <div className="overflow-x-auto">
      <table data-testid={testId} className="w-full table-fixed border-collapse text-left font-mono text-xs">
        <colgroup>
          <col className="w-[38%] sm:w-[30%]" />
          <col />
        </colgroup>
        <thead className="sr-only">
          <tr>
            <th scope="col">{nameLabel}</th>
            <th scope="col">Value</th>
          </tr>
        </thead>
        <tbody className="divide-y divide-zinc-100 dark:divide-zinc-800/80">
          {rows.map(([name, value], i) => (
            <tr key={`${name}-${i}`} className="align-top hover:bg-zinc-50 dark:hover:bg-zinc-800/40">
              <th scope="row" className="px-4 py-1.5 font-medium [overflow-wrap:anywhere] text-zinc-500 sm:w-[30%] dark:text-zinc-400">
                {name}
              </th>
              <td className="px-4 py-1.5 whitespace-pre-wrap text-zinc-900 [overflow-wrap:anywhere] dark:text-zinc-100">{value}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
