/**
 * A real HTTP server on 127.0.0.1 that answers like the OpenAI Chat Completions, Anthropic Messages
 * and Ollama `/api/chat` endpoints, from a script. Lets tests run the real provider SDKs and LangChain
 * wrappers end to end (headers, SSE parsing, tool-call reassembly, usage) with no network.
 *
 *   const server = await startFakeLlmServer([{ text: "Hello there" }, { toolCalls: [...] }]);
 *   createChatModel({ provider: "openai", apiKey: "k", baseUrl: server.openaiBaseUrl }, deps)
 *
 * Every request, whatever its endpoint, consumes the next turn. Requests are recorded (headers and
 * parsed body) so tests can assert what the client really sent.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface FakeToolCall {
  /** Defaults to `call_<turn>_<i>` (OpenAI) / `toolu_<turn>_<i>` (Anthropic); Ollama sends none. */
  id?: string;
  name: string;
  args: Record<string, unknown>;
}

export interface FakeUsage {
  input: number;
  output: number;
}

interface TurnOptions {
  usage?: FakeUsage;
  /**
   * Stop after this many stream events until `server.resume()`: lets a test prove that chunks reach
   * the caller while the response is still open.
   */
  pauseAfterEvents?: number;
}

export type FakeTurn =
  | ({ text: string } & TurnOptions)
  /** Tool calls, optionally preceded by some text. Several calls = a parallel batch. */
  | ({ toolCalls: FakeToolCall[]; text?: string } & TurnOptions)
  /** An error response in the provider's format (e.g. 500 to exercise retries, 400 to fail fast). */
  | { error: { status: number; message: string } };

export type FakeEndpoint = "openai.chat" | "anthropic.messages" | "ollama.chat";

export interface RecordedRequest {
  endpoint: FakeEndpoint | "unknown";
  method: string;
  /** Path and query as received. */
  url: string;
  headers: IncomingHttpHeaders;
  rawBody: string;
  /** Parsed JSON body (undefined when the body is not JSON). */
  body: unknown;
}

export interface FakeLlmServer {
  /** `http://127.0.0.1:<port>` — Anthropic's and Ollama's base URL. */
  url: string;
  /** `<url>/v1` — the OpenAI SDK appends `/chat/completions`. */
  openaiBaseUrl: string;
  anthropicBaseUrl: string;
  ollamaBaseUrl: string;
  requests: RecordedRequest[];
  /** Appends turns to the script. */
  push(...turns: FakeTurn[]): void;
  /** Turns not yet consumed. */
  remaining(): number;
  /** Resolves once a turn with `pauseAfterEvents` has paused. */
  paused(): Promise<void>;
  /** True while a stream is held open by `pauseAfterEvents`. */
  isPaused(): boolean;
  resume(): void;
  close(): Promise<void>;
}

const DEFAULT_USAGE: FakeUsage = { input: 21, output: 13 };

/** Splits text into word-sized pieces (each keeps its trailing space), as models stream them. */
export function splitTokens(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [];
}

/** Splits serialized JSON into fixed-size pieces, deliberately cutting through keys and strings. */
export function splitArgs(json: string, size = 5): string[] {
  const pieces: string[] = [];
  for (let i = 0; i < json.length; i += size) pieces.push(json.slice(i, i + size));
  return pieces.length > 0 ? pieces : [""];
}

interface Gate {
  paused: Promise<void>;
  markPaused: () => void;
  resumed: Promise<void>;
  resume: () => void;
  isPaused: boolean;
}

function newGate(): Gate {
  let markPaused!: () => void;
  let resume!: () => void;
  const gate: Gate = {
    paused: new Promise<void>((r) => (markPaused = r)),
    resumed: new Promise<void>((r) => (resume = r)),
    markPaused: () => {
      gate.isPaused = true;
      markPaused();
    },
    resume: () => {
      gate.isPaused = false;
      resume();
    },
    isPaused: false,
  };
  return gate;
}

/** Writes stream events one by one, yielding to the event loop between them so they leave as separate writes. */
class EventWriter {
  private count = 0;
  constructor(
    private readonly res: ServerResponse,
    private readonly pauseAfter: number | undefined,
    private readonly gate: Gate,
  ) {}

  async write(chunk: string): Promise<void> {
    this.res.write(chunk);
    this.count += 1;
    if (this.pauseAfter !== undefined && this.count === this.pauseAfter) {
      this.gate.markPaused();
      await this.gate.resumed;
    }
    await new Promise((r) => setImmediate(r));
  }
}

export async function startFakeLlmServer(script: FakeTurn[] = []): Promise<FakeLlmServer> {
  const turns = [...script];
  const requests: RecordedRequest[] = [];
  let turnNo = 0;
  let gate = newGate();

  const server = createServer((req, res) => {
    void handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: `fake server bug: ${String(error)}` } }));
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const rawBody = await readBody(req);
    let body: unknown;
    try {
      body = rawBody ? JSON.parse(rawBody) : undefined;
    } catch {
      body = undefined;
    }
    const path = (req.url ?? "/").split("?")[0];
    const endpoint: RecordedRequest["endpoint"] =
      req.method === "POST" && path === "/v1/chat/completions"
        ? "openai.chat"
        : req.method === "POST" && path === "/v1/messages"
          ? "anthropic.messages"
          : req.method === "POST" && path === "/api/chat"
            ? "ollama.chat"
            : "unknown";
    requests.push({ endpoint, method: req.method ?? "", url: req.url ?? "", headers: req.headers, rawBody, body });

    if (endpoint === "unknown") {
      sendJson(res, 404, { error: { message: `fake LLM server: no route for ${req.method} ${path}` } });
      return;
    }
    const turn = turns.shift();
    turnNo += 1;
    if (!turn) {
      sendError(res, endpoint, 400, "fake LLM server: the script has no turn left for this request");
      return;
    }
    if ("error" in turn) {
      sendError(res, endpoint, turn.error.status, turn.error.message);
      return;
    }
    const request = (body ?? {}) as { stream?: boolean; model?: string; stream_options?: { include_usage?: boolean } };
    const model = request.model ?? "fake-model";
    const writer = (r: ServerResponse) => new EventWriter(r, turn.pauseAfterEvents, gate);
    switch (endpoint) {
      case "openai.chat":
        if (request.stream) {
          await streamOpenAi(res, writer(res), turn, turnNo, model, request.stream_options?.include_usage === true);
        } else sendJson(res, 200, openAiCompletion(turn, turnNo, model));
        return;
      case "anthropic.messages":
        if (request.stream) await streamAnthropic(res, writer(res), turn, turnNo, model);
        else sendJson(res, 200, anthropicMessage(turn, turnNo, model));
        return;
      case "ollama.chat":
        if (request.stream !== false) await streamOllama(res, writer(res), turn, model);
        else sendJson(res, 200, ollamaFinal(turn, model, true));
        return;
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;

  return {
    url,
    openaiBaseUrl: `${url}/v1`,
    anthropicBaseUrl: url,
    ollamaBaseUrl: url,
    requests,
    push: (...more) => void turns.push(...more),
    remaining: () => turns.length,
    paused: () => gate.paused,
    isPaused: () => gate.isPaused,
    resume: () => {
      const current = gate;
      gate = newGate();
      current.resume();
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        gate.resume();
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}

type ScriptTurn = Exclude<FakeTurn, { error: unknown }>;

function toolCallsOf(turn: ScriptTurn): FakeToolCall[] {
  return "toolCalls" in turn ? turn.toolCalls : [];
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function sendJson(res: ServerResponse, status: number, payload: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(payload));
}

function sendError(res: ServerResponse, endpoint: FakeEndpoint, status: number, message: string): void {
  if (endpoint === "anthropic.messages") {
    const type = status === 429 ? "rate_limit_error" : status >= 500 ? "api_error" : "invalid_request_error";
    sendJson(res, status, { type: "error", error: { type, message } });
  } else if (endpoint === "ollama.chat") {
    sendJson(res, status, { error: message });
  } else {
    sendJson(res, status, { error: { message, type: status >= 500 ? "server_error" : "invalid_request_error" } });
  }
}

function sse(data: unknown, event?: string): string {
  return `${event ? `event: ${event}\n` : ""}data: ${JSON.stringify(data)}\n\n`;
}

// ---------------------------------------------------------------- OpenAI Chat Completions

async function streamOpenAi(
  res: ServerResponse,
  out: EventWriter,
  turn: ScriptTurn,
  turnNo: number,
  model: string,
  includeUsage: boolean,
): Promise<void> {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const id = `chatcmpl-fake-${turnNo}`;
  const created = 1_700_000_000 + turnNo;
  const chunk = (delta: unknown, finishReason: string | null = null) =>
    sse({
      id,
      object: "chat.completion.chunk",
      created,
      model,
      system_fingerprint: "fp_fake",
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    });

  await out.write(chunk({ role: "assistant", content: "", refusal: null }));
  for (const token of splitTokens(turn.text ?? "")) await out.write(chunk({ content: token }));

  const calls = toolCallsOf(turn);
  // Interleave the calls round-robin: call 0's header, call 1's header, a piece of 0, a piece of 1…
  // Only the first delta of each call carries id/type/name; the rest carry only index + arguments.
  const queues = calls.map((call, index) => {
    const header = {
      index,
      id: call.id ?? `call_${turnNo}_${index}`,
      type: "function",
      function: { name: call.name, arguments: "" },
    };
    const pieces = splitArgs(JSON.stringify(call.args)).map((piece) => ({ index, function: { arguments: piece } }));
    return [header, ...pieces];
  });
  while (queues.some((q) => q.length > 0)) {
    for (const queue of queues) {
      const next = queue.shift();
      if (next) await out.write(chunk({ tool_calls: [next] }));
    }
  }

  await out.write(chunk({}, calls.length > 0 ? "tool_calls" : "stop"));
  if (includeUsage) {
    const usage = turn.usage ?? DEFAULT_USAGE;
    await out.write(
      sse({
        id,
        object: "chat.completion.chunk",
        created,
        model,
        choices: [],
        usage: {
          prompt_tokens: usage.input,
          completion_tokens: usage.output,
          total_tokens: usage.input + usage.output,
          prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
          completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0 },
        },
      }),
    );
  }
  await out.write("data: [DONE]\n\n");
  res.end();
}

function openAiCompletion(turn: ScriptTurn, turnNo: number, model: string): unknown {
  const calls = toolCallsOf(turn);
  const usage = turn.usage ?? DEFAULT_USAGE;
  return {
    id: `chatcmpl-fake-${turnNo}`,
    object: "chat.completion",
    created: 1_700_000_000 + turnNo,
    model,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: turn.text ?? null,
          refusal: null,
          ...(calls.length > 0
            ? {
                tool_calls: calls.map((call, i) => ({
                  id: call.id ?? `call_${turnNo}_${i}`,
                  type: "function",
                  function: { name: call.name, arguments: JSON.stringify(call.args) },
                })),
              }
            : {}),
        },
        logprobs: null,
        finish_reason: calls.length > 0 ? "tool_calls" : "stop",
      },
    ],
    usage: { prompt_tokens: usage.input, completion_tokens: usage.output, total_tokens: usage.input + usage.output },
  };
}

// ---------------------------------------------------------------- Anthropic Messages

async function streamAnthropic(
  res: ServerResponse,
  out: EventWriter,
  turn: ScriptTurn,
  turnNo: number,
  model: string,
): Promise<void> {
  res.writeHead(200, {
    "content-type": "text/event-stream",
    "cache-control": "no-cache",
    "request-id": `req_${turnNo}`,
  });
  const usage = turn.usage ?? DEFAULT_USAGE;
  const send = (type: string, data: Record<string, unknown>) => out.write(sse({ type, ...data }, type));

  await send("message_start", {
    message: {
      id: `msg_fake_${turnNo}`,
      type: "message",
      role: "assistant",
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: {
        input_tokens: usage.input,
        output_tokens: 1,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
      },
    },
  });
  await send("ping", {});

  let index = 0;
  if (turn.text) {
    await send("content_block_start", { index, content_block: { type: "text", text: "" } });
    for (const token of splitTokens(turn.text)) {
      await send("content_block_delta", { index, delta: { type: "text_delta", text: token } });
    }
    await send("content_block_stop", { index });
    index += 1;
  }
  // Anthropic streams content blocks one after another (never interleaved); each tool_use input
  // arrives as partial_json pieces, starting with an empty one as the real API does.
  const calls = toolCallsOf(turn);
  for (const [i, call] of calls.entries()) {
    const id = call.id ?? `toolu_${turnNo}_${i}`;
    await send("content_block_start", { index, content_block: { type: "tool_use", id, name: call.name, input: {} } });
    for (const piece of ["", ...splitArgs(JSON.stringify(call.args))]) {
      await send("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: piece } });
    }
    await send("content_block_stop", { index });
    index += 1;
  }

  await send("message_delta", {
    delta: { stop_reason: calls.length > 0 ? "tool_use" : "end_turn", stop_sequence: null },
    usage: { output_tokens: usage.output },
  });
  await send("message_stop", {});
  res.end();
}

function anthropicMessage(turn: ScriptTurn, turnNo: number, model: string): unknown {
  const calls = toolCallsOf(turn);
  const usage = turn.usage ?? DEFAULT_USAGE;
  return {
    id: `msg_fake_${turnNo}`,
    type: "message",
    role: "assistant",
    model,
    content: [
      ...(turn.text ? [{ type: "text", text: turn.text }] : []),
      ...calls.map((call, i) => ({
        type: "tool_use",
        id: call.id ?? `toolu_${turnNo}_${i}`,
        name: call.name,
        input: call.args,
      })),
    ],
    stop_reason: calls.length > 0 ? "tool_use" : "end_turn",
    stop_sequence: null,
    usage: { input_tokens: usage.input, output_tokens: usage.output },
  };
}

// ---------------------------------------------------------------- Ollama /api/chat (NDJSON)

async function streamOllama(res: ServerResponse, out: EventWriter, turn: ScriptTurn, model: string): Promise<void> {
  res.writeHead(200, { "content-type": "application/x-ndjson" });
  const line = (message: Record<string, unknown>) =>
    `${JSON.stringify({ model, created_at: new Date(0).toISOString(), message: { role: "assistant", content: "", ...message }, done: false })}\n`;
  for (const token of splitTokens(turn.text ?? "")) await out.write(line({ content: token }));
  // Ollama sends whole tool calls (arguments as an object, no id), all in one message.
  const calls = toolCallsOf(turn);
  if (calls.length > 0) {
    await out.write(
      line({ tool_calls: calls.map((call) => ({ function: { name: call.name, arguments: call.args } })) }),
    );
  }
  await out.write(`${JSON.stringify(ollamaFinal(turn, model, false))}\n`);
  res.end();
}

function ollamaFinal(turn: ScriptTurn, model: string, whole: boolean): unknown {
  const usage = turn.usage ?? DEFAULT_USAGE;
  const calls = toolCallsOf(turn);
  return {
    model,
    created_at: new Date(0).toISOString(),
    message: {
      role: "assistant",
      content: whole ? (turn.text ?? "") : "",
      ...(whole && calls.length > 0
        ? { tool_calls: calls.map((call) => ({ function: { name: call.name, arguments: call.args } })) }
        : {}),
    },
    done: true,
    done_reason: "stop",
    total_duration: 1_000_000,
    load_duration: 1000,
    prompt_eval_count: usage.input,
    prompt_eval_duration: 1000,
    eval_count: usage.output,
    eval_duration: 1000,
  };
}
