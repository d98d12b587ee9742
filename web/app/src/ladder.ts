/**
 * The ladder: the leaderboard (overall or by player count; bots, people or both) and a
 * player's page with their ratings, a chart of their rating (μ − 3σ) over time in one
 * category, and a button to challenge them. Anyone may read both, with or without an account.
 *
 * @module
 */

import { PlayerKind, type GetPlayerResponse, type Session } from "@theboss/client";

import { fill, h, svg } from "./dom.js";
import { say } from "./messages.js";
import type { Stop } from "./page.js";
import { ratingSeries, type RatingPoint } from "./rating.js";
import { session, sessionOrSpectator } from "./state.js";

export function ladderPage(root: HTMLElement): Stop {
  const me = sessionOrSpectator();
  const players = h("select", { id: "ladder-players", "data-testid": "ladder-players" }, ...[0, 2, 3, 4].map((n) => h("option", { value: n }, n === 0 ? "overall" : `${n} players`)));
  const kind = h(
    "select",
    { id: "ladder-kind", "data-testid": "ladder-kind" },
    h("option", { value: PlayerKind.UNSPECIFIED }, "everyone"),
    h("option", { value: PlayerKind.BOT }, "bots"),
    h("option", { value: PlayerKind.PERSON }, "people"),
  );
  const error = h("p", { class: "error", role: "alert" });
  const board = h("div", { "data-testid": "leaderboard", class: "scroll-x" });
  const load = async () => {
    try {
      const r = await me.leaderboard(Number(players.value), Number(kind.value));
      error.textContent = "";
      if (r.entries.length === 0) {
        fill(board, h("p", { class: "muted" }, "Nobody is ranked here yet (10 rated games make a player's rank)."));
        return;
      }
      fill(
        board,
        h(
          "table",
          { class: "leaderboard" },
          h("caption", { class: "visually-hidden" }, "Leaderboard"),
          h("thead", {}, h("tr", {}, ...["#", "player", "score", "μ", "σ", "games"].map((t) => h("th", { scope: "col" }, t)))),
          h(
            "tbody",
            {},
            ...r.entries.map((e) =>
              h(
                "tr",
                {},
                h("td", {}, String(e.rank)),
                h("td", { class: "who" }, h("a", { href: `#/player/${e.playerId}` }, e.displayName), e.isBot ? " (bot)" : "", e.description ? h("div", { class: "muted" }, e.description) : null),
                h("td", {}, (e.rating?.score ?? 0).toFixed(1)),
                h("td", {}, (e.rating?.mu ?? 0).toFixed(1)),
                h("td", {}, (e.rating?.sigma ?? 0).toFixed(2)),
                h("td", {}, String(e.rating?.games ?? 0)),
              ),
            ),
          ),
        ),
      );
    } catch (e) {
      error.textContent = say(e).text;
    }
  };
  players.addEventListener("change", () => void load());
  kind.addEventListener("change", () => void load());
  root.append(
    h("h1", {}, "Ladder"),
    h("p", { class: "muted" }, "Rated games only: queue for one in the lobby, or challenge a player from their page. Score is μ − 3σ, a cautious estimate of skill."),
    h("p", { class: "filters" }, h("label", { for: "ladder-players" }, "Games "), players, " ", h("label", { for: "ladder-kind" }, "Players "), kind),
    error,
    board,
  );
  void load();
  return () => {};
}

export function playerPage(root: HTMLElement, playerId: string): Stop {
  const me = sessionOrSpectator();
  const error = h("p", { class: "error", role: "alert", "data-testid": "error" });
  const body = h("div", { "data-testid": "player" });
  root.append(error, body);
  void (async () => {
    try {
      const p = await me.player(playerId);
      const chartBox = h("div", { class: "chart-box" });
      const categories = [0, ...new Set(p.history.map((c) => c.players).filter((n) => n !== 0))].sort();
      const category = h(
        "select",
        { id: "chart-players", "data-testid": "chart-players" },
        ...categories.map((n) => h("option", { value: n }, n === 0 ? "overall" : `${n} players`)),
      );
      const drawChart = () => fill(chartBox, chart(ratingSeries(p.history, Number(category.value)), Number(category.value)));
      category.addEventListener("change", drawChart);
      fill(
        body,
        h("h1", {}, p.displayName, p.isBot ? " (bot)" : ""),
        p.description ? h("p", { class: "muted" }, p.description) : null,
        challengeBox(p),
        p.ratings.length
          ? h(
              "ul",
              {},
              ...p.ratings.map((r) =>
                h("li", {}, `${r.players === 0 ? "Overall" : `${r.players} players`}: ${r.score.toFixed(1)} (μ ${r.mu.toFixed(1)}, σ ${r.sigma.toFixed(2)}), ${r.games} games${r.provisional ? ", provisional" : ""}`),
              ),
            )
          : h("p", {}, "No rated games yet."),
        p.history.length ? h("p", {}, h("label", { for: "chart-players" }, "Chart of "), category) : null,
        chartBox,
      );
      drawChart();
    } catch (e) {
      error.textContent = say(e, "player").text;
    }
  })();
  return () => {};
}

/** Challenging the player of this page to a game (rated, or casual when every seat is named). */
function challengeBox(p: GetPlayerResponse): HTMLElement | null {
  const me: Session | undefined = session();
  if (!me || me.playerId === p.playerId) return null;
  const status = h("p", { role: "status", "data-testid": "challenge-status" });
  const players = h("select", { id: "challenge-players", "data-testid": "challenge-players" }, ...[2, 3, 4].map((n) => h("option", { value: n }, `${n} players`)));
  const rated = h("input", { type: "checkbox", id: "challenge-rated", checked: true, "data-testid": "challenge-rated" });
  const form = h(
    "form",
    { class: "card", "data-testid": "challenge-form" },
    h("h2", {}, `Challenge ${p.displayName}`),
    h("label", { for: "challenge-players", class: "visually-hidden" }, "Players"),
    players,
    h("label", { class: "check", for: "challenge-rated" }, rated, " rated (the other seats come from the ladder's queue)"),
    h("button", { type: "submit", "data-testid": "challenge-submit" }, "Challenge"),
    h("p", { class: "muted" }, "They answer in their lobby; you see the answer, and the table, in yours."),
    status,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      await me.challenge([p.playerId], Number(players.value), rated.checked);
      status.textContent = "Challenge sent: its answer and its table appear in your lobby.";
    } catch (e) {
      status.textContent = say(e, "player").text;
    }
  });
  return form;
}

/** The rating after each rated game of one category, as an SVG line (time left to right). */
function chart(series: RatingPoint[], players: number): Node | null {
  if (series.length === 0) return null;
  const points = series.map((p) => p.score);
  const width = 320;
  const height = 140;
  const pad = 24;
  const min = Math.min(...points);
  const max = Math.max(...points);
  const span = max - min || 1;
  const x = (i: number) => pad + (points.length === 1 ? 0 : (i * (width - 2 * pad)) / (points.length - 1));
  const y = (v: number) => height - pad - ((v - min) * (height - 2 * pad)) / span;
  const path = points.map((v, i) => `${i === 0 ? "M" : "L"}${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" ");
  const what = players === 0 ? "overall" : `in ${players}-player games`;
  return h(
    "figure",
    { class: "chart", "data-testid": "rating-chart", "data-points": points.length },
    svg(
      "svg",
      { viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": `Rating ${what} over ${points.length} rated games, from ${points[0].toFixed(1)} to ${points[points.length - 1].toFixed(1)}` },
      svg("path", { d: path, fill: "none", stroke: "currentColor", "stroke-width": 2 }),
      ...points.map((v, i) => svg("circle", { cx: x(i).toFixed(1), cy: y(v).toFixed(1), r: 2.5, fill: "currentColor" })),
      svg("text", { x: 2, y: pad, "font-size": 11, fill: "currentColor" }, max.toFixed(1)),
      svg("text", { x: 2, y: height - pad + 4, "font-size": 11, fill: "currentColor" }, min.toFixed(1)),
    ),
    h("figcaption", {}, `Rating (μ − 3σ) ${what} after each of ${points.length} rated games`),
  );
}
