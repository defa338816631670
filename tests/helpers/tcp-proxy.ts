import type { Socket, TCPSocketListener } from "bun";

/**
 * A TCP proxy in front of PostgreSQL. `cut()` drops every connection and refuses new ones, as a
 * database restart or network partition would, without touching the shared server; `restore()` heals it.
 */
export async function startTcpProxy(target: { hostname: string; port: number }) {
  const open = new Set<Socket<unknown>>();
  let listener: TCPSocketListener | null = null;
  let port = 0;

  interface Pair {
    upstream: Socket<unknown> | null;
    pending: Uint8Array[];
  }

  const listen = () =>
    Bun.listen<Pair>({
      hostname: "127.0.0.1",
      port,
      socket: {
        open(client) {
          client.data = { upstream: null, pending: [] };
          open.add(client as Socket<unknown>);
          Bun.connect({
            ...target,
            socket: {
              open(upstream) {
                open.add(upstream);
                client.data.upstream = upstream;
                for (const chunk of client.data.pending) upstream.write(chunk);
                client.data.pending = [];
              },
              data: (_, chunk) => void client.write(chunk),
              close: () => void client.end(),
              error: () => void client.end(),
            },
          }).catch(() => void client.end());
        },
        data(client, chunk) {
          if (client.data.upstream) client.data.upstream.write(chunk);
          else client.data.pending.push(new Uint8Array(chunk));
        },
        close: (client) => void client.data.upstream?.end(),
        error: (client) => void client.data.upstream?.end(),
      },
    });

  listener = listen();
  port = listener.port;
  return {
    port,
    cut() {
      listener?.stop(true);
      listener = null;
      for (const socket of open) socket.terminate();
      open.clear();
    },
    restore() {
      listener ??= listen();
    },
  };
}
