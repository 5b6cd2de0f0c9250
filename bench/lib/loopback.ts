/** The suites' own HTTP servers on loopback: listening on a free port, and closed with their keep-alive connections. */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";

/** Listens on 127.0.0.1, a free port; resolves to the server's base URL. */
export function listenLoopback(server: Server): Promise<string> {
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    ),
  );
}

/** Closes the server, keep-alive connections included (a client's pool would hold it open). */
export function closeLoopback(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
