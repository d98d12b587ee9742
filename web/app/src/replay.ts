// A finished game, step by step: every event of its history (all revealed once it is over),
// the money each seat had after each step, and the shuffle checked here, in the browser:
// SHA-256 of the revealed seed and salt against the commitment every view showed.

import { GameStatus, describeError, verifyShuffle, type GameView, type HistoryEntry } from "@theboss/client";

import { fill, h } from "./dom.js";
import { eventText } from "./names.js";
import { session } from "./state.js";
import type { Stop } from "./main.js";

export function replayPage(root: HTMLElement, gameId: string): Stop {
  const me = session();
  if (!me) {
    root.append(h("p", {}, "Register in the ", h("a", { href: "#/" }, "lobby"), " first."));
    return () => {};
  }
  const error = h("p", { class: "error", role: "alert", "data-testid": "error" });
  const body = h("div");
  root.append(h("h1", {}, "Replay"), error, body);
  let stopped = false;
  void (async () => {
    try {
      const [view, history] = await Promise.all([me.view(gameId), me.history(gameId)]);
      if (stopped) return;
      if (view.status !== GameStatus.FINISHED && view.status !== GameStatus.ABORTED) {
        fill(body, h("p", {}, "This game is not over: ", h("a", { href: `#/game/${gameId}` }, "watch it"), "."));
        return;
      }
      show(body, view, history.entries, history.seed, history.seedSalt);
    } catch (e) {
      error.textContent = describeError(e);
    }
  })();
  return () => {
    stopped = true;
  };
}

function show(body: HTMLElement, view: GameView, entries: HistoryEntry[], seed: bigint | undefined, salt: string | undefined): void {
  const name = (seat: number) => view.seats[seat]?.player?.displayName ?? `seat ${seat}`;
  const lines = entries.map((e) => eventText(e.event, name));
  // Money after each step, from the rounds' resolutions (public once resolved).
  const money: number[][] = [];
  let current = view.seats.map(() => 0);
  for (const e of entries) {
    if (e.event?.kind.case === "roundResolved") {
      current = current.map((m, seat) => m + (e.event?.kind.case === "roundResolved" ? (e.event.kind.value.moneyWon[seat] ?? 0) : 0));
    }
    money.push(current);
  }

  let step = entries.length;
  const stepLabel = h("output", { "data-testid": "step" });
  const log = h("ol", { class: "log", "data-testid": "replay-log" });
  const standings = h("p", { "data-testid": "replay-money" });
  const slider = h("input", { type: "range", min: 0, max: entries.length, value: step, "aria-label": "Step" });
  const go = (to: number) => {
    step = Math.max(0, Math.min(entries.length, to));
    slider.value = String(step);
    stepLabel.textContent = `step ${step} of ${entries.length}`;
    fill(log, ...lines.slice(0, step).map((l) => h("li", {}, l)));
    const m = step === 0 ? view.seats.map(() => 0) : money[step - 1];
    fill(standings, view.seats.map((s) => `${name(s.seat)} $${m[s.seat] ?? 0}`).join(" · "));
  };
  slider.addEventListener("input", () => go(Number(slider.value)));

  const verdict = h("p", { class: "verdict", "data-testid": "shuffle", role: "status" });
  const seedInput = h("input", { value: seed?.toString() ?? "", inputmode: "numeric", "aria-label": "Seed", "data-testid": "seed" });
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
  fill(
    body,
    h("p", {}, `${view.seats.length} players · ${view.outcome?.winners.map(name).join(" and ") ?? "nobody"} won`),
    h(
      "div",
      { class: "replay-controls" },
      h("button", { "data-testid": "first", onclick: () => go(0) }, "⏮ first"),
      h("button", { "data-testid": "prev", onclick: () => go(step - 1) }, "◀ back"),
      h("button", { "data-testid": "next", onclick: () => go(step + 1) }, "next ▶"),
      h("button", { "data-testid": "last", onclick: () => go(entries.length) }, "last ⏭"),
      slider,
      stepLabel,
    ),
    standings,
    log,
    h(
      "section",
      { class: "card" },
      h("h2", {}, "Fair shuffle"),
      h("p", { class: "muted" }, `Commitment: ${view.seedCommitment || "(none)"}`),
      h("p", { class: "muted" }, `Salt: ${salt ?? "(not revealed)"}`),
      h("label", {}, "Seed ", seedInput),
      " ",
      h("button", { "data-testid": "verify", onclick: () => void check() }, "check"),
      verdict,
    ),
  );
  go(step);
  void check();
}
