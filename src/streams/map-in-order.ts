interface Slot<R> {
  settled: boolean;
  promise?: Promise<R>;
  value?: R;
}

function isPromiseLike<R>(value: R | Promise<R>): value is Promise<R> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

/** Marks an error of `work` so it is told apart from an error of the source. */
class WorkFailure {
  constructor(readonly error: unknown) {}
}

export interface MapInOrderOptions {
  /**
   * Promises (requests) in flight at once, 1 and up: `source.rate_limit.concurrency`, checked
   * where the config enters. The request queue paces them; this only bounds memory and fairness.
   */
  concurrency: number;
  /** Results held back waiting for an earlier slow one. @default concurrency × 64 */
  maxBuffered?: number;
}

/**
 * Maps `source` through `work` with at most `concurrency` promises in flight and
 * yields the results in source order. `work` may answer synchronously (an
 * unchanged conversation needs no request): such items cost no slot.
 *
 * When the source throws (a listing error, an abort), everything already taken
 * from it is still finished and yielded before the error is rethrown, so the
 * caller can commit what is complete. A rejected `work` promise is thrown when
 * its turn comes; later results are then dropped (their promises are handled,
 * never left as unhandled rejections).
 */
export async function* mapInOrder<T, R>(
  source: AsyncIterable<T> | Iterable<T>,
  work: (item: T) => R | Promise<R>,
  options: MapInOrderOptions,
): AsyncGenerator<R> {
  const { concurrency } = options;
  const maxBuffered = options.maxBuffered ?? concurrency * 64;
  const buffer: Slot<R>[] = [];
  let inFlight = 0;

  const push = (item: T): void => {
    const result = work(item);
    if (!isPromiseLike(result)) {
      buffer.push({ settled: true, value: result });
      return;
    }
    const slot: Slot<R> = { settled: false, promise: result };
    inFlight += 1;
    const settle = () => {
      slot.settled = true;
      inFlight -= 1;
    };
    result.then(settle, settle);
    buffer.push(slot);
  };
  const take = async (): Promise<R> => {
    const slot = buffer.shift() as Slot<R>;
    if (!slot.promise) return slot.value as R;
    try {
      return await slot.promise;
    } catch (error) {
      throw new WorkFailure(error);
    }
  };
  const mustWait = (): boolean =>
    buffer.length > 0 && ((buffer[0] as Slot<R>).settled || inFlight >= concurrency || buffer.length > maxBuffered);

  let failure: { error: unknown } | undefined;
  try {
    for await (const item of source) {
      push(item);
      while (mustWait()) yield await take();
    }
  } catch (error) {
    if (error instanceof WorkFailure) throw error.error;
    failure = { error };
  }
  try {
    while (buffer.length > 0) yield await take();
  } catch (error) {
    throw error instanceof WorkFailure ? error.error : error;
  }
  if (failure) throw failure.error;
}
