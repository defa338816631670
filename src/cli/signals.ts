/** Resolves with the name of the first SIGTERM or SIGINT. */
export function untilSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const onSignal = (signal: NodeJS.Signals) => {
      process.off("SIGTERM", onSignal);
      process.off("SIGINT", onSignal);
      resolve(signal);
    };
    process.on("SIGTERM", onSignal);
    process.on("SIGINT", onSignal);
  });
}
