import { createHmac, timingSafeEqual } from "node:crypto";
import type { Database } from "../db/database";
import { siteSecret } from "../db/site-secrets";
import type { LogPosition, SyncResource } from "./change-log-repository";

/** What a sync token holds: the collection, where in its change log it stands, and the list's filters. */
export interface SyncTokenContent {
  resource: SyncResource;
  position: LogPosition;
  /** The log's history the position is of (SyncClock.epoch). */
  epoch: number;
  /** The filter parameters of the list that made the token, as validated then. */
  filters: Record<string, unknown>;
}

/** Version 2 carries the log's epoch; a token of version 1 (an earlier release) is of the first epoch. */
const VERSION = 2;
const SIGNATURE_BYTES = 16;

/**
 * Opaque, signed sync tokens: `<payload>.<signature>`, both base64url. The payload is readable
 * but signed with the site's key (SiteSecret "sync-token-key", made by a migration), so a token
 * the site did not make — altered, or from another installation — is refused, and the filters it
 * carries (validated when it was made) can be trusted as they are.
 */
export class SyncTokens {
  private key: Promise<Buffer> | undefined;

  constructor(private readonly db: Database) {}

  private siteKey(): Promise<Buffer> {
    this.key ??= siteSecret(this.db, "sync-token-key", "the sync token key");
    return this.key;
  }

  private async signature(payload: string): Promise<Buffer> {
    return createHmac("sha256", await this.siteKey())
      .update(payload)
      .digest()
      .subarray(0, SIGNATURE_BYTES);
  }

  async encode(content: SyncTokenContent): Promise<string> {
    const payload = Buffer.from(
      JSON.stringify([
        VERSION,
        content.resource,
        content.position.seq,
        content.position.itemId,
        content.filters,
        content.epoch,
      ]),
    ).toString("base64url");
    return `${payload}.${(await this.signature(payload)).toString("base64url")}`;
  }

  /** The content of a token this site made for `resource`; null for any other string. */
  async decode(token: string, resource: SyncResource): Promise<SyncTokenContent | null> {
    const [payload, signature, ...rest] = token.split(".");
    if (rest.length > 0 || !payload || !signature) return null;
    const expected = await this.signature(payload);
    const given = Buffer.from(signature, "base64url");
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    const [version, tokenResource, seq, itemId, filters, epoch = 0] = JSON.parse(
      Buffer.from(payload, "base64url").toString("utf8"),
    ) as [number, SyncResource, number, number, Record<string, unknown>, number?];
    if ((version !== VERSION && version !== 1) || tokenResource !== resource) return null;
    return { resource, position: { seq, itemId }, epoch, filters };
  }
}
