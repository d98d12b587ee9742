/**
 * The reference front end: one page, routed by the URL's fragment (`#/`, `#/game/ID`,
 * `#/replay/ID`, `#/ladder`, `#/player/ID`), so the server serves one document and every
 * link can be shared; the header says who plays here (a link to their player page and their
 * account) and opens the rules.
 *
 * @module
 */

import { accountDialog } from "./account.js";
import { fill, h } from "./dom.js";
import { ladderPage, playerPage } from "./ladder.js";
import { lobbyPage } from "./lobby.js";
import type { Stop } from "./page.js";
import { replayPage } from "./replay.js";
import { rulesDialog } from "./rules.js";
import { player } from "./state.js";
import { tablePage } from "./table.js";

const root = document.getElementById("page") as HTMLElement;
let stopPage: Stop | undefined;

function showWho(): void {
  const who = document.getElementById("who") as HTMLElement;
  const p = player();
  fill(
    who,
    h("button", { class: "link", "data-testid": "rules-open", onclick: rulesDialog }, "Rules"),
    " · ",
    p
      ? h(
          "span",
          {},
          "Playing as ",
          h("a", { href: `#/player/${p.playerId}`, "data-testid": "me" }, p.name),
          " · ",
          h("button", { class: "link", "data-testid": "account-open", onclick: () => accountDialog(route) }, "account"),
        )
      : h("span", {}, "Watching · ", h("a", { href: "#/", "data-testid": "register-link" }, "register to play")),
  );
}

function route(): void {
  stopPage?.();
  stopPage = undefined;
  showWho();
  const [, page = "", id = ""] = window.location.hash.split("/");
  const decoded = decodeURIComponent(id);
  fill(root);
  switch (page) {
    case "game":
      stopPage = tablePage(root, decoded);
      break;
    case "replay":
      stopPage = replayPage(root, decoded);
      break;
    case "ladder":
      stopPage = ladderPage(root);
      break;
    case "player":
      stopPage = playerPage(root, decoded);
      break;
    default:
      stopPage = lobbyPage(root, () => route());
  }
}

window.addEventListener("hashchange", route);
route();
