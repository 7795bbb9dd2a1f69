import type { Schemas } from "../../http/operation-types";

/** A flag of a write body in any form the spec accepts (`true`, `"1"`, `"FALSE"`, `0`...), as the boolean it stands for. */
export function flagOf(flag: Schemas["WriteFlag"]): boolean {
  return typeof flag === "string" ? /^(true|1)$/i.test(flag) : flag === true || flag === 1;
}

/** A flag a write may leave out (undefined: unchanged). */
export function givenFlag(flag: Schemas["WriteFlag"] | undefined): boolean | undefined {
  return flag === undefined ? undefined : flagOf(flag);
}
