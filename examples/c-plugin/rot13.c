/* rot13.c — example.c-rot13, a tool in plain C11 built with nothing but a C
 * compiler and `pkg-config --cflags airlock` (see Makefile). It reads its one
 * argument, `text`, with a small JSON reader of its own (a C plugin links no
 * JSON library) and answers with the text ROT13-encoded. */
#include <airlock/airlock.h>

#include <stdlib.h>
#include <string.h>

#define STR(literal) {literal, sizeof(literal) - 1}

/* The host table, kept from init; valid until the plugin is unloaded. */
static const airlock_host_api* g_host;

/* --- Reading one string member of the arguments object ------------------
 * The host hands on_call valid JSON, always an object; the reader still
 * checks every step and reports malformed input rather than trusting it. */

typedef struct cursor {
  const char* at;
  const char* end;
} cursor;

enum { MAX_DEPTH = 64 };

static void skip_space(cursor* c) {
  while (c->at < c->end && (*c->at == ' ' || *c->at == '\t' || *c->at == '\n' || *c->at == '\r')) ++c->at;
}

static int hex_digit(char h) {
  if (h >= '0' && h <= '9') return h - '0';
  if (h >= 'a' && h <= 'f') return h - 'a' + 10;
  if (h >= 'A' && h <= 'F') return h - 'A' + 10;
  return -1;
}

/* Four hex digits after "\u"; -1 when they are not there. */
static long read_hex4(cursor* c) {
  long value = 0;
  int i;
  if (c->end - c->at < 4) return -1;
  for (i = 0; i < 4; ++i) {
    int digit = hex_digit(c->at[i]);
    if (digit < 0) return -1;
    value = value * 16 + digit;
  }
  c->at += 4;
  return value;
}

static size_t put_utf8(char* out, unsigned long cp) {
  if (cp < 0x80) {
    out[0] = (char)cp;
    return 1;
  }
  if (cp < 0x800) {
    out[0] = (char)(0xC0 | (cp >> 6));
    out[1] = (char)(0x80 | (cp & 0x3F));
    return 2;
  }
  if (cp < 0x10000) {
    out[0] = (char)(0xE0 | (cp >> 12));
    out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[2] = (char)(0x80 | (cp & 0x3F));
    return 3;
  }
  out[0] = (char)(0xF0 | (cp >> 18));
  out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
  out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
  out[3] = (char)(0x80 | (cp & 0x3F));
  return 4;
}

/* Reads the string at c->at (its opening quote). With `out` (room for as
 * many bytes as the encoded string has: decoding never grows it) it writes
 * the decoded UTF-8 there and its length to *out_len. Returns 0 on success. */
static int read_string(cursor* c, char* out, size_t* out_len) {
  size_t len = 0;
  if (c->at >= c->end || *c->at != '"') return -1;
  ++c->at;
  while (c->at < c->end) {
    char ch = *c->at++;
    unsigned long cp;
    if (ch == '"') {
      if (out_len) *out_len = len;
      return 0;
    }
    if ((unsigned char)ch < 0x20) return -1;
    if (ch != '\\') {
      if (out) out[len] = ch;
      ++len;
      continue;
    }
    if (c->at >= c->end) return -1;
    ch = *c->at++;
    switch (ch) {
      case '"': case '\\': case '/': cp = (unsigned char)ch; break;
      case 'b': cp = '\b'; break;
      case 'f': cp = '\f'; break;
      case 'n': cp = '\n'; break;
      case 'r': cp = '\r'; break;
      case 't': cp = '\t'; break;
      case 'u': {
        long high = read_hex4(c);
        if (high < 0) return -1;
        cp = (unsigned long)high;
        /* A surrogate pair is one code point; a lone surrogate becomes
         * U+FFFD, so the output stays valid UTF-8. */
        if (high >= 0xD800 && high <= 0xDBFF && c->end - c->at >= 6 && c->at[0] == '\\' && c->at[1] == 'u') {
          cursor peek = {c->at + 2, c->end};
          long low = read_hex4(&peek);
          if (low >= 0xDC00 && low <= 0xDFFF) {
            cp = 0x10000 + (((unsigned long)high - 0xD800) << 10) + ((unsigned long)low - 0xDC00);
            c->at = peek.at;
          }
        }
        if (cp >= 0xD800 && cp <= 0xDFFF) cp = 0xFFFD;
        break;
      }
      default: return -1;
    }
    /* An escape is at least 2 encoded bytes and \uXXXX 6 (12 for a pair):
     * never more decoded bytes than encoded ones. */
    if (out) len += put_utf8(out + len, cp);
    else len += 4;
  }
  return -1;
}

static int skip_value(cursor* c, int depth);

/* Skips an object or an array, c->at on its opening bracket. */
static int skip_container(cursor* c, int depth) {
  const char close = *c->at == '{' ? '}' : ']';
  const int is_object = close == '}';
  if (depth >= MAX_DEPTH) return -1;
  ++c->at;
  skip_space(c);
  if (c->at < c->end && *c->at == close) {
    ++c->at;
    return 0;
  }
  for (;;) {
    if (is_object) {
      if (read_string(c, NULL, NULL) != 0) return -1;
      skip_space(c);
      if (c->at >= c->end || *c->at != ':') return -1;
      ++c->at;
    }
    if (skip_value(c, depth + 1) != 0) return -1;
    skip_space(c);
    if (c->at >= c->end) return -1;
    if (*c->at == close) {
      ++c->at;
      return 0;
    }
    if (*c->at != ',') return -1;
    ++c->at;
    skip_space(c);
  }
}

static int skip_value(cursor* c, int depth) {
  skip_space(c);
  if (c->at >= c->end) return -1;
  if (*c->at == '"') return read_string(c, NULL, NULL);
  if (*c->at == '{' || *c->at == '[') return skip_container(c, depth);
  /* A number or a literal: the characters they are made of. */
  {
    const char* start = c->at;
    while (c->at < c->end && strchr("0123456789+-.eEtruefalsn", *c->at) != NULL) ++c->at;
    return c->at > start ? 0 : -1;
  }
}

typedef enum { MEMBER_FOUND, MEMBER_MISSING, MEMBER_NOT_STRING, MEMBER_MALFORMED } member_result;

/* Finds the top-level member `name` of the object in `json` and, when it is
 * a string, decodes it into a new buffer (*value, freed by the caller). */
static member_result string_member(airlock_str json, const char* name, char** value, size_t* value_len) {
  cursor c = {json.ptr, json.ptr + json.len};
  const size_t name_len = strlen(name);
  skip_space(&c);
  if (c.at >= c.end || *c.at != '{') return MEMBER_MALFORMED;
  ++c.at;
  skip_space(&c);
  if (c.at < c.end && *c.at == '}') return MEMBER_MISSING;
  for (;;) {
    const char* key_start = c.at + 1;
    int is_name;
    if (read_string(&c, NULL, NULL) != 0) return MEMBER_MALFORMED;
    /* Compared as written: a key spelled with escapes is not this name. */
    is_name = (size_t)(c.at - 1 - key_start) == name_len && memcmp(key_start, name, name_len) == 0;
    skip_space(&c);
    if (c.at >= c.end || *c.at != ':') return MEMBER_MALFORMED;
    ++c.at;
    skip_space(&c);
    if (is_name) {
      cursor value_cursor = c;
      if (c.at >= c.end || *c.at != '"') return MEMBER_NOT_STRING;
      *value = malloc((size_t)(c.end - c.at) + 1);
      if (*value == NULL) return MEMBER_MALFORMED;
      if (read_string(&value_cursor, *value, value_len) != 0) {
        free(*value);
        *value = NULL;
        return MEMBER_MALFORMED;
      }
      return MEMBER_FOUND;
    }
    if (skip_value(&c, 1) != 0) return MEMBER_MALFORMED;
    skip_space(&c);
    if (c.at >= c.end) return MEMBER_MALFORMED;
    if (*c.at == '}') return MEMBER_MISSING;
    if (*c.at != ',') return MEMBER_MALFORMED;
    ++c.at;
    skip_space(&c);
  }
}

/* --- The tool -------------------------------------------------------------- */

static void rot13(char* text, size_t len) {
  size_t i;
  for (i = 0; i < len; ++i) {
    char ch = text[i];
    if (ch >= 'a' && ch <= 'z') text[i] = (char)('a' + (ch - 'a' + 13) % 26);
    else if (ch >= 'A' && ch <= 'Z') text[i] = (char)('A' + (ch - 'A' + 13) % 26);
  }
}

/* Host calls this on a worker thread, possibly on several at once (the tool
 * is REENTRANT): everything it uses is its own. `arguments` is borrowed for
 * the call; the host copies the text it is given before returning. */
static airlock_status rot13_call(void* tool_data, airlock_call* call, airlock_str arguments) {
  char* text = NULL;
  size_t len = 0;
  airlock_status status;
  (void)tool_data;
  switch (string_member(arguments, "text", &text, &len)) {
    case MEMBER_FOUND: break;
    case MEMBER_MISSING:
      g_host->result_set_error(call, (airlock_str)STR("argument 'text' is required"));
      return AIRLOCK_STATUS_TOOL_ERROR;
    case MEMBER_NOT_STRING:
      g_host->result_set_error(call, (airlock_str)STR("argument 'text' must be a string"));
      return AIRLOCK_STATUS_TOOL_ERROR;
    default:
      g_host->result_set_error(call, (airlock_str)STR("the arguments are not a JSON object this tool can read"));
      return AIRLOCK_STATUS_TOOL_ERROR;
  }
  rot13(text, len);
  {
    airlock_str out = {text, len};
    status = g_host->result_add_text(call, out);
  }
  free(text);
  return status;
}

AIRLOCK_PLUGIN_EXPORT uint32_t airlock_plugin_abi_version(void) { return AIRLOCK_ABI_VERSION; }

/* Host calls this once, on the loading thread. */
AIRLOCK_PLUGIN_EXPORT airlock_status airlock_plugin_init(const airlock_host_api* host,
                                                         airlock_plugin_ctx* ctx) {
  airlock_plugin_info info = {0};
  airlock_tool_def tool = {0};
  airlock_status status;
  g_host = host;

  info.struct_size = sizeof info;
  info.name = (airlock_str)STR("example-c-rot13");
  info.version = (airlock_str)STR("1.0.0");
  info.description = (airlock_str)STR("a C tool built with pkg-config against the installed SDK");
  status = host->set_plugin_info(ctx, &info);
  if (status != AIRLOCK_STATUS_OK) return status;

  tool.struct_size = sizeof tool;
  tool.name = (airlock_str)STR("example.c-rot13");
  tool.title = (airlock_str)STR("ROT13");
  tool.description = (airlock_str)STR("Returns the text with every ASCII letter rotated by 13 places (ROT13).");
  tool.input_schema =
      (airlock_str)STR("{\"type\":\"object\",\"properties\":{\"text\":{\"type\":\"string\"}},\"required\":[\"text\"]}");
  tool.annotations = (airlock_str)STR("{\"readOnlyHint\":true,\"idempotentHint\":true,\"openWorldHint\":false}");
  tool.flags = AIRLOCK_TOOL_REENTRANT;
  tool.on_call = rot13_call;
  return host->register_tool(ctx, &tool);
}
