/** The database kinds the service runs on. */
export type Provider = "sqlite" | "postgresql";
