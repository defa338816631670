import type { Socket, TCPSocketListener } from "bun";

/**
 * A TCP proxy in front of PostgreSQL (or any server). `cut()` drops every connection and refuses new
 * ones, as a database restart or network partition would, without touching the shared server;
 * `restore()` heals it. `cutAfter(n)` cuts once `n` more bytes have reached the clients: a download
 * broken off in the middle.
 */
export async function startTcpProxy(target: { hostname: string; port: number }) {
  const open = new Set<Socket<unknown>>();
  let listener: TCPSocketListener | null = null;
  let port = 0;
  /** Bytes clients may still receive before the armed cut, and what to call then (cutAfter). */
  let budget: { left: number; done: () => void } | null = null;

  interface Pair {
    upstream: Socket<Pair> | null;
    /** Bytes for the upstream server that arrived before it was connected. */
    pending: Uint8Array[];
    /** Bytes the other side could not take yet (Bun's socket.write is unbuffered): flushed on drain. */
    backlog: Uint8Array[];
    /** The other side closed: end this one once its backlog is out. */
    ending: boolean;
  }
  const pair = (): Pair => ({ upstream: null, pending: [], backlog: [], ending: false });

  const cut = () => {
    listener?.stop(true);
    listener = null;
    for (const socket of open) socket.terminate();
    open.clear();
  };

  /** Writes all of `chunk` eventually: what the socket does not take now waits for its drain. */
  const send = (socket: Socket<Pair>, chunk: Uint8Array) => {
    if (socket.data.backlog.length > 0) {
      socket.data.backlog.push(chunk);
      return;
    }
    const written = socket.write(chunk);
    if (written >= 0 && written < chunk.byteLength) socket.data.backlog.push(chunk.subarray(written));
  };

  const drain = (socket: Socket<Pair>) => {
    while (socket.data.backlog.length > 0) {
      const chunk = socket.data.backlog[0] as Uint8Array;
      const written = socket.write(chunk);
      if (written < 0) return;
      if (written < chunk.byteLength) {
        socket.data.backlog[0] = chunk.subarray(written);
        return;
      }
      socket.data.backlog.shift();
    }
    if (socket.data.ending) socket.end();
  };

  const endWhenDrained = (socket: Socket<Pair>) => {
    socket.data.ending = true;
    if (socket.data.backlog.length === 0) socket.end();
  };

  /** Towards a client: counted against an armed cut; once the budget is spent nothing more gets through. */
  const toClient = (client: Socket<Pair>, chunk: Uint8Array) => {
    if (budget === null) return send(client, chunk);
    if (budget.left === 0) return;
    const allowed = chunk.subarray(0, budget.left);
    budget.left -= allowed.byteLength;
    send(client, allowed);
    if (budget.left > 0) return;
    const { done } = budget;
    // Let what was allowed reach the client first, then drop everything.
    setTimeout(() => {
      budget = null;
      cut();
      done();
    }, 50);
  };

  const listen = () =>
    Bun.listen<Pair>({
      hostname: "127.0.0.1",
      port,
      socket: {
        open(client) {
          client.data = pair();
          open.add(client as Socket<unknown>);
          Bun.connect<Pair>({
            ...target,
            data: pair(),
            socket: {
              open(upstream) {
                open.add(upstream as Socket<unknown>);
                client.data.upstream = upstream;
                for (const chunk of client.data.pending) send(upstream, chunk);
                client.data.pending = [];
              },
              data: (_, chunk) => toClient(client, new Uint8Array(chunk)),
              drain,
              close: () => endWhenDrained(client),
              error: () => endWhenDrained(client),
            },
          }).catch(() => void client.end());
        },
        data(client, chunk) {
          if (client.data.upstream) send(client.data.upstream, new Uint8Array(chunk));
          else client.data.pending.push(new Uint8Array(chunk));
        },
        drain,
        close: (client) => void (client.data.upstream && endWhenDrained(client.data.upstream)),
        error: (client) => void (client.data.upstream && endWhenDrained(client.data.upstream)),
      },
    });

  listener = listen();
  port = listener.port;
  return {
    port,
    cut,
    restore() {
      listener ??= listen();
    },
    /** Cuts (as `cut()`) once `bytes` more bytes have been sent to clients; resolves when it has. */
    cutAfter(bytes: number): Promise<void> {
      return new Promise((done) => {
        budget = { left: bytes, done };
      });
    },
  };
}
