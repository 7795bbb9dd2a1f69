import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { pinnedLookup, resolveWithin, type ResolvedAddress } from "../../net/outbound-guard";

/**
 * Sending one notification: to an address that is not refused (server-side request forgery), with
 * a time limit, without following redirects.
 */

/** The receivers' policy: the operator's own networks with WEBHOOK_ALLOW_PRIVATE_TARGETS. */
export const privateTargets = (allowPrivate: boolean) => ({ allowPrivate, setting: "WEBHOOK_ALLOW_PRIVATE_TARGETS" });

export interface SendOptions {
  timeoutMs: number;
  allowPrivate: boolean;
}

/** How one attempt went: the receiver's status, or why there was none. */
export interface SendResult {
  statusCode: number | null;
  durationMs: number;
  error: string | null;
}

const USER_AGENT = "calendar-events-webhooks/1";
// Receivers' answers are not read; this much is drained so that the connection ends cleanly.
const MAX_ANSWER_BYTES = 64 * 1024;

/**
 * POSTs `body` to `url` with `headers`. The host is resolved first and every address checked; the
 * connection goes to the first checked address (a second lookup could answer otherwise).
 */
export async function sendNotification(
  url: string,
  headers: Record<string, string>,
  body: string,
  options: SendOptions,
): Promise<SendResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  let target: URL;
  let addresses: ResolvedAddress[];
  try {
    target = new URL(url);
    addresses = await resolveWithin(target, privateTargets(options.allowPrivate), options.timeoutMs);
  } catch (error) {
    return { statusCode: null, durationMs: elapsed(), error: (error as Error).message };
  }
  const remainingMs = Math.max(1, options.timeoutMs - elapsed());
  const send = target.protocol === "https:" ? httpsRequest : httpRequest;
  return new Promise<SendResult>((resolve) => {
    let settled = false;
    const finish = (result: Omit<SendResult, "durationMs">) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...result, durationMs: elapsed() });
    };
    const outgoing = send(
      target,
      {
        method: "POST",
        lookup: pinnedLookup(addresses[0]),
        headers: {
          ...headers,
          "content-type": "application/json",
          "content-length": Buffer.byteLength(body),
          "user-agent": USER_AGENT,
        },
      },
      (answer: IncomingMessage) => {
        let read = 0;
        answer.on("data", (chunk: Buffer) => {
          read += chunk.length;
          if (read > MAX_ANSWER_BYTES) answer.destroy();
        });
        const done = () => finish({ statusCode: answer.statusCode ?? null, error: null });
        answer.on("end", done);
        answer.on("close", done);
        answer.on("error", done);
      },
    );
    const timer = setTimeout(() => {
      finish({ statusCode: null, error: `no answer within ${options.timeoutMs} ms` });
      outgoing.destroy();
    }, remainingMs);
    outgoing.on("error", (error) => finish({ statusCode: null, error: error.message }));
    outgoing.end(body);
  });
}
