import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Context } from 'aws-lambda';
import { lambdaContext } from './events.ts';

// Lambda's part: a function's handler module is imported once per file and kept, as a warm
// container keeps it, and invoked with a Lambda context (events.ts).

const ROOT = fileURLToPath(new URL('..', import.meta.url));

export type LambdaHandler = (event: unknown, context: Context) => Promise<unknown>;

export interface FunctionsOptions {
  /** The file of a handler module by its declared name; default `functions/<name>.ts`. */
  resolveHandler?: (handler: string) => string;
  /** Told of every invocation once it ends, with its wall time and the process's CPU time meanwhile. */
  onInvoke?: (handler: string, event: unknown, took: { ms: number; cpuMs: number }) => void;
}

export interface Functions {
  /** The file a handler is loaded from. */
  file(handler: string): string;
  load(handler: string): Promise<LambdaHandler>;
  /** Invokes a handler with a context whose remaining time counts down from `timeoutMs`. */
  invoke(handler: string, event: unknown, timeoutMs?: number): Promise<unknown>;
}

const defaultHandlerFile = (handler: string) => join(ROOT, 'functions', `${handler}.ts`);

// Shared by every runtime in the process, as the modules are.
const handlers = new Map<string, Promise<LambdaHandler>>();
const loadModule = (file: string) => {
  let h = handlers.get(file);
  if (!h) {
    h = import(pathToFileURL(file).href).then((m: { handler: LambdaHandler }) => m.handler);
    handlers.set(file, h);
  }
  return h;
};

export function createFunctions(opts: FunctionsOptions = {}): Functions {
  const file = opts.resolveHandler ?? defaultHandlerFile;
  const observed = (name: string, fn: LambdaHandler): LambdaHandler => {
    const onInvoke = opts.onInvoke;
    return onInvoke
      ? async (event, context) => {
          const t = performance.now();
          const cpu = process.cpuUsage();
          try {
            return await fn(event, context);
          } finally {
            const used = process.cpuUsage(cpu);
            onInvoke(name, event, { ms: performance.now() - t, cpuMs: (used.user + used.system) / 1000 });
          }
        }
      : fn;
  };
  const load = async (name: string) => observed(name, await loadModule(file(name)));
  return {
    file,
    load,
    invoke: async (name, event, timeoutMs) => (await load(name))(event, lambdaContext({ handler: name }, timeoutMs)),
  };
}
