import type { Socket, TCPSocketListener } from "bun";

/** How long a connection dropped by `faultTowardsServer` stays silent before it goes. */
const STALL_MS = 300;

/**
 * A TCP proxy in front of PostgreSQL (or any server). `cut()` drops every connection and refuses new
 * ones, as a database restart would, without touching the shared server; `blackhole()` keeps every
 * connection and accepts new ones but lets nothing through either way, as a network that drops
 * packets; `restore()` heals both. `cutAfter(n)` cuts once `n` more bytes have reached the clients: a
 * download broken off in the middle. `faultTowardsServer` drops or damages one upload in the middle.
 */
export async function startTcpProxy(target: { hostname: string; port: number }) {
  const open = new Set<Socket<unknown>>();
  const clients = new Set<Socket<Pair>>();
  /** Nothing passes; what is sent waits, as TCP retransmits it, and arrives once the network heals. */
  let blackholed = false;
  let listener: TCPSocketListener | null = null;
  let port = 0;
  /** Bytes clients may still receive before the armed cut, and what to call then (cutAfter). */
  let budget: { left: number; done: () => void } | null = null;
  /** The armed fault on the way to the server (faultTowardsServer): at which byte, and what. */
  let fault: { at: number; kind: "drop" | "corrupt"; seen: number; happened: boolean } | null = null;

  interface Pair {
    upstream: Socket<Pair> | null;
    /** Bytes for the upstream server that arrived before it was connected. */
    pending: Uint8Array[];
    /** Bytes the other side could not take yet (Bun's socket.write is unbuffered): flushed on drain. */
    backlog: Uint8Array[];
    /** The other side closed: end this one once its backlog is out. */
    ending: boolean;
    /** Past an armed drop: nothing more is forwarded until the connection is dropped. */
    stalled: boolean;
    /** Bytes for the client that arrived while blackholed. */
    held: Uint8Array[];
  }
  const pair = (): Pair => ({
    upstream: null,
    pending: [],
    backlog: [],
    ending: false,
    stalled: false,
    held: [],
  });

  const cut = () => {
    listener?.stop(true);
    listener = null;
    blackholed = false;
    for (const socket of open) socket.terminate();
    open.clear();
    clients.clear();
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

  /** Towards the server: the armed fault happens at its byte; null when nothing is to be forwarded. */
  const towardsServer = (client: Socket<Pair>, chunk: Uint8Array): Uint8Array | null => {
    if (client.data.stalled) return null;
    if (fault === null || fault.happened || fault.seen + chunk.byteLength < fault.at) {
      if (fault && !fault.happened) fault.seen += chunk.byteLength;
      return chunk;
    }
    fault.happened = true;
    if (fault.kind === "corrupt") {
      const index = fault.at - fault.seen - 1;
      chunk[index] = (chunk[index] ?? 0) ^ 0xff;
      return chunk;
    }
    // The line goes quiet, then dies: the server gets time to read what it was sent before.
    client.data.stalled = true;
    setTimeout(() => {
      client.data.upstream?.terminate();
      client.terminate();
    }, STALL_MS);
    return null;
  };

  const connectUpstream = (client: Socket<Pair>) =>
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
        data(_, chunk) {
          if (blackholed) client.data.held.push(new Uint8Array(chunk));
          else toClient(client, new Uint8Array(chunk));
        },
        drain,
        close: () => endWhenDrained(client),
        error: () => endWhenDrained(client),
      },
    }).catch(() => void client.end());

  /** After a blackhole: what waited goes through, and connections accepted meanwhile reach the server. */
  const release = () => {
    for (const client of clients) {
      for (const chunk of client.data.held) toClient(client, chunk);
      client.data.held = [];
      const { upstream } = client.data;
      if (upstream === null) {
        void connectUpstream(client);
        continue;
      }
      for (const chunk of client.data.pending) send(upstream, chunk);
      client.data.pending = [];
    }
  };

  const listen = () =>
    Bun.listen<Pair>({
      hostname: "127.0.0.1",
      port,
      socket: {
        open(client) {
          client.data = pair();
          open.add(client as Socket<unknown>);
          clients.add(client);
          if (!blackholed) void connectUpstream(client);
        },
        data(client, chunk) {
          const bytes = towardsServer(client, new Uint8Array(chunk));
          if (bytes === null) return;
          if (client.data.upstream && !blackholed) send(client.data.upstream, bytes);
          else client.data.pending.push(bytes);
        },
        drain,
        close(client) {
          clients.delete(client);
          if (client.data.upstream) endWhenDrained(client.data.upstream);
        },
        error(client) {
          clients.delete(client);
          if (client.data.upstream) endWhenDrained(client.data.upstream);
        },
      },
    });

  listener = listen();
  port = listener.port;
  return {
    port,
    cut,
    blackhole() {
      listener ??= listen();
      blackholed = true;
    },
    restore() {
      listener ??= listen();
      if (!blackholed) return;
      blackholed = false;
      release();
    },
    /**
     * One fault, once, at the `at`th byte clients send from now on: `drop` drops that connection as
     * a flaky network does mid-upload (silent for STALL_MS, then gone), `corrupt` flips that byte and
     * passes the rest. Later connections pass untouched; `faulted` says whether it has happened.
     */
    faultTowardsServer(at: number, kind: "drop" | "corrupt") {
      fault = { at, kind, seen: 0, happened: false };
    },
    get faulted() {
      return fault?.happened === true;
    },
    /** Cuts (as `cut()`) once `bytes` more bytes have been sent to clients; resolves when it has. */
    cutAfter(bytes: number): Promise<void> {
      return new Promise((done) => {
        budget = { left: bytes, done };
      });
    },
  };
}
