// The official TypeScript MCP SDK's echo server, for run_comparison.sh: what
// a server written the SDK's documented way costs, beside airlock and the
// C++ floor. One tool, example.echo ({text: string}), answering
// {content: [{type: "text", text}]} like airlock's example echo; the SDK's
// McpServer validates the arguments with zod, as it does for any tool.
//
//   node ts_echo_server.mjs --stdio
//   node ts_echo_server.mjs --http 127.0.0.1:0 [--json]
//
// --http: Streamable HTTP on node:http (no express), with sessions: an
// initialize without Mcp-Session-Id creates an McpServer and a transport of
// its own, later requests find theirs by the header, DELETE ends it. Prints
// "listening on http://HOST:PORT/mcp" on stderr, as airlock and
// http_echo_baseline do.
//
// --json answers every request with one JSON body (the transport's
// enableJsonResponse); without it, with an SSE stream. The SDK's transport
// refuses (406) any POST whose Accept does not list both application/json
// and text/event-stream, even when it will answer JSON, so for this server
// run_comparison.sh's JSON cells have http_load send both types (--accept)
// and start the server with --json: the same JSON answer the other servers
// give a client that accepts only JSON, for an Accept header 19 bytes
// longer. This server does not speak MCP 2026-07-28 (SDK 1.32.2 knows
// 2025-11-25 at most), so it has no stand-alone mode.
//
// The SDK comes from tests/interop/node_modules (installed by
// packaging/install-deps.sh), found from this file's location.
import { randomUUID } from 'node:crypto';
import http from 'node:http';

const modules = new URL('../interop/node_modules/', import.meta.url);
const load = (path) => import(new URL(path, modules).href);
const { McpServer } = await load('@modelcontextprotocol/sdk/dist/esm/server/mcp.js');
const { StdioServerTransport } = await load('@modelcontextprotocol/sdk/dist/esm/server/stdio.js');
const { StreamableHTTPServerTransport } = await load('@modelcontextprotocol/sdk/dist/esm/server/streamableHttp.js');
const { isInitializeRequest } = await load('@modelcontextprotocol/sdk/dist/esm/types.js');
// The zod the SDK itself imports (the same file, so the same module).
const { z } = await load('zod/index.js');

function usage(why) {
  process.stderr.write(`ts_echo_server: ${why}\nusage: node ts_echo_server.mjs --stdio | --http HOST:PORT [--json]\n`);
  process.exit(2);
}

function echoServer() {
  const server = new McpServer({ name: 'ts-echo', version: '1.0.0' });
  server.registerTool(
    'example.echo',
    {
      title: 'Echo',
      description: 'Returns the given text unchanged, as text content.',
      inputSchema: { text: z.string() },
    },
    async ({ text }) => ({ content: [{ type: 'text', text }] }),
  );
  return server;
}

const args = process.argv.slice(2);
let mode = null;
let listen = null;
let json = false;
for (let i = 0; i < args.length; ++i) {
  if (args[i] === '--stdio') mode = 'stdio';
  else if (args[i] === '--http' && i + 1 < args.length) {
    mode = 'http';
    listen = args[++i];
  } else if (args[i] === '--json') json = true;
  else usage(`unknown option ${args[i]}`);
}
if (!mode) usage('--stdio or --http is required');

if (mode === 'stdio') {
  // The process ends when stdin does: nothing else keeps the event loop alive.
  await echoServer().connect(new StdioServerTransport());
} else {
  const colon = listen.lastIndexOf(':');
  const host = listen.slice(0, colon).replace(/^\[|\]$/g, '');
  const port = Number(listen.slice(colon + 1));
  if (colon < 0 || !Number.isInteger(port) || !['127.0.0.1', '::1', 'localhost'].includes(host))
    usage('--http must be a loopback address and port, e.g. 127.0.0.1:0');

  const transports = new Map();  // Mcp-Session-Id -> transport

  const reject = (res, status, code, message) => {
    res.writeHead(status, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code, message } }));
  };

  const serve = async (req, res, body) => {
    const session = req.headers['mcp-session-id'];
    if (session !== undefined) {
      const transport = transports.get(session);
      if (!transport) return reject(res, 404, -32001, 'Session not found');
      return transport.handleRequest(req, res, body);
    }
    if (req.method !== 'POST' || !isInitializeRequest(body))
      return reject(res, 400, -32000, 'Bad Request: no valid session ID');
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      enableJsonResponse: json,
      onsessioninitialized: (id) => transports.set(id, transport),
    });
    transport.onclose = () => {
      if (transport.sessionId) transports.delete(transport.sessionId);
    };
    await echoServer().connect(transport);
    return transport.handleRequest(req, res, body);
  };

  const server = http.createServer((req, res) => {
    if (new URL(req.url, 'http://localhost').pathname !== '/mcp') {
      res.writeHead(404).end();
      return;
    }
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      let body;
      if (req.method === 'POST') {
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          return reject(res, 400, -32700, 'Parse error');
        }
      }
      serve(req, res, body).catch((e) => {
        process.stderr.write(`ts_echo_server: ${e?.stack ?? e}\n`);
        if (!res.headersSent) reject(res, 500, -32603, 'Internal error');
      });
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(port, host, () => {
    const { address, port: bound } = server.address();
    const shown = address.includes(':') ? `[${address}]` : address;
    process.stderr.write(`listening on http://${shown}:${bound}/mcp\n`);
  });
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(0));
}
