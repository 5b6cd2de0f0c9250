/**
 * Runs `task`s one after another, in call order: the appends of one process
 * to one log never overlap, whatever else serialises them across processes.
 */
export function serial(): <T>(task: () => Promise<T>) => Promise<T> {
  let tail: Promise<unknown> = Promise.resolve();
  return (task) => {
    const run = tail.then(task, task);
    tail = run.catch(() => undefined);
    return run;
  };
}
