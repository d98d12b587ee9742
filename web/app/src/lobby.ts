// The lobby: register (a name, person or bot; the token stays in this browser), create a
// table (players, visibility, turn clock, house bots), and the open and running tables,
// kept live, to join or watch; your own games, to go back to or replay.

import { BotStrategy, City, GameStatus, Visibility, describeError, type GameSummary } from "@theboss/client";

import { fill, h } from "./dom.js";
import { cityName, playerName } from "./names.js";
import { register, session } from "./state.js";
import type { Stop } from "./main.js";

const REFRESH_MS = 2000;

export function lobbyPage(root: HTMLElement, signedIn: () => void): Stop {
  const me = session();
  if (!me) {
    root.append(registerForm(signedIn));
    return () => {};
  }
  const error = h("p", { class: "error", role: "alert", "data-testid": "error" });
  const open = h("section", { "data-testid": "open-games" }, h("h2", {}, "Open tables"));
  const running = h("section", { "data-testid": "running-games" }, h("h2", {}, "Being played"));
  const mine = h("section", { "data-testid": "my-games" }, h("h2", {}, "Your games"));
  root.append(h("h1", {}, "Lobby"), createForm(error), error, open, running, mine);

  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const refresh = async () => {
    try {
      const [openGames, runningGames, myGames] = await Promise.all([
        me.listGames([GameStatus.OPEN]),
        me.listGames([GameStatus.RUNNING]),
        me.listGames([], true, 20),
      ]);
      if (stopped) return;
      fill(open, h("h2", {}, "Open tables"), gameList(openGames, me.playerId, "open"));
      fill(running, h("h2", {}, "Being played"), gameList(runningGames, me.playerId, "running"));
      fill(mine, h("h2", {}, "Your games"), gameList(myGames, me.playerId, "mine"));
    } catch (e) {
      error.textContent = describeError(e);
    }
    if (!stopped) timer = setTimeout(refresh, REFRESH_MS);
  };
  void refresh();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

function registerForm(signedIn: () => void): HTMLElement {
  const name = h("input", { id: "name", name: "name", required: true, maxlength: 40, autocomplete: "nickname", "data-testid": "name" });
  const bot = h("input", { id: "is-bot", type: "checkbox", "data-testid": "is-bot" });
  const error = h("p", { class: "error", role: "alert" });
  const form = h(
    "form",
    { class: "card", "data-testid": "register" },
    h("h1", {}, "Welcome to The Boss"),
    h("p", {}, "Choose a name to play under. Your key stays in this browser."),
    h("label", { for: "name" }, "Name "),
    name,
    h("label", { class: "check" }, bot, " I am a bot"),
    h("button", { type: "submit", "data-testid": "register-submit" }, "Register"),
    error,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      await register(name.value.trim(), bot.checked);
      signedIn();
    } catch (e) {
      error.textContent = describeError(e);
    }
  });
  return form;
}

function createForm(error: HTMLElement): HTMLElement {
  const players = h("select", { id: "players", "data-testid": "players" }, ...[2, 3, 4].map((n) => h("option", { value: n, selected: n === 4 }, `${n} players`)));
  const bots = h("select", { id: "house-bots", "data-testid": "house-bots" }, ...[0, 1, 2, 3].map((n) => h("option", { value: n, selected: n === 3 }, n === 0 ? "no house bots" : `${n} house bot${n > 1 ? "s" : ""}`)));
  const strategy = h(
    "select",
    { id: "strategy", "data-testid": "strategy" },
    h("option", { value: BotStrategy.ISMCTS }, "search bots (the strongest)"),
    h("option", { value: BotStrategy.HEURISTIC }, "heuristic bots (casual)"),
    h("option", { value: BotStrategy.RANDOM }, "random bots (easy)"),
  );
  const clock = h("select", { id: "clock", "data-testid": "clock" }, ...[0, 30, 60, 120].map((s) => h("option", { value: s }, s === 0 ? "no turn clock" : `${s} s a turn`)));
  const unlisted = h("input", { type: "checkbox", id: "unlisted", "data-testid": "unlisted" });
  // Which sets of cities a player count allows is the rules' to say: the server answers a
  // set it does not allow with what it does.
  const cities = [City.NEW_YORK, City.BOSTON, City.DETROIT, City.KANSAS_CITY, City.CINCINNATI, City.MEMPHIS, City.PHILADELPHIA].map(
    (city) => ({ city, box: h("input", { type: "checkbox", value: city, "data-testid": `city-${city}` }) }),
  );
  const cityChoice = h(
    "fieldset",
    { class: "cities" },
    h("legend", {}, "Cities (none ticked: the rulebook's set for the player count)"),
    ...cities.map(({ city, box }) => h("label", { class: "check" }, box, ` ${cityName(city)}`)),
  );
  const form = h(
    "form",
    { class: "card create", "data-testid": "create" },
    h("h2", {}, "New table"),
    players,
    bots,
    strategy,
    clock,
    h("label", { class: "check" }, unlisted, " unlisted"),
    cityChoice,
    h("button", { type: "submit", "data-testid": "create-submit" }, "Create and sit down"),
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const me = session();
    if (!me) return;
    const n = Number(players.value);
    const houseBots = Math.min(Number(bots.value), n - 1);
    try {
      const gameId = await me.createGame({
        settings: {
          players: n,
          turnTimeLimitSeconds: Number(clock.value),
          visibility: unlisted.checked ? Visibility.UNLISTED : Visibility.PUBLIC,
          cities: cities.filter(({ box }) => box.checked).map(({ city }) => city),
        },
        houseBots: Array(houseBots).fill(Number(strategy.value)),
      });
      await me.join(gameId);
      window.location.hash = `#/game/${gameId}`;
    } catch (e) {
      error.textContent = describeError(e);
    }
  });
  return form;
}

function gameList(games: GameSummary[], me: string, kind: string): HTMLElement {
  if (games.length === 0) return h("p", { class: "muted" }, "None.");
  return h(
    "ul",
    { class: "games" },
    ...games.map((g) => {
      const seated = g.seats.some((s) => s.playerId === me);
      const over = g.status === GameStatus.FINISHED || g.status === GameStatus.ABORTED;
      const players = g.settings?.players ?? 0;
      const free = players - g.seats.length;
      const action = over
        ? h("a", { href: `#/replay/${g.gameId}`, "data-testid": `replay-${g.gameId}` }, "replay")
        : seated
          ? h("a", { href: `#/game/${g.gameId}` }, "back to the table")
          : g.status === GameStatus.OPEN
            ? h("button", { "data-testid": `join-${g.gameId}`, onclick: () => join(g.gameId) }, "join")
            : h("a", { href: `#/game/${g.gameId}`, "data-testid": `watch-${g.gameId}` }, "watch");
      return h(
        "li",
        { "data-testid": `${kind}-game`, "data-game": g.gameId },
        h("span", {}, `${players} players · ${g.seats.map(playerName).join(", ") || "nobody yet"}`),
        g.status === GameStatus.OPEN ? h("span", { class: "muted" }, ` · ${free} seat${free === 1 ? "" : "s"} free`) : null,
        " ",
        action,
      );
    }),
  );
}

async function join(gameId: string): Promise<void> {
  const me = session();
  if (!me) return;
  await me.join(gameId);
  window.location.hash = `#/game/${gameId}`;
}
