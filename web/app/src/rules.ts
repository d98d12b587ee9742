/**
 * Rules help: the project's own rulebook, docs/RULES.md, turned into HTML when the front end
 * is built (build.mjs) and fetched the first time it is asked for, so the rules are written
 * once, there, and the page's script stays small. The HTML is made by the build from a file
 * of this repository, never from anything a player sent.
 *
 * @module
 */

import { fill, h } from "./dom.js";

declare const RULES_URL: string;

let rules: Promise<DocumentFragment> | undefined;

async function load(): Promise<DocumentFragment> {
  const response = await fetch(RULES_URL);
  if (!response.ok) throw new Error(`the rules could not be loaded (HTTP ${response.status})`);
  const parsed = new DOMParser().parseFromString(await response.text(), "text/html");
  const fragment = document.createDocumentFragment();
  fragment.append(...Array.from(parsed.body.childNodes, (n) => document.importNode(n, true)));
  return fragment;
}

/** Opens the rules in a dialog. */
export function rulesDialog(): void {
  const body = h("div", { class: "rules", "data-testid": "rules" }, h("p", {}, "Loading the rules…"));
  const dialog = h(
    "dialog",
    { class: "dialog rules-dialog", "aria-label": "The rules" },
    h("form", { method: "dialog", class: "dialog-close" }, h("button", { "data-testid": "rules-close" }, "Close")),
    body,
  );
  dialog.addEventListener("close", () => dialog.remove());
  document.body.append(dialog);
  dialog.showModal();
  rules ??= load();
  rules.then(
    (fragment) => fill(body, fragment.cloneNode(true)),
    (e: unknown) => {
      rules = undefined;
      fill(body, h("p", { class: "error" }, e instanceof Error ? e.message : String(e)));
    },
  );
}
