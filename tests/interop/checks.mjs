// The interop clients' checks: each one named, a throw is a failed check
// (later steps still run), every wait bounded, and one JSON summary at the
// end whose exit status is the verdict.
export const checks = [];

export function check(name, ok, detail) {
  checks.push({ name, ok: Boolean(ok), ...(ok ? {} : { detail }) });
}

// Runs one step; a throw is a failed check, and later steps still run.
export async function step(name, body) {
  try {
    await body();
  } catch (error) {
    check(name, false, `threw: ${error?.stack ?? error}`);
  }
}

// Bounds every step, so a hung server fails the test instead of stalling it.
export function within(ms, promise, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

// Prints every check with `extra` (what the run saw) and exits: 0 when at
// least one check ran and none failed, 1 otherwise.
export function finish(extra) {
  const failed = checks.filter((c) => !c.ok);
  console.log(JSON.stringify({ ...extra, passed: checks.length - failed.length, failed: failed.length, checks },
                             null, 2));
  process.exit(failed.length === 0 && checks.length > 0 ? 0 : 1);
}
