// What bench/record-statements.ts records of a write and bench/statement-anchor-server.ts runs again.

/** The header that asks the recording process to record a request's statements. */
export const RECORD_HEADER = "x-record-statements";

export interface RecordedStatement {
  sql: string;
  /** Its values as the driver got them, tagged where JSON would lose their type (encodeValue). */
  values: unknown[];
  /** PostgreSQL: whether it was sent as a named (prepared) statement. */
  named?: boolean;
  /** The rows an INSERT ... RETURNING gave (the ids later statements use), encoded as `values`. */
  returned?: Array<Record<string, unknown>>;
}

/** JSON keeps no bigint, and a Date or a Buffer would come back as text: they are written as tagged objects. */
export function encodeValue(value: unknown): unknown {
  if (typeof value === "bigint") return { $bigint: value.toString() };
  if (value instanceof Date) return { $date: value.toISOString() };
  if (Buffer.isBuffer(value)) return { $base64: value.toString("base64") };
  return value;
}

export function decodeValue(value: unknown): unknown {
  if (value === null || typeof value !== "object") return value;
  const tagged = value as { $bigint?: string; $date?: string; $base64?: string };
  if (tagged.$bigint !== undefined) return BigInt(tagged.$bigint);
  if (tagged.$date !== undefined) return new Date(tagged.$date);
  if (tagged.$base64 !== undefined) return Buffer.from(tagged.$base64, "base64");
  return value;
}
