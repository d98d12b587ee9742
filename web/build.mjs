// Builds the front end into dist/: one bundled, minified script and one stylesheet, each
// named by the hash of its content (so the server can let browsers keep them for a year),
// the rules (docs/RULES.md turned into HTML here, fetched by the page when asked for), and
// index.html pointing at them. Prints the gzipped sizes. `@theboss/client` is bundled from
// its built files (`npm run build:client` first; `npm run build` does both).

import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import * as esbuild from "esbuild";
import { marked } from "marked";

const out = new URL("./dist/", import.meta.url);
rmSync(out, { recursive: true, force: true });
mkdirSync(new URL("assets/", out), { recursive: true });

const named = (body, prefix, ext) => `${prefix}-${createHash("sha256").update(body).digest("hex").slice(0, 12)}.${ext}`;

// The rules: the repository's own document, so the page never restates a rule.
const rules = marked.parse(readFileSync(new URL("../docs/RULES.md", import.meta.url), "utf8"), { async: false });
const rulesName = named(rules, "rules", "html");
writeFileSync(new URL(`assets/${rulesName}`, out), rules);

const bundle = await esbuild.build({
  entryPoints: ["app/src/main.ts"],
  bundle: true,
  minify: true,
  format: "esm",
  target: "es2023",
  write: false,
  legalComments: "none",
  sourcemap: false,
  define: { RULES_URL: JSON.stringify(`/assets/${rulesName}`) },
});
const js = bundle.outputFiles[0].contents;
const css = (await esbuild.transform(readFileSync("app/style.css", "utf8"), { loader: "css", minify: true })).code;

const jsName = named(js, "app", "js");
const cssName = named(css, "app", "css");
writeFileSync(new URL(`assets/${jsName}`, out), js);
writeFileSync(new URL(`assets/${cssName}`, out), css);
const html = readFileSync("app/index.html", "utf8").replace("{{JS}}", jsName).replace("{{CSS}}", cssName);
writeFileSync(new URL("index.html", out), html);

const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;
const report = { js: jsName, js_bytes: js.length, js_gzip_bytes: gzipSync(js).length, css_gzip_bytes: gzipSync(css).length, rules_gzip_bytes: gzipSync(rules).length };
writeFileSync(new URL("build.json", out), JSON.stringify(report, null, 2));
console.log(`dist/assets/${jsName}: ${kb(js.length)} (${kb(report.js_gzip_bytes)} gzipped); ${cssName}: ${kb(report.css_gzip_bytes)} gzipped; ${rulesName}: ${kb(report.rules_gzip_bytes)} gzipped`);
