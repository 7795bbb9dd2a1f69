import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { verifyMessage } from "../../src/resources/webhooks/webhook-signature";

/** One request a receiver got. */
export interface Received {
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  json: { type: string; timestamp: string; data: { resource: string; id: number; item?: Record<string, any> } };
  at: number;
  /** The status it was answered with; none while (or when) it is left unanswered. */
  answered?: number;
}

/**
 * What the receiver does with a request: answer a status, answer it after a wait, or never
 * answer (`hang`). Decided per request by `respond` (which may count attempts).
 */
export type Answer = number | { status: number; afterMs: number } | "hang";

/** A real HTTP receiver of webhooks on 127.0.0.1, recording every request (even unanswered ones). */
export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  respond: (request: Received) => Answer;
  /** Waits until `predicate` holds of what was received. */
  waitFor(predicate: (received: Received[]) => boolean, timeoutMs?: number): Promise<Received[]>;
  /** The requests whose signature `secret` verifies. */
  verified(secret: string): Received[];
  close(): Promise<void>;
}

export async function startReceiver(port = 0): Promise<Receiver> {
  const hanging = new Set<ServerResponse>();
  const receiver = {
    received: [] as Received[],
    respond: (() => 200) as (request: Received) => Answer,
  } as Receiver;
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => (body += chunk));
    req.on("end", () => {
      const request: Received = {
        id: String(req.headers["webhook-id"]),
        timestamp: String(req.headers["webhook-timestamp"]),
        signature: String(req.headers["webhook-signature"]),
        body,
        json: JSON.parse(body),
        at: Date.now(),
      };
      receiver.received.push(request);
      const answer = receiver.respond(request);
      if (answer === "hang") {
        hanging.add(res);
        return;
      }
      const [status, afterMs] = typeof answer === "number" ? [answer, 0] : [answer.status, answer.afterMs];
      setTimeout(() => {
        request.answered = status;
        res.writeHead(status).end();
      }, afterMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", () => resolve()));
  receiver.port = (server.address() as AddressInfo).port;
  receiver.url = `http://127.0.0.1:${receiver.port}/hook`;
  receiver.waitFor = async (predicate, timeoutMs = 15_000) => {
    const deadline = Date.now() + timeoutMs;
    while (!predicate(receiver.received)) {
      if (Date.now() > deadline)
        throw new Error(
          `the receiver did not get what was expected; it got: ${JSON.stringify(receiver.received.map((r) => [r.id, r.json.type, r.json.data.id]))}`,
        );
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return receiver.received;
  };
  receiver.verified = (secret) => receiver.received.filter((request) => verifyMessage(secret, request, request.body));
  receiver.close = async () => {
    for (const res of hanging) res.destroy();
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  };
  return receiver;
}
