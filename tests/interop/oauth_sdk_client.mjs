// The official TypeScript SDK client's OAuth flow against airlock as an OAuth
// 2.1 resource server, with oauth_authorization_server.mjs as the
// authorization server:
//
//   node oauth_sdk_client.mjs http://127.0.0.1:PORT/mcp ISSUER
//
// Reads the protected resource metadata, sees the 401 without a token, lets
// the SDK discover, register, authorize (PKCE) and exchange the code, then
// lists and calls tools under the granted scope and checks the 403 for a tool
// outside it and the 401 for a token minted for another audience. Prints a
// JSON summary of every check and exits 1 if any failed, 2 on a usage error.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { check, finish, step, within } from "./checks.mjs";

const [url, issuer] = process.argv.slice(2);
if (!url || !issuer) {
  console.error("usage: node oauth_sdk_client.mjs URL ISSUER");
  process.exit(2);
}
const origin = new URL(url).origin;
const metadataUrl = `${origin}/.well-known/oauth-protected-resource${new URL(url).pathname}`;
// Granted by the scope tools:echo; tools:all grants every tool, this one too.
const GRANTED_TOOL = "example.echo";
const OTHER_TOOL = "example.hello-c";

const claimsOf = (jwt) => JSON.parse(Buffer.from(jwt.split(".")[1] ?? "", "base64url").toString());
// The WWW-Authenticate parameter `name`, quoted or not.
const authParam = (header, name) =>
  header?.match(new RegExp(`\\b${name}="([^"]*)"|\\b${name}=([^\\s,]+)`))?.slice(1).find(Boolean);

// A raw JSON-RPC POST, for what the SDK does not show: statuses and headers.
function post(message, { token, session } = {}) {
  return within(5000, fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(session ? { "mcp-session-id": session.sessionId, "mcp-protocol-version": session.protocolVersion } : {}),
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, ...message }),
  }), `POST ${message.method}`);
}
const initialize = {
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {},
            clientInfo: { name: "airlock-interop-raw", version: "1.0.0" } },
};

// In memory, as the SDK's examples keep it. The redirect is never followed:
// redirectToAuthorization plays the browser and the user at once.
const REDIRECT_URL = "http://127.0.0.1:1/callback";
class TestUserProvider {
  authorizations = [];
  get redirectUrl() {
    return REDIRECT_URL;
  }
  get clientMetadata() {
    return {
      client_name: "airlock-interop-oauth-client",
      redirect_uris: [REDIRECT_URL],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
      scope: "tools:echo",
    };
  }
  state() {
    return (this.expectedState = crypto.randomUUID());
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(client) {
    this.client = client;
  }
  tokens() {
    return this.tokenSet;
  }
  saveTokens(tokens) {
    this.tokenSet = tokens;
    this.tokenSaves = (this.tokenSaves ?? 0) + 1;
  }
  saveCodeVerifier(verifier) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
  // The user consents to tools:echo alone, whatever the SDK asks for (with no
  // scope in the 401 it asks for all of scopes_supported), so the token lacks
  // tools:all and the 403 is reachable.
  async redirectToAuthorization(authorizationUrl) {
    const asked = new URL(authorizationUrl);
    const consented = new URL(asked);
    consented.searchParams.set("scope", "tools:echo");
    const response = await fetch(consented, { redirect: "manual" });
    const location = response.headers.get("location");
    const callback = location && URL.canParse(location) ? new URL(location) : undefined;
    this.authorizations.push({ asked: Object.fromEntries(asked.searchParams), status: response.status, location });
    this.code = callback?.searchParams.get("code") ?? undefined;
    this.returnedState = callback?.searchParams.get("state") ?? undefined;
  }
}

await step("protected resource metadata", async () => {
  const response = await within(5000, fetch(metadataUrl), "GET metadata");
  const prm = await response.json();
  check("PRM answers 200 at the path-aware well-known URL", response.status === 200, response.status);
  check("PRM resource is the MCP endpoint", prm.resource === url, prm.resource);
  check("PRM names the authorization server", JSON.stringify(prm.authorization_servers) === JSON.stringify([issuer]),
        prm.authorization_servers);
  check("PRM scopes_supported has tools:echo and tools:all",
        ["tools:echo", "tools:all"].every((s) => prm.scopes_supported?.includes(s)), prm.scopes_supported);
  check("PRM bearer_methods_supported is [header]", JSON.stringify(prm.bearer_methods_supported) === '["header"]',
        prm.bearer_methods_supported);
  const root = await within(5000, fetch(`${origin}/.well-known/oauth-protected-resource`), "GET root metadata");
  const rootPrm = await root.json().catch(() => undefined);
  check("PRM at the root well-known URL names the same resource", root.status === 200 && rootPrm?.resource === url,
        { status: root.status, body: rootPrm });
});

await step("no token", async () => {
  const response = await post(initialize);
  const header = response.headers.get("www-authenticate");
  await response.body?.cancel();
  check("a POST without a token gets 401", response.status === 401, response.status);
  check("401 WWW-Authenticate names the metadata, nothing else",
        header === `Bearer resource_metadata="${metadataUrl}"`, header);
});

const provider = new TestUserProvider();
const client = new Client({ name: "airlock-interop-oauth-client", version: "1.0.0" });
let transport;
let connected = false;
await step("authorization", async () => {
  const first = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider });
  let outcome;
  try {
    await within(10000, client.connect(first), "connect without a token");
    outcome = "connected";
  } catch (error) {
    outcome = error;
  }
  check("connecting without a token ends in UnauthorizedError", outcome instanceof UnauthorizedError, String(outcome));
  check("the SDK registered a client", provider.client?.client_id, provider.client);
  const asked = provider.authorizations[0]?.asked ?? {};
  check("the SDK asked to authorize with PKCE S256", asked.code_challenge_method === "S256" && asked.code_challenge,
        provider.authorizations);
  check("the SDK asked for the PRM resource (RFC 8707)", asked.resource === url, asked.resource);
  check("the authorization server redirected with a code and the state",
        provider.code && provider.returnedState === provider.expectedState, provider.authorizations);

  await within(10000, first.finishAuth(provider.code), "finishAuth");
  const tokens = provider.tokens();
  check("finishAuth stores a Bearer token and a refresh token",
        tokens?.token_type === "Bearer" && tokens.access_token && tokens.refresh_token, tokens);
  const claims = claimsOf(tokens.access_token);
  check("the token's aud is the resource, iss the issuer, scope tools:echo",
        claims.aud === url && claims.iss === issuer && claims.scope === "tools:echo", claims);

  transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider });
  await within(10000, client.connect(transport), "connect with a token");
  connected = true;
  check("connecting with the token succeeds", true);
});

if (connected) {
  await step("tools/list", async () => {
    const names = [];
    for (let cursor, pages = 0; pages < 100; pages++) {
      const page = await within(5000, client.listTools(cursor ? { cursor } : {}), "tools/list");
      names.push(...page.tools.map((t) => t.name));
      cursor = page.nextCursor;
      if (!cursor) break;
    }
    check(`tools/list under tools:echo shows ${GRANTED_TOOL}`, names.includes(GRANTED_TOOL), names);
    check(`tools/list under tools:echo hides ${OTHER_TOOL}`, !names.includes(OTHER_TOOL), names);
  });

  await step(`tools/call ${GRANTED_TOOL}`, async () => {
    const text = "hello through OAuth \u00e9\u4e2d";
    const result = await within(5000, client.callTool({ name: GRANTED_TOOL, arguments: { text } }), "tools/call");
    check(`${GRANTED_TOOL} returns its text`, result.content?.[0]?.text === text && result.isError !== true, result);
  });

  await step(`tools/call ${OTHER_TOOL}`, async () => {
    const response = await post({ method: "tools/call", params: { name: OTHER_TOOL, arguments: {} } },
                                { token: provider.tokens().access_token, session: transport });
    const header = response.headers.get("www-authenticate");
    await response.body?.cancel();
    check(`${OTHER_TOOL} under tools:echo gets 403`, response.status === 403, response.status);
    check("403 WWW-Authenticate: error=insufficient_scope, scope=tools:all, the metadata",
          authParam(header, "error") === "insufficient_scope" && authParam(header, "scope") === "tools:all" &&
          authParam(header, "resource_metadata") === metadataUrl, header);

    // The SDK answers insufficient_scope by refreshing its token, which keeps
    // the scope, and then gives up with the 403.
    const saves = provider.tokenSaves;
    let outcome;
    try {
      outcome = await within(10000, client.callTool({ name: OTHER_TOOL, arguments: {} }), "tools/call");
    } catch (error) {
      outcome = { threw: String(error?.message ?? error).slice(0, 500), code: error?.code };
    }
    check("the SDK's call of it fails with 403", outcome.code === 403, outcome);
    check("the SDK refreshed its token on insufficient_scope", provider.tokenSaves > saves, provider.tokenSaves);
    const result = await within(5000, client.callTool({ name: GRANTED_TOOL, arguments: { text: "again" } }),
                                "tools/call");
    check("the refreshed token works", result.content?.[0]?.text === "again", result);
  });
}

await step("minted tokens", async () => {
  const mint = async (claims) => {
    const request = fetch(`${issuer}/test/mint`, { method: "POST", body: JSON.stringify({ claims }) });
    const response = await within(5000, request, "mint");
    return (await response.json()).token;
  };
  // The control: what /test/mint signs is good when it names this resource.
  const good = await post(initialize, { token: await mint({ aud: url }) });
  await good.body?.cancel();
  check("a minted token for this resource is accepted", good.status === 200, good.status);

  const response = await post(initialize, { token: await mint({ aud: "http://127.0.0.1:1/other" }) });
  const header = response.headers.get("www-authenticate");
  await response.body?.cancel();
  check("a token for another audience gets 401", response.status === 401, response.status);
  check("its WWW-Authenticate says invalid_token", authParam(header, "error") === "invalid_token", header);
});

if (connected) {
  await step("DELETE", async () => {
    await within(5000, transport.terminateSession(), "terminateSession");
    check("terminateSession (DELETE) succeeds", transport.sessionId === undefined, transport.sessionId);
  });
}

await client.close().catch(() => {});
finish({ url, issuer, authorizations: provider.authorizations });
