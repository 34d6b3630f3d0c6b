/**
 * Provisioning writes check, then write (a free id, a unique number, a reference); the directory's
 * write is asynchronous, so two requests could both pass the check. They take turns instead.
 */
let tail: Promise<unknown> = Promise.resolve();

export function inTurn<T>(write: () => Promise<T>): Promise<T> {
  const run = tail.then(write, write);
  tail = run.catch(() => undefined);
  return run;
}
