// The ladder: the leaderboard (overall or by player count; bots, people or both) and a
// player's page with their ratings and a chart of their rating (μ − 3σ) over time.

import { PlayerKind, describeError, type RatingChange } from "@theboss/client";

import { fill, h, svg } from "./dom.js";
import { session } from "./state.js";
import type { Stop } from "./main.js";

export function ladderPage(root: HTMLElement): Stop {
  const me = session();
  if (!me) {
    root.append(h("p", {}, "Register in the ", h("a", { href: "#/" }, "lobby"), " first."));
    return () => {};
  }
  const players = h("select", { "aria-label": "Players", "data-testid": "ladder-players" }, ...[0, 2, 3, 4].map((n) => h("option", { value: n }, n === 0 ? "overall" : `${n} players`)));
  const kind = h(
    "select",
    { "aria-label": "Who", "data-testid": "ladder-kind" },
    h("option", { value: PlayerKind.UNSPECIFIED }, "everyone"),
    h("option", { value: PlayerKind.BOT }, "bots"),
    h("option", { value: PlayerKind.PERSON }, "people"),
  );
  const error = h("p", { class: "error", role: "alert" });
  const board = h("div", { "data-testid": "leaderboard" });
  const load = async () => {
    try {
      const r = await me.leaderboard(Number(players.value), Number(kind.value) as PlayerKind);
      if (r.entries.length === 0) {
        fill(board, h("p", { class: "muted" }, "Nobody is ranked here yet (10 rated games make a player's rank)."));
        return;
      }
      fill(
        board,
        h(
          "table",
          {},
          h("thead", {}, h("tr", {}, ...["#", "player", "score (μ − 3σ)", "μ", "σ", "games"].map((t) => h("th", { scope: "col" }, t)))),
          h(
            "tbody",
            {},
            ...r.entries.map((e) =>
              h(
                "tr",
                {},
                h("td", {}, String(e.rank)),
                h("td", {}, h("a", { href: `#/player/${e.playerId}` }, e.displayName), e.isBot ? " (bot)" : "", e.description ? h("div", { class: "muted" }, e.description) : null),
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
      error.textContent = describeError(e);
    }
  };
  players.addEventListener("change", () => void load());
  kind.addEventListener("change", () => void load());
  root.append(h("h1", {}, "Ladder"), h("p", {}, players, " ", kind), error, board);
  void load();
  return () => {};
}

export function playerPage(root: HTMLElement, playerId: string): Stop {
  const me = session();
  if (!me) {
    root.append(h("p", {}, "Register in the ", h("a", { href: "#/" }, "lobby"), " first."));
    return () => {};
  }
  const error = h("p", { class: "error", role: "alert" });
  const body = h("div", { "data-testid": "player" });
  root.append(error, body);
  void (async () => {
    try {
      const p = await me.player(playerId);
      fill(
        body,
        h("h1", {}, p.displayName, p.isBot ? " (bot)" : ""),
        p.description ? h("p", { class: "muted" }, p.description) : null,
        p.ratings.length
          ? h(
              "ul",
              {},
              ...p.ratings.map((r) =>
                h("li", {}, `${r.players === 0 ? "Overall" : `${r.players} players`}: ${r.score.toFixed(1)} (μ ${r.mu.toFixed(1)}, σ ${r.sigma.toFixed(2)}), ${r.games} games${r.provisional ? ", provisional" : ""}`),
              ),
            )
          : h("p", {}, "No rated games yet."),
        chart(p.history),
      );
    } catch (e) {
      error.textContent = describeError(e);
    }
  })();
  return () => {};
}

/// The rating after each rated game, μ − 3σ, as an SVG line (time left to right).
function chart(history: RatingChange[]): Node | null {
  if (history.length === 0) return null;
  const points = [...history].sort((a, b) => Number((a.at?.seconds ?? 0n) - (b.at?.seconds ?? 0n))).map((c) => c.mu - 3 * c.sigma);
  const width = 320;
  const height = 140;
  const pad = 24;
  const min = Math.min(...points);
  const max = Math.max(...points);
  const span = max - min || 1;
  const x = (i: number) => pad + (points.length === 1 ? 0 : (i * (width - 2 * pad)) / (points.length - 1));
  const y = (v: number) => height - pad - ((v - min) * (height - 2 * pad)) / span;
  const path = points.map((v, i) => `${i === 0 ? "M" : "L"}${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" ");
  const text = (tx: number, ty: number, s: string) => {
    const t = svg("text", { x: tx, y: ty, "font-size": 11 });
    t.textContent = s;
    return t;
  };
  return h(
    "figure",
    { class: "chart", "data-testid": "rating-chart" },
    svg(
      "svg",
      { viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": `Rating over ${points.length} rated games, from ${points[0].toFixed(1)} to ${points[points.length - 1].toFixed(1)}` },
      svg("path", { d: path, fill: "none", stroke: "currentColor", "stroke-width": 2 }),
      text(2, pad, max.toFixed(1)),
      text(2, height - pad + 4, min.toFixed(1)),
    ),
    h("figcaption", {}, `Rating (μ − 3σ) after each of ${points.length} rated games`),
  );
}
