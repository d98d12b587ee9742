// The reference front end: one page, routed by the URL's fragment (`#/`, `#/game/ID`,
// `#/replay/ID`, `#/ladder`, `#/player/ID`), so the server serves one document and every
// link can be shared. Each page is a function that fills `#page` and returns how to stop it.

import { fill, h } from "./dom.js";
import { lobbyPage } from "./lobby.js";
import { tablePage } from "./table.js";
import { replayPage } from "./replay.js";
import { ladderPage, playerPage } from "./ladder.js";
import { forget, player } from "./state.js";

export type Stop = () => void;

const root = document.getElementById("page") as HTMLElement;
let stopPage: Stop | undefined;

function showWho(): void {
  const who = document.getElementById("who") as HTMLElement;
  const p = player();
  fill(
    who,
    p
      ? h("span", {}, `Playing as ${p.name} `, h("button", { class: "link", onclick: () => { forget(); route(); } }, "sign out"))
      : "Not signed in",
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
