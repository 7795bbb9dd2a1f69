/**
 * The entries of `desired` (column → value a write wants) whose values differ from `current`'s,
 * dates compared as instants: what an UPDATE must set, and nothing else, so that triggers on
 * columns it does not change do not fire and concurrent writes of other columns are not undone.
 */
export function changedColumns<T extends object>(current: object, desired: T): Partial<T> {
  const before = current as Record<string, unknown>;
  const changed: Partial<T> = {};
  for (const [key, value] of Object.entries(desired) as Array<[keyof T & string, unknown]>) {
    const old = before[key];
    const same = value instanceof Date && old instanceof Date ? value.getTime() === old.getTime() : value === old;
    if (!same) changed[key] = value as T[keyof T & string];
  }
  return changed;
}
