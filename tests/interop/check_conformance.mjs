// Reads the checks.json files the conformance CLI wrote (-o DIR) and fails
// unless every check of every scenario is SUCCESS: WARNING, INFO, SKIPPED and
// FAILURE all fail, since the suite's own summary hides warnings.
//
// One exception: server-sse-polling also writes its wire trace into
// checks.json as INFO entries (the ids in kTrace: each request sent, each
// response and event received). Those record traffic and judge nothing; an
// INFO with any other id is a verdict ("not applicable", e.g. a JSON answer
// where SSE was wanted) and fails. Each scenario needs one SUCCESS at least.
//
//   node check_conformance.mjs SCENARIO_DIR...
// Each SCENARIO_DIR is one scenario's -o directory; it must hold exactly the
// results of one run (server-<scenario>-<timestamp>/checks.json).
import { readdirSync, readFileSync, existsSync } from "node:fs";
import { join } from "node:path";

const kTrace = new Set([
  "outgoing-request", "incoming-response", "incoming-sse-event", "stream-closed",
  "incoming-request", "outgoing-response", "outgoing-sse-event",
]);

let bad = 0;
for (const dir of process.argv.slice(2)) {
  const runs = existsSync(dir) ? readdirSync(dir).filter((d) => existsSync(join(dir, d, "checks.json"))) : [];
  if (runs.length !== 1) {
    console.log(`FAIL ${dir}: expected one checks.json, found ${runs.length}`);
    bad++;
    continue;
  }
  const file = join(dir, runs[0], "checks.json");
  let checks;
  try {
    checks = JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    console.log(`FAIL ${file}: ${error.message}`);
    bad++;
    continue;
  }
  if (!Array.isArray(checks) || checks.length === 0) {
    console.log(`FAIL ${file}: no checks`);
    bad++;
    continue;
  }
  let successes = 0;
  for (const c of checks) {
    if (c.status === "SUCCESS") {
      successes++;
      console.log(`ok   ${runs[0]}: ${c.id}`);
      continue;
    }
    if (c.status === "INFO" && kTrace.has(c.id)) continue;
    bad++;
    console.log(`${c.status.padEnd(4)} ${runs[0]}: ${c.id}: ${c.description ?? c.name ?? ""}`);
    if (c.errorMessage) console.log(`       error: ${c.errorMessage}`);
    if (c.details) console.log(`       details: ${JSON.stringify(c.details)}`);
  }
  if (successes === 0) {
    console.log(`FAIL ${file}: not one SUCCESS`);
    bad++;
  }
}
console.log(bad === 0 ? "every check SUCCESS" : `${bad} check(s) not SUCCESS`);
process.exit(bad === 0 ? 0 : 1);
