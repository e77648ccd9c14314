import { ApiGatewayManagementApiClient, GoneException, PostToConnectionCommand } from '@aws-sdk/client-apigatewaymanagementapi';
import { config } from '#shared/core/config.ts';

// Frames to live connections through the WebSocket API's management endpoint (locally, the
// runtime's emulation of it, which the same client speaks to).

let client: ApiGatewayManagementApiClient | undefined;
const managementClient = () => {
  if (client) return client;
  const endpoint = config.liveEndpoint;
  const local = endpoint.startsWith('http://');
  client = new ApiGatewayManagementApiClient({
    region: config.region, endpoint, maxAttempts: 2,
    ...(local ? { credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
  });
  return client;
};

/** Sends one text frame; false when the connection is gone. */
export async function postToConnection(connectionId: string, data: string): Promise<boolean> {
  try {
    await managementClient().send(new PostToConnectionCommand({ ConnectionId: connectionId, Data: Buffer.from(data) }));
    return true;
  } catch (e) {
    if (e instanceof GoneException || (e as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 410) return false;
    throw e;
  }
}
