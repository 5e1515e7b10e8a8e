// A test OAuth 2.1 authorization server for airlock's resource server mode,
// on node's http and crypto alone. For tests only: it approves every
// authorization request as the user "alice", and /test/mint signs whatever
// it is asked to.
//
//   node oauth_authorization_server.mjs [--port N]
//     prints one line, `listening http://127.0.0.1:PORT` (the issuer), logs
//     each request to stderr, and serves until SIGTERM or SIGINT, or until
//     its stdin closes if stdin is a pipe (so a parent that dies, however it
//     dies, takes the server with it)
//   import { startAuthorizationServer } from "./oauth_authorization_server.mjs"
//     await startAuthorizationServer({ port, log }) resolves to
//     { issuer, port, mint({ claims, header, key }), rotate(), stats, close() }
//
// GET  /.well-known/oauth-authorization-server  RFC 8414 metadata
// GET  /jwks                                    es-1 and rs-1 (rs-1 and es-2 after rotation)
// POST /register                                RFC 7591, public clients only
// GET  /authorize                               302 to redirect_uri with code and state
// POST /token                                   authorization_code (PKCE S256, RFC 8707
//                                               resource required) and refresh_token
// POST /test/mint    {claims?, header?, key?}   {"token"}: any token, even a bad one
// POST /test/rotate                             publishes es-2, withdraws es-1
// GET  /test/stats                              {"jwks_fetches", "metadata_fetches"}
// Access tokens are RFC 9068 JWTs. Every answer is JSON with no-store.
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const SCOPES = ["tools:echo", "tools:all"];
const DEFAULT_SCOPE = "tools:echo";
const TOKEN_LIFETIME = 300; // seconds
const CODE_LIFETIME = 60; // seconds
const MAX_BODY = 64 * 1024;

const generateKeyPair = promisify(crypto.generateKeyPair);
const b64url = (data) => Buffer.from(data).toString("base64url");
const now = () => Math.floor(Date.now() / 1000);

class OAuthError extends Error {
  constructor(error, description, status = 400) {
    super(description);
    this.status = status;
    this.body = { error, error_description: description };
  }
}
const fail = (error, description, status) => {
  throw new OAuthError(error, description, status);
};

async function makeKey(kid, alg) {
  const { publicKey, privateKey } = alg === "ES256"
    ? await generateKeyPair("ec", { namedCurve: "P-256" })
    : await generateKeyPair("rsa", { modulusLength: 2048 });
  return { kid, alg, publicKey, privateKey, jwk: { ...publicKey.export({ format: "jwk" }), kid, alg, use: "sig" } };
}

// The defaults with the caller's values over them; a value given as null
// removes that member, so a test can drop a required claim.
function merge(defaults, overrides) {
  const out = { ...defaults, ...overrides };
  for (const [name, value] of Object.entries(out)) if (value === null) delete out[name];
  return out;
}

// Query and form parameters; one sent twice is an error (RFC 6749 3.1).
function params(search) {
  const out = Object.create(null);
  for (const [name, value] of search) {
    if (name in out) fail("invalid_request", `${name} is repeated`);
    out[name] = value;
  }
  return out;
}

function parseJson(text, error) {
  try {
    const value = JSON.parse(text || "{}");
    if (value && typeof value === "object" && !Array.isArray(value)) return value;
  } catch {}
  fail(error, "the body must be a JSON object");
}

// RFC 8707 2: an absolute URI without a fragment.
function checkResource(resource) {
  if (!URL.canParse(resource) || resource.includes("#")) fail("invalid_target", "resource is no absolute URI or has a #");
}

function readBody(request) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    request.on("data", (chunk) => {
      size += chunk.length;
      if (size > MAX_BODY) reject(new OAuthError("invalid_request", "body too large", 413));
      else chunks.push(chunk);
    });
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    request.on("error", reject);
  });
}

export async function startAuthorizationServer({ port = 0, log = false } = {}) {
  const made = await Promise.all([makeKey("es-1", "ES256"), makeKey("rs-1", "RS256"), makeKey("es-2", "ES256")]);
  const keys = Object.fromEntries(made.map((key) => [key.kid, key]));
  let published = ["es-1", "rs-1"];
  const stats = { jwks_fetches: 0, metadata_fetches: 0 };
  const clients = new Map(); // client_id -> registered metadata
  const codes = new Map(); // code -> the authorization request it answers
  const refreshTokens = new Map(); // refresh_token -> { client_id, scope, resource }
  let issuer; // known once listening

  function mint({ claims = {}, header = {}, key = "es-1" } = {}) {
    const t = now();
    // aud has no default: undefined keeps its place in the JSON when given.
    const body = merge({ iss: issuer, sub: "alice", aud: undefined, client_id: "test-client", scope: DEFAULT_SCOPE,
                         iat: t, nbf: t, exp: t + TOKEN_LIFETIME, jti: crypto.randomUUID() }, claims);
    let base, sign;
    if (Object.hasOwn(keys, key)) {
      const { kid, alg, privateKey } = keys[key];
      base = { alg, kid };
      // JWS wants ECDSA signatures as the raw r || s, not DER (RFC 7518 3.4).
      const signingKey = alg === "ES256" ? { key: privateKey, dsaEncoding: "ieee-p1363" } : privateKey;
      sign = (input) => crypto.sign("sha256", input, signingKey);
    } else if (key === "hs-confusion") {
      // The algorithm-confusion attack: HMAC keyed with the RSA public key's
      // PEM text, which a verifier that trusts the header's alg accepts.
      base = { alg: "HS256", kid: "rs-1" };
      const pem = keys["rs-1"].publicKey.export({ type: "spki", format: "pem" });
      sign = (input) => crypto.createHmac("sha256", pem).update(input).digest();
    } else if (key === "none") {
      base = { alg: "none" };
      sign = () => Buffer.alloc(0);
    } else {
      fail("invalid_request", `unknown key ${key}`);
    }
    const head = merge({ ...base, typ: "at+jwt" }, header);
    const input = `${b64url(JSON.stringify(head))}.${b64url(JSON.stringify(body))}`;
    return `${input}.${b64url(sign(Buffer.from(input)))}`;
  }

  function rotate() {
    published = ["rs-1", "es-2"];
    return published;
  }

  // Tokens are signed with the ES256 key that /jwks publishes.
  function issueTokens({ client_id, scope, resource, granted = scope }) {
    const key = published.includes("es-1") ? "es-1" : "es-2";
    const access_token = mint({ claims: { aud: resource, client_id, scope }, key });
    // Refresh tokens rotate: each works once (OAuth 2.1 4.3.1, public clients).
    const refresh_token = crypto.randomBytes(32).toString("base64url");
    refreshTokens.set(refresh_token, { client_id, scope: granted, resource });
    return { access_token, token_type: "Bearer", expires_in: TOKEN_LIFETIME, scope, refresh_token };
  }

  function redeemCode(p) {
    for (const name of ["code", "code_verifier", "redirect_uri", "resource"]) {
      if (p[name] === undefined) fail("invalid_request", `${name} is required`);
    }
    const grant = codes.get(p.code);
    codes.delete(p.code); // one use, whatever the outcome
    if (!grant || grant.expires < now()) fail("invalid_grant", "unknown, used or expired code");
    if (grant.client_id !== p.client_id) fail("invalid_grant", "the code was issued to another client");
    if (grant.redirect_uri !== p.redirect_uri) fail("invalid_grant", "redirect_uri differs from /authorize's");
    const challenge = crypto.createHash("sha256").update(p.code_verifier).digest("base64url");
    if (challenge !== grant.code_challenge) fail("invalid_grant", "code_verifier does not match code_challenge");
    checkResource(p.resource);
    if ((grant.resource ?? p.resource) !== p.resource) fail("invalid_target", "resource differs from /authorize's");
    return { client_id: p.client_id, scope: grant.scope, resource: p.resource };
  }

  function redeemRefreshToken(p) {
    if (p.refresh_token === undefined) fail("invalid_request", "refresh_token is required");
    const grant = refreshTokens.get(p.refresh_token);
    if (!grant || grant.client_id !== p.client_id) fail("invalid_grant", "unknown or used refresh_token");
    refreshTokens.delete(p.refresh_token);
    if ((p.resource ?? grant.resource) !== grant.resource) fail("invalid_target", "resource differs from the grant's");
    const scope = p.scope ?? grant.scope;
    const granted = grant.scope.split(" ");
    if (scope.split(" ").some((s) => !granted.includes(s))) fail("invalid_scope", "scope exceeds the grant's");
    return { ...grant, scope, granted: grant.scope };
  }

  // "METHOD /path" -> (url, body, request) => [status, json, headers?]
  const routes = {
    "GET /.well-known/oauth-authorization-server": () => {
      stats.metadata_fetches++;
      return [200, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        registration_endpoint: `${issuer}/register`,
        jwks_uri: `${issuer}/jwks`,
        response_types_supported: ["code"],
        grant_types_supported: ["authorization_code", "refresh_token"],
        code_challenge_methods_supported: ["S256"],
        token_endpoint_auth_methods_supported: ["none"],
        scopes_supported: SCOPES,
      }];
    },
    "GET /jwks": () => {
      stats.jwks_fetches++;
      return [200, { keys: published.map((kid) => keys[kid].jwk) }];
    },
    "POST /register": (url, body) => {
      const metadata = parseJson(body, "invalid_client_metadata");
      const uris = metadata.redirect_uris;
      if (!Array.isArray(uris) || uris.length === 0 || !uris.every((u) => typeof u === "string" && URL.canParse(u))) {
        fail("invalid_redirect_uri", "redirect_uris must be a non-empty array of absolute URLs");
      }
      // No secrets are issued: every client is public, whatever it asked for.
      const client = { grant_types: ["authorization_code", "refresh_token"], response_types: ["code"], ...metadata,
                       client_id: crypto.randomUUID(), client_id_issued_at: now(), token_endpoint_auth_method: "none" };
      clients.set(client.client_id, client);
      return [201, client];
    },
    "GET /authorize": (url) => {
      const p = params(url.searchParams);
      const client = clients.get(p.client_id);
      if (!client) fail("invalid_request", "unknown client_id");
      if (!client.redirect_uris.includes(p.redirect_uri)) fail("invalid_request", "redirect_uri is not registered");
      if (p.response_type !== "code") fail("unsupported_response_type", "response_type must be code");
      if (p.code_challenge_method !== "S256") fail("invalid_request", "code_challenge_method must be S256");
      const challengeOk = /^[A-Za-z0-9._~-]{43,128}$/.test(p.code_challenge ?? ""); // RFC 7636 4.2
      if (!challengeOk) fail("invalid_request", "bad or no code_challenge");
      const scopes = (p.scope ?? "").split(" ").filter(Boolean);
      if (scopes.length === 0) scopes.push(DEFAULT_SCOPE);
      const unknown = scopes.filter((s) => !SCOPES.includes(s));
      if (unknown.length) fail("invalid_scope", `unknown scope ${unknown.join(" ")}`);
      if (p.resource !== undefined) checkResource(p.resource);
      const code = crypto.randomBytes(32).toString("base64url");
      codes.set(code, { client_id: p.client_id, redirect_uri: p.redirect_uri, code_challenge: p.code_challenge,
                        scope: scopes.join(" "), resource: p.resource, expires: now() + CODE_LIFETIME });
      const location = new URL(p.redirect_uri);
      location.searchParams.set("code", code);
      if (p.state !== undefined) location.searchParams.set("state", p.state);
      return [302, {}, { location: location.href }];
    },
    "POST /token": (url, body, request) => {
      if (!/^application\/x-www-form-urlencoded\s*(;|$)/i.test(request.headers["content-type"] ?? "")) {
        fail("invalid_request", "the body must be application/x-www-form-urlencoded");
      }
      const p = params(new URLSearchParams(body));
      if (!clients.has(p.client_id)) fail("invalid_client", "unknown client_id");
      if (p.grant_type === "authorization_code") return [200, issueTokens(redeemCode(p))];
      if (p.grant_type === "refresh_token") return [200, issueTokens(redeemRefreshToken(p))];
      fail("unsupported_grant_type", "grant_type must be authorization_code or refresh_token");
    },
    "POST /test/mint": (url, body) => {
      const { claims, header, key } = parseJson(body, "invalid_request");
      for (const part of [claims, header]) {
        if (part !== undefined && (typeof part !== "object" || part === null || Array.isArray(part))) {
          fail("invalid_request", "claims and header must be JSON objects");
        }
      }
      return [200, { token: mint({ claims, header, key }) }];
    },
    "POST /test/rotate": () => [200, { keys: rotate() }],
    "GET /test/stats": () => [200, { ...stats }],
  };
  const paths = new Set(Object.keys(routes).map((route) => route.split(" ")[1]));

  const server = http.createServer(async (request, response) => {
    let status, json, headers = {};
    try {
      const url = new URL(request.url, issuer);
      const route = routes[`${request.method} ${url.pathname}`];
      if (!route && paths.has(url.pathname)) fail("invalid_request", `${request.method} is not allowed here`, 405);
      if (!route) fail("not_found", `no ${url.pathname}`, 404);
      const body = request.method === "POST" ? await readBody(request) : "";
      [status, json, headers = {}] = await route(url, body, request);
    } catch (error) {
      if (!(error instanceof OAuthError)) console.error(error);
      [status, json] = error instanceof OAuthError ? [error.status, error.body] : [500, { error: "server_error" }];
      if (status === 413) headers = { connection: "close" };
    }
    if (log) console.error(`${request.method} ${request.url.split("?")[0]} ${status}`);
    response.writeHead(status, { "content-type": "application/json", "cache-control": "no-store", ...headers });
    response.end(JSON.stringify(json));
  });
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", resolve);
  });
  issuer = `http://127.0.0.1:${server.address().port}`;

  async function close() {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
  return { issuer, port: server.address().port, mint, rotate, stats, close };
}

if (process.argv[1] && fs.realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const portArg = process.argv.indexOf("--port");
  const port = portArg > 0 ? Number(process.argv[portArg + 1]) : 0;
  const server = await startAuthorizationServer({ port, log: true });
  console.log(`listening ${server.issuer}`);
  const stop = () => server.close().then(() => process.exit(0));
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
  // Only a pipe: /dev/null (a background job's stdin) would end it at once.
  let stdin;
  try {
    stdin = fs.fstatSync(0);
  } catch {}
  if (stdin?.isFIFO() || stdin?.isSocket()) process.stdin.on("end", stop).resume();
}
