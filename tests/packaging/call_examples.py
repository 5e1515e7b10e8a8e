#!/usr/bin/env python3
"""Asks a running `airlock serve` (stdio) to call each example tool once and
checks every answer: the C++ vendor pack's two tools, the C plugin and the
Rust plugin. Usage: call_examples.py AIRLOCK CONFIG. Exit 0 when all answer
as expected; otherwise every mismatch is printed, naming the tool."""
import base64
import json
import subprocess
import sys
import threading

TIMEOUT_S = 30

TEXT = "héllo wörld\nsecond line 😀\n"
CALLS = [
    # (tool, arguments, check(result) -> None or what was wrong)
    ("acme.text-stats", {"text": TEXT},
     lambda r: expect_structured(r, {"characters": len(TEXT), "bytes": len(TEXT.encode()),
                                     "words": 5, "lines": 2})),
    ("acme.roman", {"number": 2026}, lambda r: expect_text(r, "MMXXVI")),
    ("example.c-rot13", {"note": {"nested": ["x", 1, None]}, "text": "Hello, World! \u00e9 \"q\" \\"},
     lambda r: expect_text(r, "Uryyb, Jbeyq! \u00e9 \"d\" \\")),
    ("example.rust-base64", {"text": TEXT},
     lambda r: expect_structured(r, {"base64": base64.b64encode(TEXT.encode()).decode(),
                                     "bytes": len(TEXT.encode())})),
    # A bad argument is the tool's own error, for the model.
    ("acme.roman", {"number": 4000}, lambda r: expect_error(r)),
]


def expect_text(result, text):
    if result.get("isError"):
        return f"isError result: {result.get('content')}"
    texts = [block.get("text") for block in result.get("content", []) if block.get("type") == "text"]
    return None if texts == [text] else f"expected the text {text!r}, got {texts!r}"


def expect_structured(result, structured):
    if result.get("isError"):
        return f"isError result: {result.get('content')}"
    got = result.get("structuredContent")
    return None if got == structured else f"expected structuredContent {structured}, got {got}"


def expect_error(result):
    return None if result.get("isError") else f"expected an isError result, got {result}"


def main():
    airlock, config = sys.argv[1], sys.argv[2]
    server = subprocess.Popen([airlock, "serve", "-c", config], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, encoding="utf-8")
    stderr_lines = []
    threading.Thread(target=lambda: stderr_lines.extend(server.stderr), daemon=True).start()
    timer = threading.Timer(TIMEOUT_S, server.kill)
    timer.start()

    def send(message):
        server.stdin.write(json.dumps(message) + "\n")
        server.stdin.flush()

    def answer(request_id):
        for line in server.stdout:
            message = json.loads(line)
            if message.get("id") == request_id:
                return message
        return None

    problems = []
    try:
        send({"jsonrpc": "2.0", "id": 0, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                         "clientInfo": {"name": "deb-test", "version": "1"}}})
        if answer(0) is None or server.poll() is not None:
            problems.append("the server did not answer initialize")
        else:
            send({"jsonrpc": "2.0", "method": "notifications/initialized"})
            for index, (tool, arguments, check) in enumerate(CALLS, start=1):
                send({"jsonrpc": "2.0", "id": index, "method": "tools/call",
                      "params": {"name": tool, "arguments": arguments}})
                reply = answer(index)
                if reply is None:
                    problems.append(f"{tool}: no answer (the server ended or timed out after {TIMEOUT_S} s)")
                    break
                if "error" in reply:
                    problems.append(f"{tool}: JSON-RPC error {reply['error']}")
                    continue
                wrong = check(reply["result"])
                if wrong:
                    problems.append(f"{tool} {json.dumps(arguments, ensure_ascii=False)}: {wrong}")
                else:
                    print(f"   {tool}: ok")
    except (BrokenPipeError, json.JSONDecodeError) as error:
        problems.append(f"talking to the server failed: {error}")
    finally:
        timer.cancel()
        if server.poll() is None:
            server.stdin.close()
            try:
                server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                server.kill()
                problems.append("the server did not exit within 10 s of its stdin closing")
    if problems:
        print("\n".join(problems), file=sys.stderr)
        print("server log (last 30 lines):\n" + "".join(stderr_lines[-30:]), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
