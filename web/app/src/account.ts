/**
 * The player's account in this browser: the recovery code (to sign in on another browser,
 * or here again), and signing out, which first shows that code and asks: the key kept here
 * is the only copy, and a player signed out without its code cannot come back.
 *
 * @module
 */

import { fill, h } from "./dom.js";
import { encodeRecovery } from "./recovery.js";
import { forget, player } from "./state.js";

/** Opens the account dialog; `changed` is called after signing out. */
export function accountDialog(changed: () => void): void {
  const p = player();
  if (!p) return;
  const code = encodeRecovery(p);
  const copied = h("span", { role: "status", class: "muted" });
  const codeBox = h("textarea", { readonly: true, rows: 3, "data-testid": "recovery-code", "aria-label": "Your recovery code", spellcheck: false }, code);
  const body = h("div");
  const dialog = h("dialog", { class: "dialog", "aria-labelledby": "account-title", "data-testid": "account" }, body);
  const close = () => dialog.close();
  const main = () =>
    fill(
      body,
      h("h2", { id: "account-title" }, `Your account: ${p.name}`),
      h("p", {}, "Your recovery code signs you in on another browser, or here again after signing out. Keep it secret: whoever has it plays as you."),
      codeBox,
      h(
        "p",
        { class: "dialog-buttons" },
        h(
          "button",
          {
            "data-testid": "copy-code",
            onclick: async () => {
              try {
                await navigator.clipboard.writeText(code);
                copied.textContent = "Copied.";
              } catch {
                codeBox.select();
                copied.textContent = "Select the code and copy it.";
              }
            },
          },
          "Copy the code",
        ),
        copied,
      ),
      h("p", {}, h("a", { href: `#/player/${p.playerId}`, onclick: close }, "Your player page")),
      h(
        "p",
        { class: "dialog-buttons" },
        h("button", { "data-testid": "sign-out", class: "danger", onclick: confirmSignOut }, "Sign out…"),
        h("button", { "data-testid": "account-close", onclick: close }, "Close"),
      ),
    );
  const confirmSignOut = () =>
    fill(
      body,
      h("h2", { id: "account-title" }, "Sign out?"),
      h("p", { class: "warning" }, "This browser keeps the only copy of your key. Without your recovery code you cannot come back as this player: your games and rating stay with a name nobody can use."),
      h("p", {}, "Your recovery code:"),
      codeBox,
      h(
        "p",
        { class: "dialog-buttons" },
        h("button", { "data-testid": "sign-out-cancel", onclick: main }, "Keep me signed in"),
        h(
          "button",
          {
            class: "danger",
            "data-testid": "sign-out-confirm",
            onclick: () => {
              forget();
              close();
              changed();
            },
          },
          "I saved my code: sign out",
        ),
      ),
    );
  dialog.addEventListener("close", () => dialog.remove());
  main();
  document.body.append(dialog);
  dialog.showModal();
}
