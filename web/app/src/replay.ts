/**
 * A finished game, step by step: the table after each event of its history (all revealed
 * once it is over: every hand, each face-down card), the log following the step, jumps to
 * each round, and the shuffle checked here, in the browser: SHA-256 of the revealed seed and
 * salt against the commitment every view showed. Anyone may watch a replay.
 *
 * @module
 */

import { Location, errorKind, isOver, verifyShuffle, type City, type GameView, type HistoryEntry } from "@theboss/client";

import { backSvg, cardSvg } from "./cards.js";
import { fill, h } from "./dom.js";
import { say } from "./messages.js";
import { cardText, cityName, eventText, locationName, sanctionName } from "./names.js";
import type { Stop } from "./page.js";
import { replayStates, roundStarts, type ReplayState } from "./replaymodel.js";
import { sessionOrSpectator } from "./state.js";

export function replayPage(root: HTMLElement, gameId: string): Stop {
  const me = sessionOrSpectator();
  const error = h("p", { class: "error", role: "alert", "data-testid": "error" });
  const body = h("div");
  root.append(h("h1", {}, "Replay"), error, body);
  let stopped = false;
  void (async () => {
    for (let attempt = 1; !stopped; attempt++) {
      try {
        const [view, history] = await Promise.all([me.view(gameId), me.history(gameId)]);
        if (stopped) return;
        if (!isOver(view)) {
          fill(body, h("p", {}, "This game is not over: ", h("a", { href: `#/game/${gameId}` }, "watch it"), "."));
          return;
        }
        show(body, view, history.entries, history.seed, history.seedSalt);
        return;
      } catch (e) {
        error.textContent = say(e).text;
        if (errorKind(e) !== "transient") return;
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
  })();
  return () => {
    stopped = true;
  };
}

function show(body: HTMLElement, view: GameView, entries: HistoryEntry[], seed: bigint | undefined, salt: string | undefined): void {
  const name = (seat: number) => view.seats[seat]?.player?.displayName ?? `seat ${seat}`;
  const lines = entries.map((e) => eventText(e.event, name));
  const states = replayStates(entries, view.seats.length);
  const rounds = roundStarts(entries);

  let step = entries.length;
  const stepLabel = h("output", { "data-testid": "step", for: "replay-step" });
  const log = h("ol", { class: "log replay-log", "data-testid": "replay-log", tabindex: 0, "aria-label": "Events" }, ...lines.map((l, i) => h("li", { "data-step": i + 1 }, l)));
  const table = h("div", { class: "replay-table", "data-testid": "replay-board" });
  const slider = h("input", { id: "replay-step", type: "range", min: 0, max: entries.length, value: step, "aria-label": "Step" });
  const go = (to: number) => {
    step = Math.max(0, Math.min(entries.length, to));
    slider.value = String(step);
    stepLabel.textContent = `step ${step} of ${entries.length}`;
    drawTable(table, states[step], name);
    for (const li of log.children) {
      const current = Number((li as HTMLElement).dataset.step) === step;
      li.classList.toggle("current", current);
      li.classList.toggle("future", Number((li as HTMLElement).dataset.step) > step);
      if (current) li.setAttribute("aria-current", "step");
      else li.removeAttribute("aria-current");
    }
    // The log follows the step: its line is scrolled into the log's view (not the page's).
    const current = log.querySelector<HTMLElement>("li.current");
    if (current) {
      const top = current.offsetTop - log.offsetTop;
      if (top < log.scrollTop || top + current.offsetHeight > log.scrollTop + log.clientHeight) {
        log.scrollTop = Math.max(0, top - log.clientHeight / 2);
      }
    } else log.scrollTop = 0;
  };
  slider.addEventListener("input", () => go(Number(slider.value)));

  const verdict = h("p", { class: "verdict", "data-testid": "shuffle", role: "status" });
  const seedInput = h("input", { id: "seed-check", value: seed?.toString() ?? "", inputmode: "numeric", "data-testid": "seed" });
  const check = async () => {
    let typed: bigint | undefined;
    try {
      typed = seedInput.value.trim() === "" ? undefined : BigInt(seedInput.value.trim());
    } catch {
      typed = undefined;
    }
    const result = await verifyShuffle(view.seedCommitment, typed, salt);
    verdict.dataset.result = result.kind;
    verdict.textContent =
      result.kind === "verified"
        ? "✔ shuffle verified: the seed was fixed before the first deal"
        : result.kind === "mismatch"
          ? `✘ shuffle NOT verified: this seed and salt hash to ${result.found.slice(0, 16)}…, the game committed to ${result.expected.slice(0, 16)}…`
          : "The shuffle cannot be checked (no commitment, or no seed revealed).";
  };
  const winners = view.outcome?.winners.map(name).join(" and ");
  fill(
    body,
    h("p", {}, `${view.seats.map((s) => name(s.seat)).join(", ")} · ${winners ? `${winners} won` : "stopped without a result"}`),
    h(
      "div",
      { class: "replay-controls" },
      h("button", { "data-testid": "first", onclick: () => go(0) }, "◀◀ first"),
      h("button", { "data-testid": "prev", onclick: () => go(step - 1) }, "◀ back"),
      h("button", { "data-testid": "next", onclick: () => go(step + 1) }, "next ▶"),
      h("button", { "data-testid": "last", onclick: () => go(entries.length) }, "last ▶▶"),
      slider,
      stepLabel,
    ),
    h(
      "nav",
      { class: "round-jumps", "aria-label": "Rounds" },
      ...[...rounds.entries()].map(([round, at]) => h("button", { "data-testid": `round-${round}`, onclick: () => go(at) }, `Round ${round}`)),
    ),
    h("div", { class: "replay-grid" }, table, log),
    h(
      "section",
      { class: "card" },
      h("h2", {}, "Fair shuffle"),
      h("p", { class: "muted wrap" }, `Commitment: ${view.seedCommitment || "(none)"}`),
      h("p", { class: "muted wrap" }, `Salt: ${salt ?? "(not revealed)"}`),
      h("label", { for: "seed-check" }, "Seed "),
      seedInput,
      " ",
      h("button", { "data-testid": "verify", onclick: () => void check() }, "check"),
      verdict,
    ),
  );
  go(step);
  void check();
}

/** The table of one step: the row with gangsters and cards, each hand, money, police. */
function drawTable(box: HTMLElement, s: ReplayState, name: (seat: number) => string): void {
  fill(
    box,
    h("p", { "data-testid": "replay-round" }, s.round ? `Round ${s.round}${s.decisive ? " (decisive)" : ""}` : "Before the first round", s.police.length ? ` · police badges out: ${s.police.length}` : ""),
    h(
      "div",
      { class: "locations" },
      ...s.row.map((l) => {
        const chicago = l.location === Location.CHICAGO;
        const city = l.location as number as City;
        return h(
          "div",
          { class: `location${chicago ? " chicago" : ""}${s.lastPlacement === l.location ? " last-move" : ""}` },
          h("h3", { class: "location-name", "data-city": chicago ? "chicago" : String(city) }, chicago ? "Chicago" : `${city} · ${cityName(city)}`),
          chicago ? null : l.revealed ? h("div", { class: "face-down revealed", title: `face down: ${cardText(l.revealed)}` }, cardSvg(l.revealed, 0.5), h("span", { class: "visually-hidden" }, `face down: ${cardText(l.revealed)}`)) : h("div", { class: "face-down", role: "img", "aria-label": "a face-down card" }, backSvg(city, 0.5)),
          l.played.length ? h("div", { class: "played", role: "group", "aria-label": `Played: ${l.played.map(cardText).join(", ")}` }, ...l.played.map((c) => cardSvg(c, 0.5))) : null,
          h(
            "ul",
            { class: "gangsters" },
            ...l.experts
              .map((e, seat) => ({ e, o: l.occasionals[seat], seat }))
              .filter(({ e, o }) => e + o > 0)
              .map(({ e, o, seat }) => h("li", { class: `seat-colour-${seat}` }, `${name(seat)}: ${e} expert${e === 1 ? "" : "s"}, ${o} occasional${o === 1 ? "" : "s"}`)),
          ),
          l.award
            ? h(
                "p",
                { class: "award-line" },
                l.award.winner === undefined
                  ? "nobody led"
                  : `${name(l.award.winner)} led: ${l.award.sanction ? `${sanctionName(l.award.sanction)}${l.award.sanctionApplied ? "" : " (no effect)"}` : `+$${l.award.money}`}`,
              )
            : null,
        );
      }),
    ),
    h(
      "ul",
      { class: "replay-hands", "data-testid": "replay-money" },
      ...s.money.map((m, seat) =>
        h(
          "li",
          { class: `seat seat-colour-${seat}${s.lastSeat === seat ? " to-move" : ""}` },
          h("strong", {}, name(seat)),
          ` $${m}`,
          s.lastSeat === seat && s.lastCard ? ` · just played ${cardText(s.lastCard)}${s.lastPlacement ? ` and placed in ${locationName(s.lastPlacement)}` : ""}` : "",
          h("div", { class: "cards small", role: "group", "aria-label": `${name(seat)}'s hand: ${s.hands[seat].map(cardText).join(", ") || "empty"}` }, ...s.hands[seat].map((c) => cardSvg(c, 0.4))),
        ),
      ),
    ),
  );
}
