// Whose turn it is at the model. A model call holds the thread for its whole length (tens of ms),
// and in the local runtime every function shares one process: without turns, four senders' long
// messages and the indexer's batches run interleaved with another tenant's short message, which
// waits for all of them. With turns, one call runs at a time; the next is the oldest of the tenant
// after the one last served (round robin), and work of no tenant's request (the indexer) goes when
// no request waits. In AWS a container serves one invocation at a time, so nothing ever waits here.

/** A tenant's request (its id) or, `undefined`, background work. */
export type Lane = string | undefined;

export interface Turns {
  /** Resolves when it is this lane's turn; call the release it gives once the model call is done. */
  take(lane: Lane): Promise<() => void>;
}

export function turns(): Turns {
  let busy = false;
  // Insertion order is the round robin: a lane served and still waiting goes to the back.
  const waiting = new Map<string, Array<() => void>>();
  const background: Array<() => void> = [];

  const next = () => {
    const lane = waiting.keys().next();
    if (!lane.done) {
      const queue = waiting.get(lane.value)!;
      waiting.delete(lane.value);
      const go = queue.shift()!;
      if (queue.length) waiting.set(lane.value, queue);
      return go;
    }
    return background.shift();
  };

  const release = () => {
    const go = next();
    if (go) go();
    else busy = false;
  };

  return {
    take(lane) {
      if (!busy) {
        busy = true;
        return Promise.resolve(once(release));
      }
      return new Promise((resolve) => {
        const go = () => resolve(once(release));
        if (lane === undefined) background.push(go);
        else {
          const queue = waiting.get(lane);
          if (queue) queue.push(go);
          else waiting.set(lane, [go]);
        }
      });
    },
  };
}

/** A release that counts once, however often it is called. */
function once(release: () => void) {
  let done = false;
  return () => {
    if (done) return;
    done = true;
    release();
  };
}
