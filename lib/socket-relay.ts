/**
 * The listening socket of `npm start`, held by the supervisor so that a crashed web process loses no
 * connection (docs/architecture.md#processes).
 *
 * The supervisor listens on PORT itself and hands every accepted connection, unread (`pauseOnConnect`),
 * to the web process over IPC (Node passes the socket's file descriptor). While no web process is ready
 * (it crashed and is being restarted, about two seconds), connections wait here and are handed to the new
 * one as soon as it reports ready: a sender sees a slower answer, not a refused connection. A handed
 * connection stays the supervisor's until the web process says it took it (an acknowledgement over IPC,
 * sent before the process reads a byte): one the dying process never took goes to the next web process.
 * Only connections the dead process had taken are lost with it (their requests were not answered, so
 * nothing accepted is lost).
 *
 * The web process takes the connections with {@link acceptRelayedSockets}.
 */
import type { ChildProcess } from "node:child_process";
import type http from "node:http";
import net from "node:net";

/** IPC message that carries one connection (the socket is the message's handle) and its number. */
type SocketMessage = { type: "hookyard:socket"; id: number };
/** IPC message of the web process: it took connection `id`. */
type TakenMessage = { type: "hookyard:socket-taken"; id: number };
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
  // Handed to `target` and not yet acknowledged: still ours, handed again if it dies first.
  const handed = new Map<number, net.Socket>();
  let nextId = 0;
  const server = net.createServer({ pauseOnConnect: true, noDelay: true });

  const hand = (socket: net.Socket) => {
    const child = target;
    if (!child?.connected) return wait(socket);
    const id = ++nextId;
    handed.set(id, socket);
    const message: SocketMessage = { type: "hookyard:socket", id };
    // keepOpen: the descriptor stays open here until the web process acknowledges it.
    child.send(message, socket, { keepOpen: true }, (err) => {
      // The child went away between the check and the send: the connection waits for the next one.
      if (err && handed.delete(id) && !socket.destroyed) wait(socket);
    });
  };
  const taken = (message: unknown) => {
    const m = message as Partial<TakenMessage> | null;
    if (m?.type !== "hookyard:socket-taken" || typeof m.id !== "number") return;
    const socket = handed.get(m.id);
    handed.delete(m.id);
    // Closes only this process's descriptor: the connection lives on in the web process.
    socket?.destroy();
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
      child.on("message", taken);
      for (const { socket } of queue.splice(0)) if (!socket.destroyed) hand(socket);
    },
    detach() {
      target?.off("message", taken);
      target = null;
      // Never acknowledged: the process died before taking them; unread, they wait for the next one.
      for (const socket of handed.values()) if (!socket.destroyed) wait(socket);
      handed.clear();
    },
    waiting: () => queue.length,
    close() {
      clearInterval(sweep);
      for (const { socket } of queue.splice(0)) socket.destroy();
      for (const socket of handed.values()) socket.destroy();
      handed.clear();
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
    const m = message as Partial<SocketMessage> | null;
    if (m?.type !== "hookyard:socket" || typeof m.id !== "number" || !(handle instanceof net.Socket)) return;
    // Acknowledged before the first byte is read (the server reads on a later turn of the event loop).
    const ack: TakenMessage = { type: "hookyard:socket-taken", id: m.id };
    process.send?.(ack);
    server.emit("connection", handle);
  });
}
