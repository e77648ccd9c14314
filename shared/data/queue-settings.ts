// The delivery queue's settings, shared by the CDK stack and the local runtime's emulation.

export const DELIVERY_QUEUE = {
  /** The delivery function's timeout: a batch's attempts run side by side, each answered within 15 s. */
  functionTimeoutSeconds: 30,
  /** Six times the function timeout (AWS's advice for SQS event sources): a batch that crashed comes back after it. */
  visibilityTimeoutSeconds: 180,
  batchSize: 10,
  /**
   * Above the 8 attempts of a delivery (each retry is a receive of the same message), with room for
   * a few crashed invocations; beyond it the message goes to the dead-letter queue and alarms.
   */
  maxReceiveCount: 12,
} as const;
