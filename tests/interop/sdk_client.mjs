// The official TypeScript SDK client against a running airlock:
//
//   node sdk_client.mjs http://127.0.0.1:PORT/mcp [--interactive]
//
// Connects with Client + StreamableHTTPClientTransport, lists tools, calls
// example.echo, pings, ends the session with DELETE; with --interactive also
// drives the interactive fixture (progress notifications, a server-ended
// stream the SDK must resume with Last-Event-ID, sampling). Prints a JSON
// summary of every check and exits 1 if any failed, 2 on a usage error.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CreateMessageRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { check, finish, step, within } from "./checks.mjs";

const args = process.argv.slice(2);
const url = args.find((a) => !a.startsWith("--"));
const interactive = args.includes("--interactive");
if (!url) {
  console.error("usage: node sdk_client.mjs URL [--interactive]");
  process.exit(2);
}


const transportErrors = [];
const transport = new StreamableHTTPClientTransport(new URL(url), {
  // The SSE polling test resumes after the server ends a stream; retry soon.
  reconnectionOptions: {
    initialReconnectionDelay: 100,
    maxReconnectionDelay: 1000,
    reconnectionDelayGrowFactor: 1.5,
    maxRetries: 3,
  },
});
transport.onerror = (error) => transportErrors.push(String(error?.message ?? error));

const client = new Client(
  { name: "airlock-interop-sdk-client", version: "1.0.0" },
  { capabilities: { sampling: {} } },
);
client.setRequestHandler(CreateMessageRequestSchema, async (request) => ({
  role: "assistant",
  content: { type: "text", text: `sdk saw: ${request.params.messages[0]?.content?.text ?? ""}` },
  model: "interop-model",
  stopReason: "endTurn",
}));

let connected = false;
await step("connect", async () => {
  await within(10000, client.connect(transport), "connect");
  connected = true;
  check("connect", true);
  const server = client.getServerVersion();
  check("server info has a name and version", server?.name && server?.version, server);
  check("server offers tools", client.getServerCapabilities()?.tools !== undefined, client.getServerCapabilities());
  const sessionId = transport.sessionId ?? "";
  check("session id is visible ASCII, >= 32 chars", /^[\x21-\x7e]{32,}$/.test(sessionId), sessionId);
  check("negotiated 2025-11-25", transport.protocolVersion === "2025-11-25", transport.protocolVersion);
});

if (connected) {
  let tools = [];
  await step("tools/list", async () => {
    for (let cursor, pages = 0; pages < 100; pages++) {
      const page = await within(5000, client.listTools(cursor ? { cursor } : {}), "tools/list");
      tools.push(...page.tools);
      cursor = page.nextCursor;
      if (!cursor) break;
    }
    const echo = tools.find((t) => t.name === "example.echo");
    check("tools/list includes example.echo", echo, tools.map((t) => t.name));
    check("example.echo has an object inputSchema", echo?.inputSchema?.type === "object", echo?.inputSchema);
  });

  await step("tools/call example.echo", async () => {
    const text = "hello from the TypeScript SDK \u00e9\u4e2d";
    const result = await within(5000, client.callTool({ name: "example.echo", arguments: { text } }), "tools/call");
    check("example.echo returns its text", result.content?.[0]?.type === "text" && result.content[0].text === text,
          result);
    check("example.echo is not an error", result.isError !== true, result);
  });

  await step("tools/call unknown tool", async () => {
    let outcome;
    try {
      outcome = await within(5000, client.callTool({ name: "no.such.tool", arguments: {} }), "tools/call");
    } catch (error) {
      outcome = { threw: String(error?.message ?? error) };
    }
    check("an unknown tool is an error", outcome.threw || outcome.isError === true, outcome);
  });

  await step("ping", async () => {
    const pong = await within(5000, client.ping(), "ping");
    check("ping answers {}", pong && Object.keys(pong).length === 0, pong);
  });

  if (interactive) {
    await step("progress", async () => {
      const seen = [];
      const result = await within(
        5000,
        client.callTool({ name: "interactive.progress", arguments: {} }, undefined, {
          onprogress: (p) => seen.push(p.progress),
        }),
        "interactive.progress",
      );
      check("progress notifications 0, 50, 100 reach the SDK", JSON.stringify(seen) === "[0,50,100]", seen);
      check("the progress token came back unchanged", /^\d+$/.test(result.content?.[0]?.text ?? ""), result);
    });

    await step("server-ended stream", async () => {
      const result = await within(10000, client.callTool({ name: "interactive.reconnect", arguments: {} }),
                                  "interactive.reconnect");
      check("the SDK resumes a server-ended stream and gets the result",
            (result.content?.[0]?.text ?? "").startsWith("Reconnection test completed successfully"), result);
    });

    await step("sampling", async () => {
      const result = await within(10000, client.callTool({ name: "interactive.sample", arguments: { prompt: "ping" } }),
                                  "interactive.sample");
      check("sampling reaches the SDK's handler and back", result.content?.[0]?.text === "LLM response: sdk saw: ping",
            result);
    });
  }

  await step("DELETE", async () => {
    const sessionId = transport.sessionId;
    await within(5000, transport.terminateSession(), "terminateSession");
    check("terminateSession (DELETE) succeeds", transport.sessionId === undefined, transport.sessionId);
    // The SDK forgets the id once it has ended the session, so the old id is
    // tried by hand: the server must answer 404 for it from now on.
    const response = await within(5000, fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-session-id": sessionId,
        "mcp-protocol-version": transport.protocolVersion,
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 99, method: "ping" }),
    }), "ping after DELETE");
    check("the ended session's id gets 404", response.status === 404, `${response.status} ${await response.text()}`);
  });
}

await client.close().catch(() => {});
finish({ url, transportErrors });
