/** Plain `node:http` servers on 127.0.0.1, for tests that need a port of their own. */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** Listens on `port` (0: any free one) on loopback; resolves with the port, rejects on EADDRINUSE. */
export function listenOn(server: Server, port = 0): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve((server.address() as AddressInfo).port));
  });
}

/** Closes `server`, keep-alive connections included, so that its port is free again. */
export const closeServer = (server: Server) =>
  new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });

/** A port that was free a moment ago. */
export async function freePort(): Promise<number> {
  const probe = createServer();
  const port = await listenOn(probe);
  await closeServer(probe);
  return port;
}
