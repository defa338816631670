/**
 * A port for a server a test spawns as its own process (which must be told its port up front).
 *
 * Picked below Linux's ephemeral range (32768–60999 by default), where the kernel hands out the
 * local ports of outgoing connections: a port in that range can be taken by any fetch or database
 * connection between our pick and the child's bind. The port is also bound once here to check that
 * no other listener holds it; another test may still take it before the child binds, so callers
 * that can, retry (see startServer).
 */
export function unusedPort(): number {
  for (;;) {
    const port = 10_000 + Math.floor(Math.random() * 22_000);
    try {
      Bun.listen({ hostname: "127.0.0.1", port, socket: { data() {} } }).stop(true);
      return port;
    } catch {
      // held by another listener: pick again
    }
  }
}
