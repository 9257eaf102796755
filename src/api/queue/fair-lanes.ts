import type { Queue, QueueAddOptions } from 'p-queue';

/** A task as p-queue hands it to its queue class. */
type RunFunction = () => Promise<unknown>;

/**
 * What a request waiting for a slot carries into the queue: p-queue's options
 * (`priority`: higher first, retries and probes before new requests; `id`,
 * used to remove it when its signal aborts) and its lane.
 */
export type LaneOptions = QueueAddOptions & {
  /** The lane (an account) the request belongs to. @default '' */
  lane?: string;
};

interface Waiting {
  run: RunFunction;
  priority: number;
  id?: string;
}

interface Lane {
  name: string;
  /** Virtual time of the lane's next request: its share of the service so far, in units of 1 / weight. */
  virtual: number;
  waiting: Waiting[];
}

/**
 * The requests waiting for a slot of the shared queue, handed out fairly
 * between lanes (one lane per account; docs/operations.md, "Several accounts"):
 * the highest priority first (a retry, a 429's probe), and among requests of
 * that priority, the lane furthest behind its share, in the manner of
 * start-time fair queuing. Each request a lane sends moves its virtual time on
 * by 1 / weight, so a lane of weight 2 sends two requests for each of a lane of
 * weight 1 while both wait; a lane that was idle starts level with the busiest
 * waiting lane, so it neither bursts on what it did not use nor waits behind a
 * large lane's backlog: a small account's requests interleave from its first.
 * Within a lane, requests go in the order they came.
 */
export class FairLanes implements Queue<RunFunction, LaneOptions> {
  readonly #lanes = new Map<string, Lane>();

  /** `weights`: each lane's share against the others' (absent: 1); read at every hand-out, so it may change. */
  constructor(private readonly weights: ReadonlyMap<string, number>) {}

  /** Virtual time of the last request handed out: where a lane that was idle starts. */
  #now = 0;
  #size = 0;

  get size(): number {
    return this.#size;
  }

  enqueue(run: RunFunction, options?: Partial<LaneOptions>): void {
    const lane = this.#lane(options?.lane ?? '');
    if (lane.waiting.length === 0) lane.virtual = Math.max(lane.virtual, this.#now);
    const item: Waiting = { run, priority: options?.priority ?? 0, id: options?.id };
    // Higher priority first, in the order they came within one priority.
    let at = lane.waiting.length;
    while (at > 0 && (lane.waiting[at - 1] as Waiting).priority < item.priority) at--;
    lane.waiting.splice(at, 0, item);
    this.#size += 1;
  }

  dequeue(): RunFunction | undefined {
    let best: Lane | undefined;
    for (const lane of this.#lanes.values()) {
      const head = lane.waiting[0];
      if (!head) continue;
      const bestHead = best?.waiting[0];
      if (
        !best ||
        !bestHead ||
        head.priority > bestHead.priority ||
        (head.priority === bestHead.priority && lane.virtual < best.virtual)
      ) {
        best = lane;
      }
    }
    const item = best?.waiting.shift();
    if (!best || !item) return undefined;
    this.#now = best.virtual;
    best.virtual += 1 / this.#weightOf(best);
    this.#size -= 1;
    return item.run;
  }

  filter(options: Readonly<Partial<LaneOptions>>): RunFunction[] {
    const out: RunFunction[] = [];
    for (const [name, lane] of this.#lanes) {
      if (options.lane !== undefined && options.lane !== name) continue;
      for (const w of lane.waiting)
        if (options.priority === undefined || w.priority === options.priority) out.push(w.run);
    }
    return out;
  }

  setPriority(id: string, priority: number): void {
    for (const [name, lane] of this.#lanes) {
      const found = lane.waiting.find((w) => w.id === id);
      if (!found) continue;
      this.remove(id);
      this.enqueue(found.run, { priority, id, lane: name });
      return;
    }
    throw new ReferenceError(`No promise function with the id "${id}" exists in the queue.`);
  }

  remove(id: string): void {
    for (const lane of this.#lanes.values()) {
      const at = lane.waiting.findIndex((w) => w.id === id);
      if (at < 0) continue;
      lane.waiting.splice(at, 1);
      this.#size -= 1;
      return;
    }
  }

  #lane(name: string): Lane {
    let lane = this.#lanes.get(name);
    if (!lane) {
      lane = { name, virtual: this.#now, waiting: [] };
      this.#lanes.set(name, lane);
    }
    return lane;
  }

  #weightOf(lane: Lane): number {
    const weight = this.weights.get(lane.name) ?? 1;
    return weight > 0 ? weight : 1;
  }
}

/**
 * A p-queue `queueClass` over FairLanes sharing `weights`: p-queue builds its
 * queue itself (and a new, empty one on `clear()`), so the weights live outside.
 */
export function fairQueueClass(weights: ReadonlyMap<string, number>): new () => FairLanes {
  return class FairQueue extends FairLanes {
    constructor() {
      super(weights);
    }
  };
}
