import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";

/**
 * Holds a server to `max` open connections without turning new clients
 * away while old ones merely wait: at the cap, a new connection makes the
 * one idle the longest close (kept alive after its answers, or not yet past
 * its request's headers), and only when every connection has a request in
 * flight is the new one closed at once. Node's own `maxConnections` closes
 * every new connection at the cap, so a thousand idle sockets kept any
 * client out until a timeout freed one.
 */
export function capConnections(server: Server, max: number): void {
  const cap = new ConnectionCap(max);
  server.on("connection", (socket: Socket) => cap.admit(socket));
  // Before the server's own listener, which may answer at once.
  server.prependListener("request", (req: IncomingMessage, res: ServerResponse) =>
    cap.busy(req.socket, res),
  );
}

class ConnectionCap {
  readonly #max: number;
  /** Every open connection, with its number of requests in flight. */
  readonly #open = new Map<Socket, number>();
  /** The connections without a request in flight, idle the longest first (insertion order). */
  readonly #idle = new Set<Socket>();

  constructor(max: number) {
    this.#max = max;
  }

  admit(socket: Socket): void {
    if (this.#open.size >= this.#max) {
      const oldest = this.#idle.values().next().value;
      if (oldest === undefined) {
        socket.destroy();
        return;
      }
      this.#forget(oldest);
      oldest.destroy();
    }
    this.#open.set(socket, 0);
    this.#idle.add(socket);
    socket.once("close", () => this.#forget(socket));
  }

  busy(socket: Socket, res: ServerResponse): void {
    const inFlight = this.#open.get(socket);
    if (inFlight === undefined) return;
    this.#open.set(socket, inFlight + 1);
    this.#idle.delete(socket);
    res.once("close", () => this.#done(socket));
  }

  #done(socket: Socket): void {
    const inFlight = this.#open.get(socket);
    if (inFlight === undefined) return;
    this.#open.set(socket, inFlight - 1);
    // Added last: now the connection idle the shortest.
    if (inFlight === 1) this.#idle.add(socket);
  }

  #forget(socket: Socket): void {
    this.#open.delete(socket);
    this.#idle.delete(socket);
  }
}
