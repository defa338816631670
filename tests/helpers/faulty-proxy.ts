import type { Socket } from "bun";

/** What a socket could not take yet: Bun's `write` takes what fits and says how much. */
interface Outbox {
  socket: Socket<unknown> | null;
  queue: Uint8Array[];
}

function send(outbox: Outbox, chunk: Uint8Array) {
  outbox.queue.push(chunk);
  flush(outbox);
}

function flush(outbox: Outbox) {
  const { socket, queue } = outbox;
  if (!socket) return;
  while (queue.length > 0) {
    const next = queue[0] as Uint8Array;
    const written = socket.write(next);
    if (written < next.byteLength) {
      queue[0] = next.subarray(Math.max(written, 0));
      return; // the rest goes on `drain`
    }
    queue.shift();
  }
}

interface Pair {
  toServer: Outbox;
  toClient: Outbox;
  /** Past the drop point: nothing more is forwarded until the connection is dropped. */
  stalled: boolean;
}

const STALL_MS = 300;

/**
 * A TCP proxy with one fault, once, at the `at`th byte sent towards the server: `drop` drops that
 * connection as a flaky network does mid-upload (silent for STALL_MS first, then gone); `corrupt`
 * flips that byte and passes the rest. Connections after the fault pass untouched; `faulted` tells
 * whether it has happened.
 */
export function startFaultyProxy(
  target: { hostname: string; port: number },
  at: number,
  fault: "drop" | "corrupt" = "drop",
) {
  let forwarded = 0;
  let faulted = false;
  const listener = Bun.listen<Pair>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open(client) {
        const pair: Pair = {
          toServer: { socket: null, queue: [] },
          toClient: { socket: client as Socket<unknown>, queue: [] },
          stalled: false,
        };
        client.data = pair;
        Bun.connect({
          ...target,
          socket: {
            open(upstream) {
              pair.toServer.socket = upstream;
              flush(pair.toServer);
            },
            data: (_, chunk) => send(pair.toClient, new Uint8Array(chunk)),
            drain: () => flush(pair.toServer),
            close: () => void client.end(),
            error: () => void client.end(),
          },
        }).catch(() => void client.end());
      },
      data(client, chunk) {
        if (client.data.stalled) return;
        if (!faulted && fault === "corrupt" && forwarded + chunk.byteLength >= at) {
          faulted = true;
          const bytes = new Uint8Array(chunk);
          const index = at - forwarded - 1;
          bytes[index] = (bytes[index] ?? 0) ^ 0xff;
          forwarded += bytes.byteLength;
          send(client.data.toServer, bytes);
          return;
        }
        if (!faulted && forwarded + chunk.byteLength >= at) {
          // The line goes quiet, then dies: the server gets time to read what it was sent before.
          faulted = true;
          client.data.stalled = true;
          setTimeout(() => {
            client.data.toServer.socket?.terminate();
            client.terminate();
          }, STALL_MS);
          return;
        }
        forwarded += chunk.byteLength;
        send(client.data.toServer, new Uint8Array(chunk));
      },
      drain: (client) => flush(client.data.toClient),
      close: (client) => void client.data.toServer.socket?.end(),
      error: (client) => void client.data.toServer.socket?.end(),
    },
  });
  return {
    url: `http://127.0.0.1:${listener.port}`,
    get faulted() {
      return faulted;
    },
    stop: () => listener.stop(true),
  };
}
