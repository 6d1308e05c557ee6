/**
 * The listening socket of `npm start`, held by the supervisor so that a crashed web process loses no
 * connection (docs/architecture.md#processes).
 *
 * The supervisor listens on PORT itself and hands every accepted connection, unread (`pauseOnConnect`),
 * to the web process over IPC (Node passes the socket's file descriptor). While no web process is ready
 * (it crashed and is being restarted, about two seconds), connections wait here and are handed to the new
 * one as soon as it reports ready: a sender sees a slower answer, not a refused connection. Connections
 * already handed to a web process that then dies are lost with it (their requests were not answered, so
 * nothing accepted is lost).
 *
 * The web process takes the connections with {@link acceptRelayedSockets}.
 */
import type { ChildProcess } from "node:child_process";
import type http from "node:http";
import net from "node:net";

/** IPC message that carries one connection (the socket is the message's handle). */
const SOCKET_MESSAGE = "hookyard:socket";
/** Connections kept waiting while no web process is ready; more are closed at once. */
const RELAY_MAX_WAITING = 10_000;
/** How long a connection may wait for a web process, ms; then it is closed. */
const RELAY_MAX_WAIT_MS = 30_000;

export type SocketRelay = {
  /** Hands connections to `child` from now on (call once it reported ready), first those that waited. */
  attach(child: ChildProcess): void;
  /** No web process is ready: connections wait (call when it exits or stops). */
  detach(): void;
  /** Connections waiting now. */
  waiting(): number;
  /** Stops listening and closes every waiting connection. */
  close(): Promise<void>;
};

/**
 * Listens on `port`/`host` (resolves once listening; rejects with the listen error, e.g. EADDRINUSE or
 * EACCES) and relays connections to the attached web process.
 */
export async function listenAndRelay(port: number, host: string): Promise<SocketRelay> {
  const queue: { socket: net.Socket; since: number }[] = [];
  let target: ChildProcess | null = null;
  const server = net.createServer({ pauseOnConnect: true, noDelay: true });

  const hand = (socket: net.Socket) => {
    const child = target;
    if (!child?.connected) return wait(socket);
    child.send(SOCKET_MESSAGE, socket, (err) => {
      // The child went away between the check and the send: the connection waits for the next one.
      if (err && !socket.destroyed) wait(socket);
    });
  };
  const wait = (socket: net.Socket) => {
    if (queue.length >= RELAY_MAX_WAITING) return void socket.destroy();
    queue.push({ socket, since: Date.now() });
  };
  const sweep = setInterval(() => {
    const limit = Date.now() - RELAY_MAX_WAIT_MS;
    while (queue.length && queue[0].since < limit) queue.shift()!.socket.destroy();
  }, 1000);
  sweep.unref();

  server.on("connection", hand);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  return {
    attach(child) {
      target = child;
      for (const { socket } of queue.splice(0)) if (!socket.destroyed) hand(socket);
    },
    detach() {
      target = null;
    },
    waiting: () => queue.length,
    close() {
      clearInterval(sweep);
      for (const { socket } of queue.splice(0)) socket.destroy();
      // The listener closes at once; handed connections belong to the web process (not waited for here).
      server.close();
      return Promise.resolve();
    },
  };
}

/**
 * One sentence of cause and remedy when listening on `port` failed (EADDRINUSE, EACCES), else null.
 */
export function listenFailureMessage(err: unknown, port: number): string | null {
  const code = (err as NodeJS.ErrnoException)?.code;
  if (code === "EADDRINUSE") return `Port ${port} is in use by another program; stop it or set PORT to a free port.`;
  if (code === "EACCES") return `Port ${port} needs privileges this user lacks; set PORT to a port above 1023.`;
  return null;
}

/**
 * In the web process: serves the connections the supervisor relays ({@link listenAndRelay}) with
 * `server`, which does not listen itself. Starts Node's connection checks (requestTimeout,
 * headersTimeout), which an http.Server otherwise starts only when it listens.
 */
export function acceptRelayedSockets(server: http.Server): void {
  server.emit("listening");
  process.on("message", (message, handle) => {
    if (message === SOCKET_MESSAGE && handle instanceof net.Socket) server.emit("connection", handle);
  });
}
