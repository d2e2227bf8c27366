/**
 * Keeps a long-running command alive until SIGINT or SIGTERM, then runs `stop` once. A second signal while stopping
 * forces the exit, so an operator is never stuck behind a hung shutdown.
 */
export function runUntilSignal(stop: () => Promise<void>, log: (line: string) => void): Promise<void> {
  return new Promise<void>((resolve) => {
    let stopping = false;
    const onSignal = (signal: NodeJS.Signals) => {
      if (stopping) {
        log(`${signal} again: exiting now`);
        process.exit(130);
      }
      stopping = true;
      log(`${signal} received: stopping...`);
      stop().then(
        () => resolve(),
        (error: unknown) => {
          log(`stopping failed: ${(error as Error).message}`);
          process.exitCode = 1;
          resolve();
        },
      );
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}
