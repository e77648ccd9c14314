import autocannon from 'autocannon';

// POST /chat/message through the local runtime's HTTP server: `connections` widget sessions at
// once. Each connection loops over a session of `perSession` messages: the first starts a
// conversation, the others continue it (autocannon resets the context at each loop), which stays
// under the 30 messages a minute per conversation.

export interface LoadResult {
  connections: number;
  durationS: number;
  requests: number;
  rps: number;
  latencyMs: { p50: number; p90: number; p99: number; max: number };
  status: { '2xx': number; '4xx': number; '5xx': number };
  errors: number;
  timeouts: number;
}

export async function chatLoad(
  url: string,
  widgetKey: string,
  connections = 50,
  durationS = 15,
  perSession = 20,
): Promise<LoadResult> {
  const headers = { 'content-type': 'application/json', 'x-widget-key': widgetKey };
  const path = '/api/v1/chat/message';
  type Ctx = { conversationId?: string };
  const first = {
    method: 'POST' as const,
    path,
    headers,
    body: JSON.stringify({ message: 'hi, I need help with my order' }),
    onResponse: (status: number, body: string, context: Ctx) => {
      if (status === 200) context.conversationId = (JSON.parse(body) as { conversationId: string }).conversationId;
    },
  };
  const follow = (i: number) => ({
    method: 'POST' as const,
    path,
    headers,
    setupRequest: (req: Record<string, unknown>, context: Ctx) => ({
      ...req,
      body: JSON.stringify({
        ...(context.conversationId ? { conversationId: context.conversationId } : {}),
        message: `where is order ${1000 + i}?`,
      }),
    }),
  });
  const result = await autocannon({
    url,
    connections,
    duration: durationS,
    timeout: 10,
    requests: [first, ...Array.from({ length: perSession - 1 }, (_, i) => follow(i))] as never,
  });
  return {
    connections,
    durationS,
    requests: result.requests.total,
    rps: result.requests.average,
    latencyMs: { p50: result.latency.p50, p90: result.latency.p90, p99: result.latency.p99, max: result.latency.max },
    status: { '2xx': result['2xx'], '4xx': result['4xx'], '5xx': result['5xx'] },
    errors: result.errors,
    timeouts: result.timeouts,
  };
}
