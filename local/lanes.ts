import { availableParallelism } from 'node:os';
import { SHARE_ENV, Worker } from 'node:worker_threads';

// Lambda runs every invocation in a sandbox of its own, so one tenant's busy chat never takes CPU
// from another tenant's. The local runtime has one thread; with lanes (runtime.ts), the public chat
// routes run in worker threads, one widget key to a lane, so a tenant flooding its widget fills its
// own lane and another tenant's message runs on another thread (bench:hostile, issue 42); the
// stream's, queues' and SES's functions run in a lane of their own. Within a lane invocations
// interleave as on the main thread: a tenant's customers never wait for each other's answers. A
// lane imports the same handler files the main thread would, with the same environment
// (SHARE_ENV: the runtime's settings made before and after the lane starts).

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  handler: string;
  event: unknown;
}

/** An invocation's wall time, and the CPU time of its lane's thread meanwhile. */
export type Took = { ms: number; cpuMs: number };

interface Lane {
  worker: Worker;
  pending: Map<number, Pending>;
  keys: number;
}

export interface Lanes {
  /**
   * Invokes the handler in the key's lane (a lane is chosen for a new key: the one with the fewest
   * keys), with a context counting down from `timeoutMs` (lambda.ts's default without it).
   */
  invoke(key: string, handler: string, file: string, event: unknown, timeoutMs?: number): Promise<unknown>;
  stop(): Promise<void>;
}

/**
 * The background functions' lane and one for each of the first tenants; later tenants share them.
 * More lanes than cores, so that a busy tenant and a quiet one are not put in one lane; each lane
 * that answers chat holds its own sentence encoder (about 230 MB), as each Lambda sandbox does.
 */
export const defaultLaneCount = () => Math.max(4, availableParallelism() + 2);

export function createLanes(
  max = defaultLaneCount(),
  onInvoke?: (handler: string, event: unknown, took: Took) => void,
): Lanes {
  const lanes: Lane[] = [];
  const byKey = new Map<string, Lane>();
  let next = 0;

  const start = (): Lane => {
    const worker = new Worker(new URL('./lane-worker.ts', import.meta.url), { env: SHARE_ENV });
    const lane: Lane = { worker, pending: new Map(), keys: 0 };
    worker.on(
      'message',
      (m: { id: number; result?: unknown; error?: { message: string; stack?: string }; took: Took }) => {
        const p = lane.pending.get(m.id);
        if (!p) return;
        lane.pending.delete(m.id);
        onInvoke?.(p.handler, p.event, m.took);
        if (m.error) p.reject(Object.assign(new Error(m.error.message), { stack: m.error.stack }));
        else p.resolve(m.result);
      },
    );
    worker.on('error', (e) => {
      for (const p of lane.pending.values()) p.reject(e);
      lane.pending.clear();
    });
    // A lane that ended (a crash) takes no more keys; its keys get a new lane on their next message.
    worker.on('exit', () => {
      for (const [k, l] of byKey) if (l === lane) byKey.delete(k);
      lanes.splice(lanes.indexOf(lane), 1);
    });
    worker.unref();
    lanes.push(lane);
    return lane;
  };

  const laneFor = (key: string): Lane => {
    let lane = byKey.get(key);
    if (!lane) {
      lane = lanes.length < max ? start() : lanes.reduce((a, b) => (b.keys < a.keys ? b : a));
      lane.keys++;
      byKey.set(key, lane);
    }
    return lane;
  };

  return {
    invoke(key, handler, file, event, timeoutMs) {
      const lane = laneFor(key);
      const id = next++;
      return new Promise((resolve, reject) => {
        lane.pending.set(id, { resolve, reject, handler, event });
        lane.worker.postMessage({ id, handler, file, event, timeoutMs });
      });
    },
    async stop() {
      await Promise.all(lanes.map((l) => l.worker.terminate()));
    },
  };
}
