/**
 * Runs tasks one at a time, in call order, within this process: a check-then-write on an invoice is
 * never interleaved with another here. Other instances are kept out by the store's compare-and-set.
 */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.tail.then(task);
    this.tail = result.catch(() => undefined);
    return result;
  }
}
