import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from "node:fs";
import { join } from "node:path";
import { PRIVATE_FILE } from "../file-modes.ts";

/** Another live process holds the embedded database. */
export class DataDirInUse extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(
      `The embedded database in ${dataDir} is in use by another depot process (pid ${pid}). ` +
        "Stop it first, or point DATABASE_URL at PostgreSQL to run several processes.",
    );
  }
}

export interface EmbeddedLock {
  release(): void;
}

/**
 * PGlite is one process, one connection: a second process opening the same files would corrupt them.
 * A pid file created with O_EXCL marks ownership; one left by a dead process is taken over.
 */
export function lockDataDir(dataDir: string): EmbeddedLock {
  const path = join(dataDir, "depot.pid");
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(path, "wx", PRIVATE_FILE);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return { release: () => releaseIfOurs(path) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const holder = readPid(path);
    if (holder !== null && holder !== process.pid && isAlive(holder)) throw new DataDirInUse(dataDir, holder);
    // Stale: its process is gone (or it is our own pid reused after a container restart).
    unlinkSync(path);
  }
  throw new Error(`Could not lock ${dataDir}: ${path} keeps reappearing.`);
}

function readPid(path: string): number | null {
  try {
    const pid = Number.parseInt(readFileSync(path, "utf8"), 10);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

function releaseIfOurs(path: string) {
  if (readPid(path) === process.pid) unlinkSync(path);
}
