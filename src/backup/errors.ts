/** A backup or restore that cannot go on; the CLI prints the message as one line and exits 1. */
export class BackupFailed extends Error {}
