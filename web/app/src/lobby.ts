/**
 * The lobby: register (a name, person or bot; the key stays in this browser) or sign in
 * again with a recovery code; create a table (players, house bots, turn clock, and under
 * "more options" the cities, an unlisted table, a chosen deal); queue for a rated ladder
 * game; answer challenges; and the open and running tables, kept live, to join or watch,
 * and your own games, to go back to or replay. Without an account the public tables can
 * still be watched.
 *
 * @module
 */

import {
  BotStrategy,
  ChallengeAnswer,
  ChallengeStatus,
  City,
  GameStatus,
  Visibility,
  reasonOf,
  type Challenge,
  type GameSummary,
  type Session,
} from "@theboss/client";

import { newer } from "./challenges.js";
import { fill, h } from "./dom.js";
import { say } from "./messages.js";
import { cityName, playerName } from "./names.js";
import type { Stop } from "./page.js";
import { decodeRecovery } from "./recovery.js";
import { register, remember, service, session } from "./state.js";

const REFRESH_MS = 2000;
/** How many running tables of others the lobby lists (the newest). */
const RUNNING_SHOWN = 10;

/** The lobby; `signedIn` is called once this browser has a player. */
export function lobbyPage(root: HTMLElement, signedIn: () => void): Stop {
  const me = session();
  const stops: (() => void)[] = [];
  const error = h("p", { class: "error", role: "alert", "data-testid": "error" });
  const open = h("section", { "data-testid": "open-games", "aria-labelledby": "open-title" }, h("h2", { id: "open-title" }, "Open tables"));
  const running = h("section", { "data-testid": "running-games", "aria-labelledby": "running-title" }, h("h2", { id: "running-title" }, "Being played"));
  const mine = h("section", { "data-testid": "my-games", "aria-labelledby": "mine-title" }, h("h2", { id: "mine-title" }, "Your games"));
  if (!me) {
    root.append(h("h1", { class: "visually-hidden" }, "The Boss"), registerForm(signedIn), error, running);
  } else {
    const offers = h("section", { class: "offers", "data-testid": "offers", "aria-label": "Challenges" });
    root.append(h("h1", {}, "Lobby"), createForm(me, error), ladderForm(me, error, stops), error, offers, mine, open, running);
    stops.push(followOffers(me, offers));
  }
  const watcher = me ?? service.spectator();

  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const refresh = async () => {
    try {
      const [openGames, runningGames, myGames] = await Promise.all([
        me ? me.listGames([GameStatus.OPEN]) : Promise.resolve([]),
        watcher.listGames([GameStatus.RUNNING]),
        me ? me.listGames([], true, 20) : Promise.resolve([]),
      ]);
      if (stopped) return;
      const others = runningGames.filter((g) => !g.seats.some((s) => s.playerId === watcher.playerId));
      if (me) {
        fill(open, h("h2", { id: "open-title" }, "Open tables"), gameList(openGames, me.playerId, "open", error));
        fill(mine, h("h2", { id: "mine-title" }, "Your games"), gameList(myGames, me.playerId, "mine", error));
      }
      fill(
        running,
        h("h2", { id: "running-title" }, "Being played"),
        gameList(others.slice(0, RUNNING_SHOWN), watcher.playerId, "running", error),
        others.length > RUNNING_SHOWN ? h("p", { class: "muted" }, `and ${others.length - RUNNING_SHOWN} more`) : null,
      );
      if (error.dataset.source === "refresh") error.textContent = "";
    } catch (e) {
      error.textContent = say(e).text;
      error.dataset.source = "refresh";
    }
    if (!stopped) timer = setTimeout(refresh, REFRESH_MS);
  };
  void refresh();
  return () => {
    stopped = true;
    clearTimeout(timer);
    for (const stop of stops) stop();
  };
}

function registerForm(signedIn: () => void): HTMLElement {
  // The server allows 32 characters (Unicode scalar values); `maxlength` counts UTF-16 units,
  // so a name of 32 characters outside the BMP is cut shorter here, never accepted longer.
  const name = h("input", { id: "name", name: "name", required: true, maxlength: 32, autocomplete: "nickname", "data-testid": "name" });
  const bot = h("input", { id: "is-bot", type: "checkbox", "data-testid": "is-bot" });
  const error = h("p", { class: "error", role: "alert", "data-testid": "register-error" });
  const form = h(
    "form",
    { class: "card", "data-testid": "register" },
    h("h2", {}, "Welcome to The Boss"),
    h("p", {}, "A card game of bluff and deduction for 2 to 4 gangsters. Choose a name and you are at a table against three house bots in one more click."),
    h("label", { for: "name" }, "Your name "),
    name,
    h("label", { class: "check", for: "is-bot" }, bot, " I am a bot"),
    h("button", { type: "submit", class: "primary", "data-testid": "register-submit" }, "Register"),
    h("p", { class: "muted" }, "Your key stays in this browser; you get a recovery code to sign in elsewhere."),
    error,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      await register(name.value.trim(), bot.checked);
      signedIn();
    } catch (e) {
      error.textContent = say(e, "name").text;
    }
  });
  const code = h("textarea", { id: "recovery", rows: 2, "data-testid": "recovery-input", spellcheck: false, autocomplete: "off" });
  const codeError = h("p", { class: "error", role: "alert", "data-testid": "recovery-error" });
  const recover = h(
    "form",
    { class: "card", "data-testid": "recover" },
    h("h2", {}, "Played here before?"),
    h("label", { for: "recovery" }, "Your recovery code "),
    code,
    h("button", { type: "submit", "data-testid": "recovery-submit" }, "Sign in"),
    codeError,
  );
  recover.addEventListener("submit", async (event) => {
    event.preventDefault();
    const p = decodeRecovery(code.value);
    if (p instanceof Error) {
      codeError.textContent = p.message;
      return;
    }
    try {
      // A call only a known key may make: a code whose key the server does not know is said so.
      await service.session(p).listGames([], true, 1);
      remember(p);
      signedIn();
    } catch (e) {
      codeError.textContent = say(e, "player").text;
    }
  });
  return h("div", { class: "welcome" }, form, h("details", { class: "recover" }, h("summary", {}, "Sign in with a recovery code"), recover));
}

function createForm(me: Session, error: HTMLElement): HTMLElement {
  const players = h("select", { id: "players", "data-testid": "players" }, ...[2, 3, 4].map((n) => h("option", { value: n, selected: n === 4 }, `${n} players`)));
  const bots = h("select", { id: "house-bots", "data-testid": "house-bots" }, ...[0, 1, 2, 3].map((n) => h("option", { value: n, selected: n === 3 }, n === 0 ? "no house bots" : `${n} house bot${n > 1 ? "s" : ""}`)));
  const strategy = h(
    "select",
    { id: "strategy", "data-testid": "strategy" },
    h("option", { value: BotStrategy.HEURISTIC, selected: true }, "heuristic bots (casual)"),
    h("option", { value: BotStrategy.ISMCTS }, "search bots (the strongest)"),
    h("option", { value: BotStrategy.RANDOM }, "random bots (easy)"),
  );
  // A table with a clock ends even if its people walk away: the server plays their turns.
  const clock = h(
    "select",
    { id: "clock", "data-testid": "clock" },
    ...[30, 60, 120, 300, 0].map((s) => h("option", { value: s, selected: s === 60 }, s === 0 ? "no turn clock" : `${s < 120 ? `${s} s` : `${s / 60} min`} a turn`)),
  );
  const unlisted = h("input", { type: "checkbox", id: "unlisted", "data-testid": "unlisted" });
  const seed = h("input", { id: "seed", inputmode: "numeric", pattern: "[0-9]*", size: 12, "data-testid": "deal", autocomplete: "off" });
  // Which sets of cities a player count allows is the rules' to say: the server answers a
  // set it does not allow with what it does.
  const cities = [City.NEW_YORK, City.BOSTON, City.DETROIT, City.KANSAS_CITY, City.CINCINNATI, City.MEMPHIS, City.PHILADELPHIA].map((city) => ({
    city,
    box: h("input", { type: "checkbox", id: `city-${city}`, value: city, "data-testid": `city-${city}` }),
  }));
  const cityChoice = h(
    "fieldset",
    { class: "cities" },
    h("legend", {}, "Cities (none ticked: the rulebook's set for the player count)"),
    ...cities.map(({ city, box }) => h("label", { class: "check", for: `city-${city}` }, box, ` ${cityName(city)}`)),
  );
  const form = h(
    "form",
    { class: "card create", "data-testid": "create" },
    h("h2", {}, "New table"),
    h("label", { for: "players", class: "visually-hidden" }, "Players"),
    players,
    h("label", { for: "house-bots", class: "visually-hidden" }, "House bots"),
    bots,
    h("label", { for: "strategy", class: "visually-hidden" }, "House bots' strength"),
    strategy,
    h("label", { for: "clock", class: "visually-hidden" }, "Turn clock"),
    clock,
    h("button", { type: "submit", class: "primary", "data-testid": "create-submit" }, "Create and sit down"),
    h(
      "details",
      { class: "more", "data-testid": "more-options" },
      h("summary", {}, "More options"),
      cityChoice,
      h("label", { class: "check", for: "unlisted" }, unlisted, " unlisted (only people with the link can watch)"),
      h("p", {}, h("label", { for: "seed" }, "A chosen deal (a number; unlisted tables only, to replay a known deal) "), seed),
    ),
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const n = Number(players.value);
    const houseBots = Math.min(Number(bots.value), n - 1);
    const chosen = seed.value.trim();
    if (chosen && !/^\d{1,19}$/.test(chosen)) {
      error.textContent = "A chosen deal is a whole number.";
      return;
    }
    try {
      const gameId = await me.createGame({
        settings: {
          players: n,
          turnTimeLimitSeconds: Number(clock.value),
          visibility: unlisted.checked || chosen ? Visibility.UNLISTED : Visibility.PUBLIC,
          cities: cities.filter(({ box }) => box.checked).map(({ city }) => city),
        },
        houseBots: Array(houseBots).fill(Number(strategy.value)),
        seed: chosen ? BigInt(chosen) : undefined,
      });
      await me.join(gameId);
      window.location.hash = `#/game/${gameId}`;
    } catch (e) {
      error.textContent = say(e).text;
      error.dataset.source = "create";
    }
  });
  return form;
}

/** Queueing for a rated game on the ladder: the matchmaker seats the caller with others waiting. */
function ladderForm(me: Session, error: HTMLElement, stops: (() => void)[]): HTMLElement {
  const players = h("select", { id: "queue-players", "data-testid": "queue-players" }, ...[0, 2, 3, 4].map((n) => h("option", { value: n }, n === 0 ? "any number of players" : `${n} players`)));
  const status = h("p", { class: "muted", "data-testid": "queue-status", role: "status" });
  const button = h("button", { type: "submit", "data-testid": "queue-submit" }, "Find a rated game");
  let waiting: AbortController | undefined;
  const stopWaiting = () => {
    waiting?.abort();
    waiting = undefined;
    button.textContent = "Find a rated game";
  };
  stops.push(stopWaiting);
  const form = h(
    "form",
    { class: "card ladder-queue", "data-testid": "queue" },
    h("h2", {}, "Rated game"),
    h("p", { class: "muted" }, "Played against whoever else is waiting, people or bots, with a turn clock; it counts on the ladder."),
    h("label", { for: "queue-players", class: "visually-hidden" }, "Players"),
    players,
    button,
    status,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (waiting) {
      stopWaiting();
      status.textContent = "You left the queue.";
      return;
    }
    const controller = new AbortController();
    waiting = controller;
    button.textContent = "Stop waiting";
    status.textContent = "Joining the queue…";
    try {
      for await (const m of me.enqueue(Number(players.value), controller.signal)) {
        if (m.message.case === "queued") status.textContent = `Waiting for opponents: ${m.message.value.waiting} in the queue.`;
        if (m.message.case === "matched") {
          stopWaiting();
          window.location.hash = `#/game/${m.message.value.gameId}`;
          return;
        }
      }
      status.textContent = "The queue closed without a game; try again.";
    } catch (e) {
      if (!controller.signal.aborted) {
        status.textContent = "";
        error.textContent = say(e).text;
      }
    } finally {
      if (waiting === controller) stopWaiting();
    }
  });
  return form;
}

/** Challenges to and from this player, live (the Offers stream), to accept or decline. */
function followOffers(me: Session, panel: HTMLElement): () => void {
  const stop = new AbortController();
  const challenges = new Map<string, Challenge>();
  const render = () => {
    const shown = [...challenges.values()].filter((c) => c.status === ChallengeStatus.PENDING || c.status === ChallengeStatus.SEATING || c.status === ChallengeStatus.STARTED);
    if (!shown.length) {
      fill(panel);
      return;
    }
    fill(
      panel,
      h("h2", {}, "Challenges"),
      h(
        "ul",
        { class: "games" },
        ...shown.map((c) => {
          const mineToAnswer = c.opponents.find((o) => o.playerId === me.playerId)?.answer === ChallengeAnswer.PENDING;
          const fromMe = c.challengerId === me.playerId;
          const who = fromMe ? `You challenged ${c.opponents.map((o) => o.displayName).join(", ")}` : `${c.challengerName} challenges you`;
          const game = c.gameIds[0];
          return h(
            "li",
            { "data-testid": "challenge" },
            `${who} to a ${c.players}-player ${c.rated ? "rated" : "casual"} game · `,
            c.status === ChallengeStatus.STARTED && game
              ? h("a", { href: `#/game/${game}`, "data-testid": "challenge-game" }, "go to the table")
              : mineToAnswer
                ? h(
                    "span",
                    {},
                    h("button", { "data-testid": "challenge-accept", onclick: () => void answer(c, true) }, "Accept"),
                    " ",
                    h("button", { "data-testid": "challenge-decline", onclick: () => void answer(c, false) }, "Decline"),
                  )
                : h("span", { class: "muted" }, fromMe ? "waiting for answers " : "waiting for the others "),
            fromMe && c.status === ChallengeStatus.PENDING ? h("button", { class: "link", onclick: () => void answer(c, false) }, "withdraw") : null,
          );
        }),
      ),
    );
  };
  // The answer to a call and the Offers stream race: the state further along stands.
  const keep = (c: Challenge) => {
    challenges.set(c.challengeId, newer(challenges.get(c.challengeId), c));
    render();
  };
  const answer = async (c: Challenge, accept: boolean) => {
    try {
      keep(await me.answerChallenge(c.challengeId, accept));
    } catch (e) {
      panel.append(h("p", { class: "error", role: "alert" }, say(e).text));
    }
  };
  void (async () => {
    for (let failures = 0; !stop.signal.aborted; failures++) {
      try {
        for await (const m of me.offers(stop.signal)) {
          failures = 0;
          if (m.message.case === "challenge") keep(m.message.value);
        }
      } catch (e) {
        // Offers are a convenience of the lobby: a limit reached (another tab holds the
        // streams) or a refusal ends them; anything else is tried again.
        if (stop.signal.aborted || reasonOf(e) === "TOO_MANY_STREAMS") return;
      }
      await new Promise((resolve) => setTimeout(resolve, Math.min(30_000, 1000 * 2 ** failures)));
    }
  })();
  return () => stop.abort();
}

function gameList(games: GameSummary[], me: string, kind: string, error: HTMLElement): HTMLElement {
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
        ? g.status === GameStatus.FINISHED
          ? h("a", { href: `#/replay/${g.gameId}`, "data-testid": `replay-${g.gameId}` }, "replay")
          : h("span", { class: "muted" }, "stopped")
        : seated
          ? h("a", { href: `#/game/${g.gameId}`, "data-testid": `back-${g.gameId}` }, "back to the table")
          : g.status === GameStatus.OPEN && me
            ? h("button", { "data-testid": `join-${g.gameId}`, onclick: () => void join(g.gameId, error) }, "join")
            : h("a", { href: `#/game/${g.gameId}`, "data-testid": `watch-${g.gameId}` }, "watch");
      const bots = g.seats.filter((s) => s.houseBot !== BotStrategy.UNSPECIFIED).length;
      return h(
        "li",
        { "data-testid": `${kind}-game`, "data-game": g.gameId },
        h("span", {}, `${players} players · ${g.seats.map(playerName).join(", ") || "nobody yet"}`),
        g.status === GameStatus.OPEN ? h("span", { class: "muted" }, ` · ${free} seat${free === 1 ? "" : "s"} free`) : null,
        g.ladder ? h("span", { class: "tag" }, " rated") : bots ? h("span", { class: "tag" }, ` vs ${bots} house bot${bots > 1 ? "s" : ""}`) : null,
        g.settings?.turnTimeLimitSeconds ? h("span", { class: "muted" }, ` · ${g.settings.turnTimeLimitSeconds} s a turn`) : null,
        " ",
        action,
      );
    }),
  );
}

/** Joins an open table; a table that filled or started meanwhile is said so, with a way to watch it. */
async function join(gameId: string, error: HTMLElement): Promise<void> {
  const me = session();
  if (!me) return;
  try {
    await me.join(gameId);
    window.location.hash = `#/game/${gameId}`;
  } catch (e) {
    const said = say(e);
    error.dataset.source = "join";
    fill(error, said.text, " ", h("a", { href: `#/game/${gameId}`, "data-testid": "join-watch" }, "Watch it"));
  }
}
