/**
 * Progress of a long command (migrations, rebuilding the search documents), for the person at the
 * terminal: one line per step, rewritten in place as it advances, on stderr so that stdout keeps
 * its one JSON value. Silent when stderr is not a terminal (scripts, logs, CI).
 */
export type Progress = (step: string, done?: number, total?: number) => void;

export const silent: Progress = () => undefined;

const REDRAW_EVERY_MS = 100;

export function terminalProgress(
  stream: { isTTY?: boolean; write(text: string): unknown } = process.stderr,
  now: () => number = Date.now,
): Progress {
  if (!stream.isTTY) return silent;
  let current: string | null = null;
  let drawnAt = 0;
  return (step, done, total) => {
    const finished = done !== undefined && total !== undefined && done >= total;
    if (step === current && !finished && now() - drawnAt < REDRAW_EVERY_MS) return;
    if (current !== null && step !== current) stream.write("\n");
    current = step;
    drawnAt = now();
    const count =
      done === undefined
        ? ""
        : total === undefined
          ? ` ${done}`
          : ` ${done}/${total} (${total === 0 ? 100 : Math.floor((done / total) * 100)}%)`;
    // \r and "erase line": the step's line is redrawn in place.
    stream.write(`\r\x1b[K${step}${count}${finished ? "\n" : ""}`);
    if (finished) current = null;
  };
}
