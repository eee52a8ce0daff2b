import {
  isJSONRPCErrorResponse,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type RequestId,
  type WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";

/**
 * Ends the SSE stream of a 2025-11-25 POST whose request the client cancelled.
 *
 * On `notifications/cancelled` the SDK aborts the handler and, as the spec asks, sends no response
 * for that request; but its transport closes a POST's stream only after the response, so the
 * client's POST stayed open until the session ended. Ending the stream without a response is what
 * the spec allows (the receiver "SHOULD NOT send a response for the cancelled request"); sending an
 * error instead would make SDK clients report "a response for an unknown message ID".
 *
 * A POST that carried several requests (a batch) is left alone: its other answers still use the
 * stream, and the SDK closes it after the last of them.
 *
 * Install before `server.connect(transport)`: the SDK keeps an `onmessage` it finds and calls it
 * before its own.
 */
export function endStreamsOfCancelledRequests(transport: WebStandardStreamableHTTPServerTransport): void {
  /** Requests still waiting for their response, with the HTTP request that carried each one. */
  const pending = new Map<RequestId, Request | undefined>();
  /** JSON-RPC requests per HTTP request, to tell a single request from a batch. */
  const requestsIn = new WeakMap<Request, number>();

  transport.onmessage = (message, extra) => {
    if (isJSONRPCRequest(message)) {
      const post = extra?.request;
      pending.set(message.id, post);
      if (post) requestsIn.set(post, (requestsIn.get(post) ?? 0) + 1);
      return;
    }
    if (!isJSONRPCNotification(message) || message.method !== "notifications/cancelled") return;
    const id = (message.params as { requestId?: RequestId } | undefined)?.requestId;
    if (id === undefined || !pending.has(id)) return;
    const post = pending.get(id);
    pending.delete(id);
    if (post === undefined || requestsIn.get(post) === 1) transport.closeSSEStream(id);
  };

  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    if ((isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) && message.id !== undefined)
      pending.delete(message.id);
    return send(message, options);
  };
}
