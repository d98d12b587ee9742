// Builds the front end into dist/: one bundled, minified script and one stylesheet, each
// named by the hash of its content (so the server can let browsers keep them for a year),
// and index.html pointing at them. Prints the gzipped sizes.

import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import * as esbuild from "esbuild";

const out = new URL("./dist/", import.meta.url);
rmSync(out, { recursive: true, force: true });
mkdirSync(new URL("assets/", out), { recursive: true });

const bundle = await esbuild.build({
  entryPoints: ["app/src/main.ts"],
  bundle: true,
  minify: true,
  format: "esm",
  target: "es2023",
  write: false,
  legalComments: "none",
  sourcemap: false,
});
const js = bundle.outputFiles[0].contents;
const css = (await esbuild.transform(readFileSync("app/style.css", "utf8"), { loader: "css", minify: true })).code;

const named = (body, ext) => `app-${createHash("sha256").update(body).digest("hex").slice(0, 12)}.${ext}`;
const jsName = named(js, "js");
const cssName = named(css, "css");
writeFileSync(new URL(`assets/${jsName}`, out), js);
writeFileSync(new URL(`assets/${cssName}`, out), css);
const html = readFileSync("app/index.html", "utf8").replace("{{JS}}", jsName).replace("{{CSS}}", cssName);
writeFileSync(new URL("index.html", out), html);

const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;
const report = { js: jsName, js_bytes: js.length, js_gzip_bytes: gzipSync(js).length, css_gzip_bytes: gzipSync(css).length };
writeFileSync(new URL("build.json", out), JSON.stringify(report, null, 2));
console.log(`dist/assets/${jsName}: ${kb(js.length)} (${kb(report.js_gzip_bytes)} gzipped); ${cssName}: ${kb(report.css_gzip_bytes)} gzipped`);
