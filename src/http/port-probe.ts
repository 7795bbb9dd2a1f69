import { createSocket } from "node:dgram";
import { connect } from "node:net";

/**
 * Whether the service may listen on its port, found out before anything is migrated, without
 * listening: a probe that listened would accept the connections a proxy sends it at that moment
 * (a rolling restart's retries) and then reset them as it closed, a 502 for a POST. So: the
 * address is bound in UDP (it must be one of this machine's, and a port below 1024 needs
 * privileges, as in TCP), and a TCP connection is tried (one that is answered means another
 * program listens). Rejects with the error a TCP listen would give (EADDRINUSE, EACCES,
 * EADDRNOTAVAIL, ENOTFOUND); a case neither probe sees is still told by the real listen.
 */
export async function probePort(port: number, host: string): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const socket = createSocket(host.includes(":") ? "udp6" : "udp4");
    socket.once("error", (error: NodeJS.ErrnoException) => {
      socket.close();
      // A UDP program on the same number is no TCP listener.
      if (error.code === "EADDRINUSE") resolve();
      else reject(error);
    });
    socket.bind(port, host, () => socket.close(() => resolve()));
  });
  if (port === 0) return;
  const target = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host;
  const answered = await new Promise<boolean>((resolve) => {
    const socket = connect({ port, host: target, timeout: 1_000 });
    socket.once("connect", () => (socket.destroy(), resolve(true)));
    socket.once("error", () => resolve(false));
    socket.once("timeout", () => (socket.destroy(), resolve(false)));
  });
  if (answered) throw Object.assign(new Error(`${host}:${port} is in use`), { code: "EADDRINUSE" });
}
