import {
  ApiGatewayManagementApiClient,
  DeleteConnectionCommand,
  GoneException,
  PostToConnectionCommand,
} from '@aws-sdk/client-apigatewaymanagementapi';
import { config } from '#shared/core/config.ts';

// Frames to live connections through the WebSocket API's management endpoint (locally, the
// runtime's emulation of it, which the same client speaks to).

let client: ApiGatewayManagementApiClient | undefined;
const managementClient = () => {
  if (client) return client;
  const endpoint = config.liveEndpoint;
  const local = endpoint.startsWith('http://');
  client = new ApiGatewayManagementApiClient({
    region: config.region,
    endpoint,
    maxAttempts: 2,
    // Locally the management endpoint checks the signature as IAM auth does (local/standins.ts).
    ...(local ? { credentials: config.localCredentials } : {}),
  });
  return client;
};

const isGone = (e: unknown) =>
  e instanceof GoneException || (e as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 410;

/** Sends one text frame; false when the connection is gone. */
export async function postToConnection(connectionId: string, data: string): Promise<boolean> {
  try {
    await managementClient().send(new PostToConnectionCommand({ ConnectionId: connectionId, Data: Buffer.from(data) }));
    return true;
  } catch (e) {
    if (isGone(e)) return false;
    throw e;
  }
}

/** Closes a connection from the server's side; one that is gone already is fine. */
export async function closeConnection(connectionId: string): Promise<void> {
  try {
    await managementClient().send(new DeleteConnectionCommand({ ConnectionId: connectionId }));
  } catch (e) {
    if (!isGone(e)) throw e;
  }
}
