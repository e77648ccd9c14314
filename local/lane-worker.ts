import { parentPort } from 'node:worker_threads';
import { createFunctions } from './lambda.ts';

// One lane of lanes.ts: invokes the handler files it is sent, kept loaded as a warm container keeps
// them, with a Lambda context, and posts each result back with the invocation's wall time and this
// thread's CPU time meanwhile (with other invocations of the lane interleaved, as in process).

const files = new Map<string, string>();
const functions = createFunctions({ resolveHandler: (handler) => files.get(handler)! });

parentPort!.on(
  'message',
  async (m: { id: number; handler: string; file: string; event: unknown; timeoutMs?: number }) => {
    files.set(m.handler, m.file);
    const t = performance.now();
    const cpu = process.threadCpuUsage();
    const took = () => {
      const used = process.threadCpuUsage(cpu);
      return { ms: performance.now() - t, cpuMs: (used.user + used.system) / 1000 };
    };
    try {
      const result = await functions.invoke(m.handler, m.event, m.timeoutMs);
      parentPort!.postMessage({ id: m.id, result, took: took() });
    } catch (e) {
      const error = e as Error;
      parentPort!.postMessage({
        id: m.id,
        error: { message: String(error?.message ?? e), stack: error?.stack },
        took: took(),
      });
    }
  },
);
