import type { Role } from "./roles";

/** The authenticated caller of a request. */
export interface Principal {
  userId: number;
  login: string;
  role: Role;
}
