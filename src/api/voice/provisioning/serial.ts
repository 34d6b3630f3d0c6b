/**
 * Provisioning writes check, then write (a free id, a unique number, a reference); the directory's
 * write is asynchronous, so two requests could both pass the check. The writes of one server take
 * turns instead.
 */
const tails = new WeakMap<object, Promise<unknown>>();

export function inTurn<T>(server: object, write: () => Promise<T>): Promise<T> {
  const run = (tails.get(server) ?? Promise.resolve()).then(write, write);
  tails.set(
    server,
    run.catch(() => undefined),
  );
  return run;
}
