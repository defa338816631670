import { existsSync } from "node:fs";

/**
 * Whether this process runs in a container: Docker's `/.dockerenv`, Podman's `/run/.containerenv`,
 * the `container` variable systemd-nspawn, Podman and LXC set, or a Kubernetes pod. There, the
 * container's own network is the boundary and depot must listen on every interface to be reached.
 */
export function runsInContainer(env: Record<string, string | undefined> = process.env): boolean {
  return (
    existsSync("/.dockerenv") ||
    existsSync("/run/.containerenv") ||
    Boolean(env.container) ||
    Boolean(env.KUBERNETES_SERVICE_HOST)
  );
}
