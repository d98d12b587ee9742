// Runs the unit tests (tests/unit/*.test.ts) with Node's own test runner, without a
// browser: each test file is bundled by esbuild (TypeScript stripped, the app's pure modules
// and @theboss/client's built files included) into target-like scratch space, then
// `node --test` runs them all. Exits with the runner's status.

import { spawnSync } from "node:child_process";
import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import * as esbuild from "esbuild";

const here = new URL(".", import.meta.url).pathname;
const out = join(here, "../../node_modules/.unit-tests");
rmSync(out, { recursive: true, force: true });
const tests = readdirSync(here).filter((f) => f.endsWith(".test.ts"));
await esbuild.build({
  entryPoints: tests.map((f) => join(here, f)),
  outdir: out,
  outExtension: { ".js": ".mjs" },
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  sourcemap: "inline",
  // Node's own modules stay imports; everything else is bundled.
  packages: "bundle",
  external: ["node:*"],
  logLevel: "warning",
});
const run = spawnSync(process.execPath, ["--test", "--test-reporter=spec", ...tests.map((f) => join(out, f.replace(/\.ts$/, ".mjs")))], { stdio: "inherit" });
process.exit(run.status ?? 1);
