import { routes } from '#shared/edge/routes/index.ts';
import { liveRoutes } from '#shared/edge/triggers.ts';

// What the local runtime did during the metered part of the day, in the units AWS bills:
// every handler invocation (from the runtime's onInvoke), DynamoDB's consumed capacity (the data
// layer's client asks for it), and the bytes the process wrote to stdout and stderr (the functions'
// logs; in Lambda they go to CloudWatch).

export interface Invocation {
  handler: string;
  ms: number;
  cpuMs: number;
  records: number;
  sqs: boolean;
}

const HTTP_HANDLERS = new Set(routes.map((r) => r.handler));
const SOCKET_MESSAGE_HANDLERS = new Set(liveRoutes.filter((r) => !r.routeKey.startsWith('$')).map((r) => r.handler));

export class Meter {
  on = false;
  invocations: Invocation[] = [];
  logBytes = 0;
  logLines = 0;
  /** Custom metrics seen in the embedded-metric-format lines: namespace, name and dimension values. */
  metrics = new Set<string>();
  private capacity = { read: 0, write: 0, calls: 0 };
  /** The data layer's sums, read once the runtime has set its environment (the client is made on import). */
  private consumed: typeof this.capacity | null = null;
  private readonly restore: Array<() => void> = [];

  /** The runtime's onInvoke. */
  readonly onInvoke = (handler: string, event: unknown, took: { ms: number; cpuMs: number }) => {
    if (!this.on) return;
    const records = (event as { Records?: Array<{ eventSource?: string }> } | null)?.Records;
    this.invocations.push({
      handler,
      ms: took.ms,
      cpuMs: Math.min(took.ms, took.cpuMs),
      records: records?.length ?? 1,
      sqs: records?.[0]?.eventSource === 'aws:sqs',
    });
  };

  /** Counts what the process prints from now on, passing it through only when `echo`. */
  captureLogs(echo: boolean) {
    for (const stream of [process.stdout, process.stderr]) {
      const write = stream.write.bind(stream);
      stream.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
        if (this.on) {
          const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
          this.logBytes += Buffer.byteLength(text);
          for (const line of text.split('\n')) {
            if (!line) continue;
            this.logLines++;
            if (line.includes('"_aws"')) this.readMetrics(line);
          }
        }
        return echo ? write(chunk as string, ...(rest as [])) : true;
      }) as typeof stream.write;
      this.restore.push(() => {
        stream.write = write;
      });
    }
  }

  private readMetrics(line: string) {
    try {
      const emf = JSON.parse(line) as {
        _aws?: {
          CloudWatchMetrics?: Array<{ Namespace: string; Dimensions: string[][]; Metrics: Array<{ Name: string }> }>;
        };
      } & Record<string, unknown>;
      for (const d of emf._aws?.CloudWatchMetrics ?? []) {
        for (const m of d.Metrics) {
          for (const dims of d.Dimensions.length ? d.Dimensions : [[]]) {
            this.metrics.add(`${d.Namespace}/${m.Name}/${dims.map((k) => `${k}=${String(emf[k])}`).join(',')}`);
          }
        }
      }
    } catch {
      /* not a metric line */
    }
  }

  stopCapture() {
    for (const r of this.restore.splice(0)) r();
  }

  /** Starts metering: what happened before (setup, warm-up) is not counted. */
  async start() {
    this.consumed ??= (await import('#shared/data/client.ts')).consumedCapacity;
    this.on = true;
    this.invocations = [];
    this.logBytes = 0;
    this.logLines = 0;
    this.metrics.clear();
    this.capacity = { ...this.consumed };
  }

  stop() {
    this.on = false;
  }

  /** Read and write request units since start(). */
  dynamo() {
    const c = this.consumed ?? this.capacity;
    return {
      read: c.read - this.capacity.read,
      write: c.write - this.capacity.write,
      calls: c.calls - this.capacity.calls,
    };
  }

  httpRequests() {
    return this.invocations.filter((i) => HTTP_HANDLERS.has(i.handler)).length;
  }
  socketMessagesIn() {
    return this.invocations.filter((i) => SOCKET_MESSAGE_HANDLERS.has(i.handler)).length;
  }
  socketConnects() {
    return this.invocations.filter((i) => i.handler === 'live/connect').length;
  }
}
