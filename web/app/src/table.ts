// The table: the board (cities with their cards, face-down and played cards, Chicago's
// payout, gangsters), the police, every seat's money, gangsters and card backs; your hand,
// your turn entered by clicking or by keyboard from the view's legal turns, the turn clock,
// the event log and the odds of the face-down cards. A spectator gets the same page without
// a hand: the server's view for them holds nothing hidden, and the page shows only views.

import {
  City,
  GameStatus,
  Location,
  backoffMs,
  describeError,
  isFinal,
  type Card,
  type CityCards,
  type GameUpdate,
  type GameView,
  type GetOddsResponse,
  type PlacementOption,
  type Session,
} from "@theboss/client";

import { fill, h } from "./dom.js";
import { cardText, cityName, eventText, locationName, playerName, policeName } from "./names.js";
import { session } from "./state.js";
import type { Stop } from "./main.js";

/// What the player has chosen of their turn so far.
interface Choice {
  /// Index into `legal.placements`; -1: no placement.
  option: number;
  experts: number;
  occasionals: number;
}

/// Card backs are public: how many of each city a seat holds.
const backs = (counts: { city: City; count: number }[]) => {
  const held = counts.filter((b) => b.count > 0);
  return held.length ? ` (${held.map((b) => `${b.count} ${cityName(b.city)}`).join(", ")})` : "";
};

const sameCard = (a: Card, b: Card) => a.city === b.city && a.face.case === b.face.case && a.face.value === b.face.value;

export function tablePage(root: HTMLElement, gameId: string): Stop {
  const me = session();
  if (!me) {
    root.append(h("p", {}, "Register in the ", h("a", { href: "#/" }, "lobby"), " first: watching needs a name too."));
    return () => {};
  }
  const stop = new AbortController();
  const table = new Table(root, me, gameId, stop.signal);
  void table.start();
  return () => {
    stop.abort();
    table.stop();
  };
}

class Table {
  private view: GameView | undefined;
  private catalogue = new Map<City, Card[]>();
  private log: string[] = [];
  private choice: Choice = { option: -1, experts: 0, occasionals: 0 };
  private sending = false;
  private odds: GetOddsResponse | undefined;
  private oddsSeq = -1n;
  private readonly clockTimer: ReturnType<typeof setInterval>;
  private readonly onKey = (event: KeyboardEvent) => this.key(event);

  private readonly status = h("p", { class: "status", "data-testid": "status", role: "status" });
  private readonly clock = h("span", { class: "clock", "data-testid": "clock" });
  private readonly error = h("p", { class: "error", role: "alert", "data-testid": "error" });
  private readonly board = h("section", { class: "board", "data-testid": "board", "aria-label": "The board" });
  private readonly seats = h("section", { class: "seats", "data-testid": "seats", "aria-label": "Players" });
  private readonly hand = h("section", { class: "hand", "data-testid": "hand", "aria-label": "Your hand" });
  private readonly turn = h("section", { class: "turn", "data-testid": "turn", "aria-label": "Your turn" });
  private readonly oddsPanel = h("section", { class: "odds", "data-testid": "odds", "aria-label": "Face-down odds" });
  private readonly logList = h("ol", { class: "log", "data-testid": "log" });

  constructor(
    root: HTMLElement,
    private readonly me: Session,
    private readonly gameId: string,
    private readonly signal: AbortSignal,
  ) {
    root.append(
      h("div", { class: "table-head" }, this.status, this.clock),
      this.error,
      h("div", { class: "table" }, this.board, h("div", { class: "side" }, this.seats, this.turn, this.hand, this.oddsPanel)),
      h("section", { class: "events" }, h("h2", {}, "What happened"), this.logList),
    );
    this.clockTimer = setInterval(() => this.tick(), 250);
    document.addEventListener("keydown", this.onKey);
  }

  stop(): void {
    clearInterval(this.clockTimer);
    document.removeEventListener("keydown", this.onKey);
  }

  /// Loads the table, then follows it to its end. A failure to load that trying again may
  /// mend (the server restarting, a lost connection) is tried again, so the page never stays
  /// on a table that stopped moving; one that cannot be mended (no such game) is shown.
  async start(): Promise<void> {
    for (let attempt = 1; !this.signal.aborted; attempt += 1) {
      let afterSeq: bigint;
      try {
        afterSeq = await this.load();
      } catch (e) {
        if (this.signal.aborted) return;
        this.error.textContent = describeError(e);
        if (isFinal(e)) return;
        await new Promise((resolve) => setTimeout(resolve, backoffMs(attempt)));
        continue;
      }
      try {
        for await (const item of this.me.follow(this.gameId, { signal: this.signal, afterSeq })) {
          if (item.kind === "update") this.apply(item.update);
          else if (item.kind === "snapshot") this.show(item.view);
          else this.error.textContent = "Connection lost; reconnecting…";
        }
      } catch (e) {
        // The feed resumes by itself after anything that may mend; what reaches here cannot.
        if (!this.signal.aborted) this.error.textContent = describeError(e);
      }
      return;
    }
  }

  /// The view, the log so far and the cities' cards; returns the log's last seq.
  private async load(): Promise<bigint> {
    const [view, history, catalogue] = await Promise.all([
      this.me.view(this.gameId),
      this.me.history(this.gameId),
      this.me.catalogue(this.gameId),
    ]);
    this.setCatalogue(catalogue);
    this.error.textContent = "";
    this.view = view;
    this.log = history.entries.map((entry) => eventText(entry.event, (s) => this.seatName(s)));
    this.render();
    return history.entries.at(-1)?.seq ?? 0n;
  }

  private setCatalogue(cities: CityCards[]): void {
    for (const c of cities) this.catalogue.set(c.city, c.cards);
  }

  private apply(update: GameUpdate): void {
    this.error.textContent = "";
    const text = eventText(update.event, (s) => this.seatName(s));
    if (text) this.log.push(text);
    if (update.view) this.show(update.view);
    else this.renderLog();
  }

  private show(view: GameView): void {
    if (this.view && view.seq < this.view.seq) return;
    const newTurn = !this.view || this.view.seq !== view.seq;
    this.view = view;
    if (newTurn) {
      this.choice = { option: -1, experts: 0, occasionals: 0 };
      this.sending = false;
    }
    this.render();
    void this.refreshOdds();
  }

  private seatName(seat: number): string {
    const p = this.view?.seats[seat]?.player;
    return p ? `${p.displayName}` : `seat ${seat}`;
  }

  private mine(): boolean {
    const v = this.view;
    return v !== undefined && v.viewerSeat !== undefined && v.toMove === v.viewerSeat && v.legal !== undefined;
  }

  // Rendering.

  private render(): void {
    const v = this.view;
    if (!v) return;
    const over = v.status === GameStatus.FINISHED || v.status === GameStatus.ABORTED;
    const role = v.viewerSeat === undefined ? "Watching" : `You are seat ${v.viewerSeat}`;
    const what =
      v.status === GameStatus.OPEN
        ? `waiting for players (${v.seats.filter((s) => s.player).length} of ${v.settings?.players})`
        : over
          ? v.status === GameStatus.ABORTED
            ? "aborted"
            : `finished — ${v.outcome?.winners.map((s) => this.seatName(s)).join(" and ")} won`
          : `round ${v.round}, turn ${v.turn}${v.lastTurn ? " (last turn)" : ""}${v.lastRound ? ", last round" : ""} — ${
              this.mine() ? "your turn" : `${this.seatName(v.toMove ?? 0)} to play`
            }`;
    fill(this.status, `${role} · ${what}`, over ? h("a", { href: `#/replay/${this.gameId}`, class: "replay-link", "data-testid": "replay-link" }, " replay") : null);
    this.status.dataset.state = over ? "over" : this.mine() ? "your-turn" : "waiting";
    this.renderBoard(v);
    this.renderSeats(v);
    this.renderHand(v);
    this.renderTurn(v);
    this.renderOdds();
    this.renderLog();
    this.tick();
  }

  private renderBoard(v: GameView): void {
    const police = v.police;
    fill(
      this.board,
      h("h2", {}, "Board"),
      h(
        "p",
        { class: "police", "data-testid": "police" },
        `Police: ${police?.revealed.map(policeName).join(", ") || "no badge yet"} · silver ${police?.silver ?? 0}/3, gold ${police?.gold ?? 0}/3 · ${police?.remaining ?? 0} left`,
      ),
      h(
        "div",
        { class: "locations" },
        ...v.locations.map((l) => {
          const chicago = l.location === Location.CHICAGO;
          const cards = chicago ? [] : (this.catalogue.get(l.location as number as City) ?? []);
          return h(
            "div",
            { class: `location${chicago ? " chicago" : ""}`, "data-testid": `location-${locationName(l.location)}` },
            h("h3", {}, locationName(l.location)),
            chicago
              ? h("p", { "data-testid": "chicago-value" }, `Pays its leader $${v.chicagoValue}`)
              : h("p", { class: "muted" }, `Cards: ${cards.map((c) => cardText(c).replace(`${cityName(c.city)} `, "")).join(" · ")}`),
            l.faceDown ? h("p", { class: "face-down", "data-testid": "face-down" }, "▮ a face-down card") : null,
            l.played.length ? h("p", {}, "Played: ", l.played.map(cardText).join(", ")) : null,
            h(
              "ul",
              { class: "gangsters" },
              ...l.gangsters
                .map((g, seat) => ({ g, seat }))
                .filter(({ g }) => g.experts + g.occasionals > 0)
                .map(({ g, seat }) =>
                  h("li", {}, `${this.seatName(seat)}: ${g.experts} expert${g.experts === 1 ? "" : "s"}, ${g.occasionals} occasional${g.occasionals === 1 ? "" : "s"}${l.leader === seat ? " — leads" : ""}`),
                ),
            ),
          );
        }),
      ),
    );
  }

  private renderSeats(v: GameView): void {
    fill(
      this.seats,
      h("h2", {}, "Players"),
      h(
        "ul",
        {},
        ...v.seats.map((s) => {
          const sup = s.supply;
          return h(
            "li",
            {
              class: `seat${v.toMove === s.seat ? " to-move" : ""}${v.viewerSeat === s.seat ? " me" : ""}`,
              "data-testid": `seat-${s.seat}`,
            },
            h("strong", {}, playerName(s.player)),
            v.toMove === s.seat ? " ◀ to play" : "",
            h("br"),
            `$${s.money} · experts ${sup?.expertsFree ?? 0} free, ${sup?.expertsPlaced ?? 0} out, ${sup?.expertsInHospital ?? 0} in hospital · occasionals ${sup?.occasionals ?? 0}`,
            h("br"),
            `Hand: ${s.handSize} card${s.handSize === 1 ? "" : "s"}${backs(s.handBacks)}`,
          );
        }),
      ),
    );
  }

  private renderHand(v: GameView): void {
    if (v.viewerSeat === undefined) {
      fill(this.hand);
      return;
    }
    const legal = v.legal?.cards ?? [];
    const choiceOk = this.choiceValid();
    fill(
      this.hand,
      h("h2", {}, "Your hand"),
      h(
        "div",
        { class: "cards" },
        ...v.hand.map((card, i) => {
          const playable = this.mine() && !this.sending && choiceOk && legal.some((c) => sameCard(c, card));
          return h(
            "button",
            {
              class: "card-button",
              disabled: !playable,
              "data-testid": `card-${i}`,
              "aria-keyshortcuts": i < 9 ? String(i + 1) : undefined,
              onclick: () => void this.play(card),
            },
            i < 9 ? h("kbd", {}, String(i + 1)) : null,
            " ",
            cardText(card),
          );
        }),
      ),
    );
  }

  private renderTurn(v: GameView): void {
    if (!this.mine() || !v.legal) {
      fill(this.turn);
      return;
    }
    const options = v.legal.placements;
    const chosen: PlacementOption | undefined = options[this.choice.option];
    const placeButtons = h(
      "div",
      { class: "placements", role: "group", "aria-label": "Where to place gangsters" },
      h("button", { "aria-pressed": this.choice.option === -1, "data-testid": "place-none", onclick: () => this.choose(-1) }, "No placement"),
      ...options.map((o, i) =>
        h(
          "button",
          { "aria-pressed": this.choice.option === i, "data-testid": `place-${locationName(o.location)}`, onclick: () => this.choose(i) },
          `${locationName(o.location)} (${o.minGangsters}+ to lead)`,
        ),
      ),
    );
    const stepper = (label: string, key: "experts" | "occasionals", max: number) =>
      h(
        "span",
        { class: "stepper" },
        `${label}: `,
        h("button", { "aria-label": `fewer ${label}`, "data-testid": `${key}-less`, disabled: this.choice[key] === 0, onclick: () => this.step(key, -1, max) }, "−"),
        h("output", { "data-testid": `${key}-count` }, String(this.choice[key])),
        h("button", { "aria-label": `more ${label}`, "data-testid": `${key}-more`, disabled: this.choice[key] >= max, onclick: () => this.step(key, 1, max) }, "+"),
      );
    fill(
      this.turn,
      h("h2", {}, "Your turn"),
      h("p", { class: "muted" }, "Place gangsters (or not), then play a card. Keys: L location, E experts, O occasionals, N no placement, 1–9 a card."),
      placeButtons,
      chosen ? h("div", {}, stepper("experts", "experts", chosen.maxExperts), " ", stepper("occasionals", "occasionals", chosen.maxOccasionals)) : null,
      this.choiceValid() ? null : h("p", { class: "hint", "data-testid": "placement-hint" }, this.choiceProblem()),
    );
  }

  private renderOdds(): void {
    const odds = this.odds;
    if (!odds || !this.view || this.view.viewerSeat === undefined || odds.cities.length === 0) {
      fill(this.oddsPanel);
      return;
    }
    fill(
      this.oddsPanel,
      h("h2", {}, "Face-down odds"),
      h(
        "ul",
        {},
        ...odds.cities.map((c) =>
          h(
            "li",
            {},
            h("strong", {}, cityName(c.city)),
            ` ≈ $${c.expectedMoney.toFixed(1)}: `,
            c.cards
              .filter((o) => o.probability > 0)
              .sort((a, b) => b.probability - a.probability)
              .map((o) => `${cardText(o.card).replace(`${cityName(c.city)} `, "")} ${Math.round(o.probability * 100)}%`)
              .join(", "),
          ),
        ),
      ),
    );
  }

  private renderLog(): void {
    fill(this.logList, ...this.log.slice(-200).map((line) => h("li", {}, line)));
    this.logList.scrollTop = this.logList.scrollHeight;
  }

  private tick(): void {
    const deadline = this.view?.legal?.deadline;
    if (!deadline || !this.mine()) {
      this.clock.textContent = "";
      return;
    }
    const ms = Number(deadline.seconds) * 1000 + deadline.nanos / 1e6 - Date.now();
    this.clock.textContent = `⏱ ${Math.max(0, Math.ceil(ms / 1000))} s left`;
  }

  // The turn.

  private choiceValid(): boolean {
    return this.choiceProblem() === "";
  }

  private choiceProblem(): string {
    const o = this.view?.legal?.placements[this.choice.option];
    if (!o) return "";
    const { experts, occasionals } = this.choice;
    if (experts + occasionals < Math.max(o.minGangsters, 1)) return `Place at least ${Math.max(o.minGangsters, 1)} gangster(s) in ${locationName(o.location)}.`;
    if (occasionals > 0 && experts === 0 && !o.expertPresent) return "Occasionals need an expert with them.";
    return "";
  }

  private choose(option: number): void {
    const o = this.view?.legal?.placements[option];
    this.choice = { option, experts: o ? Math.min(o.maxExperts, Math.max(o.minGangsters, 1)) : 0, occasionals: 0 };
    if (o && this.choice.experts < Math.max(o.minGangsters, 1)) this.choice.occasionals = Math.min(o.maxOccasionals, Math.max(o.minGangsters, 1) - this.choice.experts);
    this.render();
  }

  private step(key: "experts" | "occasionals", by: number, max: number): void {
    this.choice[key] = Math.max(0, Math.min(max, this.choice[key] + by));
    this.render();
  }

  private async play(card: Card): Promise<void> {
    const v = this.view;
    if (!v || !this.mine() || this.sending || !this.choiceValid()) return;
    const o = v.legal?.placements[this.choice.option];
    this.sending = true;
    this.render();
    try {
      // One key per intended turn: the view's seq names it, so a retry cannot play twice.
      const response = await this.me.submit(
        this.gameId,
        v.seq,
        { card, placement: o ? { location: o.location, experts: this.choice.experts, occasionals: this.choice.occasionals } : undefined },
        `${this.gameId}:${v.seq}`,
      );
      const latest = response.updates.findLast((u) => u.view)?.view;
      if (latest) this.show(latest);
    } catch (e) {
      this.sending = false;
      this.error.textContent = describeError(e);
      this.render();
    }
  }

  private key(event: KeyboardEvent): void {
    if (!this.mine() || event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.target instanceof HTMLInputElement || event.target instanceof HTMLSelectElement) return;
    const options = this.view?.legal?.placements ?? [];
    const o = options[this.choice.option];
    const key = event.key.toLowerCase();
    if (key === "l") this.choose(this.choice.option + 1 >= options.length ? -1 : this.choice.option + 1);
    else if (key === "n") this.choose(-1);
    else if (key === "e" && o) this.step("experts", this.choice.experts >= o.maxExperts ? -this.choice.experts : 1, o.maxExperts);
    else if (key === "o" && o) this.step("occasionals", this.choice.occasionals >= o.maxOccasionals ? -this.choice.occasionals : 1, o.maxOccasionals);
    else if (/^[1-9]$/.test(key)) {
      const card = this.view?.hand[Number(key) - 1];
      if (card && this.view?.legal?.cards.some((c) => sameCard(c, card))) void this.play(card);
    } else return;
    event.preventDefault();
  }

  private async refreshOdds(): Promise<void> {
    const v = this.view;
    if (!v || v.viewerSeat === undefined || v.status !== GameStatus.RUNNING || v.seq === this.oddsSeq) return;
    this.oddsSeq = v.seq;
    try {
      this.odds = await this.me.odds(this.gameId);
      this.renderOdds();
    } catch {
      // Odds are a help, not the game: a refusal (a busy server) leaves the panel as it was.
    }
  }
}
