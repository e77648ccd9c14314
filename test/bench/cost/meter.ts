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
  /** Units by kind of call and item (`PutItem DELIVERIES/dlv`), for the breakdown of the top items. */
  readonly byItem = new Map<string, { read: number; write: number; calls: number }>();
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
    if (!this.consumed) {
      const client = await import('#shared/data/client.ts');
      this.consumed = client.consumedCapacity;
      client.capacityListeners.push((command, input, units) => {
        if (!this.on) return;
        const key = `${command.replace(/Command\b/, '')} ${itemKinds(input)}`;
        const b = this.byItem.get(key) ?? { read: 0, write: 0, calls: 0 };
        b.read += units.read;
        b.write += units.write;
        b.calls++;
        this.byItem.set(key, b);
      });
    }
    this.byItem.clear();
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

/** A key's kind without its ids: `TENANT#t#DELIVERIES#int_1` + `dlv_01..` is `DELIVERIES/dlv`. */
function keyKind(key: Record<string, unknown> | undefined): string {
  const str = (v: unknown) => (typeof v === 'string' ? v : ((v as { S?: string } | undefined)?.S ?? ''));
  const tokens = (s: string) => s.split('#').filter((t) => /^[A-Z][A-Z_]*$/.test(t));
  const pk = tokens(str(key?.pk)).filter((t) => t !== 'TENANT');
  const sk = str(key?.sk);
  const skKind = tokens(sk)[0] ?? sk.split('_')[0] ?? '';
  return `${pk.join('#') || '-'}/${/^[a-z]+$/.test(skKind) || /^[A-Z]/.test(skKind) ? skKind : '?'}`;
}

/** The kinds of item a call touched, for the breakdown. */
function itemKinds(input: unknown): string {
  const i = input as {
    Key?: Record<string, unknown>;
    Item?: Record<string, unknown>;
    IndexName?: string;
    KeyConditionExpression?: string;
    ExpressionAttributeValues?: Record<string, unknown>;
    TransactItems?: Array<Record<string, { Key?: Record<string, unknown>; Item?: Record<string, unknown> }>>;
    RequestItems?: Record<
      string,
      | Array<Record<string, { Key?: Record<string, unknown>; Item?: Record<string, unknown> }>>
      | { Keys?: Array<Record<string, unknown>> }
    >;
  };
  if (i.Key || i.Item) return keyKind(i.Key ?? i.Item);
  if (i.TransactItems)
    return [
      ...new Set(
        i.TransactItems.map((t) => {
          const op = Object.values(t)[0]!;
          return keyKind(op.Key ?? op.Item);
        }),
      ),
    ]
      .sort()
      .join('+');
  if (i.RequestItems) {
    const kinds = new Set<string>();
    for (const v of Object.values(i.RequestItems)) {
      if (Array.isArray(v))
        for (const r of v) {
          const op = Object.values(r)[0]!;
          kinds.add(keyKind(op.Key ?? op.Item));
        }
      else for (const k of v.Keys ?? []) kinds.add(keyKind(k));
    }
    return [...kinds].sort().join('+');
  }
  if (i.KeyConditionExpression) {
    const first = Object.values(i.ExpressionAttributeValues ?? {})[0];
    return `${i.IndexName ?? 'table'} ${keyKind({ pk: first })}`;
  }
  return '?';
}
