/**
 * The table: the board (cities with their cards drawn, face-down backs and played cards,
 * Chicago's payout, gangsters), the police badges, every seat's money, gangsters (free, on
 * the board, in hospital, in prison, killed), banishments and card backs; your hand, your
 * turn entered by click, touch or key from the view's legal turns, confirmed (or undone)
 * before it is sent; the turn clock and a turn signal (the tab's title, an optional sound);
 * other seats' moves shown one at a time with the last one marked; the round-end screen, the
 * final standings, resigning, and the event log and odds of the face-down cards. A spectator
 * (with or without an account) gets the same page without a hand: the server's view for them
 * holds nothing hidden, and the page shows only views and events.
 *
 * @module
 */

import {
  type City,
  GameStatus,
  Location,
  backoffMs,
  errorKind,
  isOver,
  type Card,
  type GameUpdate,
  type GameView,
  type GetOddsResponse,
  type PlacementOption,
  type RoundSummary,
  type Session,
  type TurnTaken,
} from "@theboss/client";

import { backSvg, badgeSvg, cardSvg } from "./cards.js";
import { fill, h } from "./dom.js";
import { say } from "./messages.js";
import {
  cardText,
  cityName,
  eventText,
  faceText,
  locationName,
  playerName,
  policeName,
  resolutionLines,
  seatMarks,
  supplyText,
  tieBreaks,
  turnText,
} from "./names.js";
import type { Stop } from "./page.js";
import { prefs, sessionOrSpectator, setPrefs } from "./state.js";

/** What the player has chosen of their turn so far. */
interface Choice {
  /** Index into `legal.placements`; -1: no placement. */
  option: number;
  experts: number;
  occasionals: number;
}

/** A card chosen and waiting to be confirmed (or undone) before it is sent. */
interface Pending {
  card: Card;
  /** When it is sent unless confirmed or undone first. */
  at: number;
  timer: ReturnType<typeof setTimeout>;
}

/** How long a chosen card waits for "undo" before it is sent by itself. */
const CONFIRM_MS = 3000;
const TITLE = "The Boss";
/** Other seats' moves shown one at a time only while no more than this many wait. */
const MAX_PACED = 3;

const sameCard = (a: Card, b: Card) => a.city === b.city && a.face.case === b.face.case && a.face.value === b.face.value;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Opens the table of `gameId`, for its player or as a spectator. */
export function tablePage(root: HTMLElement, gameId: string): Stop {
  const stop = new AbortController();
  const table = new Table(root, sessionOrSpectator(), gameId, stop.signal);
  void table.start();
  return () => {
    stop.abort();
    table.stop();
  };
}

class Table {
  private view: GameView | undefined;
  private readonly catalogue = new Map<City, Card[]>();
  private log: string[] = [];
  private choice: Choice = { option: -1, experts: 0, occasionals: 0 };
  private pending: Pending | undefined;
  private sending = false;
  private reconnecting = false;
  private odds: GetOddsResponse | undefined;
  private oddsSeq = -1n;
  /** The last turn shown, marked on the board. */
  private lastMove: TurnTaken | undefined;
  /** The last move was drawn once already (it slides in only the first time). */
  private landed = true;
  /** Updates from the feed not yet shown: other seats' moves are shown one at a time. */
  private readonly queue: GameUpdate[] = [];
  private draining = false;
  private lastPacedAt = 0;
  private wasMine = false;
  private toolsKey = "";
  private readonly clockTimer: ReturnType<typeof setInterval>;
  private readonly onKey = (event: KeyboardEvent) => this.key(event);

  private readonly status = h("p", { class: "status", "data-testid": "status", role: "status" });
  private readonly clock = h("span", { class: "clock", "data-testid": "clock" });
  private readonly tools = h("div", { class: "table-tools" });
  private readonly error = h("p", { class: "error", role: "alert", "data-testid": "error" });
  private readonly notice = h("div", { class: "notice", "data-testid": "notice" });
  private readonly announce = h("p", { class: "last-move-text", "data-testid": "last-move", "aria-live": "polite" });
  private readonly roundEnd = h("section", { class: "round-end", "data-testid": "round-end", "aria-label": "Round result", hidden: true });
  private readonly standings = h("section", { class: "standings", "data-testid": "standings", "aria-label": "Final standings", hidden: true });
  private readonly board = h("section", { class: "board", "data-testid": "board", "aria-label": "The board" });
  private readonly seats = h("section", { class: "seats", "data-testid": "seats", "aria-label": "Players" });
  private readonly hand = h("section", { class: "hand", "data-testid": "hand", "aria-label": "Your hand" });
  private readonly turn = h("section", { class: "turn", "data-testid": "turn", "aria-label": "Your turn" });
  private readonly oddsPanel = h("section", { class: "odds", "data-testid": "odds", "aria-label": "Face-down odds" });
  private readonly logList = h("ol", { class: "log", "data-testid": "log", tabindex: 0, "aria-label": "Events, oldest first" });

  constructor(
    root: HTMLElement,
    private readonly me: Session,
    private readonly gameId: string,
    private readonly signal: AbortSignal,
  ) {
    root.append(
      h("h1", { class: "visually-hidden" }, "Table"),
      h("div", { class: "table-head" }, this.status, this.clock, this.tools),
      this.error,
      this.notice,
      this.standings,
      this.roundEnd,
      this.announce,
      h(
        "div",
        { class: "table" },
        this.board,
        h("div", { class: "side" }, this.seats, this.oddsPanel),
      ),
      h("div", { class: "action-bar", "data-testid": "action-bar" }, this.turn, this.hand),
      h("section", { class: "events", "aria-label": "What happened" }, h("h2", {}, "What happened"), this.logList),
    );
    this.clockTimer = setInterval(() => this.tick(), 250);
    document.addEventListener("keydown", this.onKey);
  }

  stop(): void {
    clearInterval(this.clockTimer);
    this.undo();
    document.removeEventListener("keydown", this.onKey);
    document.title = TITLE;
  }

  /**
   * Loads the table, then follows it to its end. A failure to load that trying again may
   * mend (the server restarting, a lost connection) is tried again, so the page never stays
   * on a table that stopped moving; one that cannot be mended (no such game) is shown.
   */
  async start(): Promise<void> {
    for (let attempt = 1; !this.signal.aborted; attempt += 1) {
      let afterSeq: bigint;
      try {
        afterSeq = await this.load();
      } catch (e) {
        if (this.signal.aborted) return;
        this.error.textContent = say(e).text;
        const kind = errorKind(e);
        if (kind === "final" || kind === "refused") return;
        await sleep(backoffMs(attempt));
        continue;
      }
      try {
        for await (const item of this.me.follow(this.gameId, { signal: this.signal, afterSeq })) {
          if (item.kind === "reconnecting") {
            this.setReconnecting(true);
            continue;
          }
          this.setReconnecting(false);
          if (item.kind === "update") this.enqueue(item.update);
          else this.show(item.view);
        }
      } catch (e) {
        // The feed resumes by itself after anything that may mend; what reaches here cannot.
        if (!this.signal.aborted) this.error.textContent = say(e).text;
      }
      return;
    }
  }

  /**
   * The view, the log up to it and the cities' cards; returns the seq the feed resumes
   * after. The history may be newer than the view (events happened between the two
   * answers) or older: the log keeps only what the view includes, and the feed resumes
   * after the older of the two, so the updates it sends again bring the log and the view up
   * to date (a resume after the newer one would send nothing more if the table then waited
   * for this page's seat, and the page would show someone else's turn for ever).
   */
  private async load(): Promise<bigint> {
    const [view, history, catalogue] = await Promise.all([
      this.me.view(this.gameId, { signal: this.signal }),
      this.me.history(this.gameId, { signal: this.signal }),
      this.me.catalogue(this.gameId, { signal: this.signal }),
    ]);
    for (const c of catalogue) this.catalogue.set(c.city, c.cards);
    this.error.textContent = "";
    const last = history.entries.at(-1)?.seq ?? 0n;
    const resumeAfter = last < view.seq ? last : view.seq;
    const known = history.entries.filter((e) => e.seq <= resumeAfter);
    this.view = undefined;
    this.log = [];
    this.show(view);
    this.log = known.map((entry) => eventText(entry.event, (s) => this.seatName(s))).filter(Boolean);
    const lastTurn = known.findLast((e) => e.event?.kind.case === "turnTaken")?.event?.kind;
    if (lastTurn?.case === "turnTaken") this.lastMove = lastTurn.value;
    this.render();
    if (isOver(view)) this.showStandings(view);
    return resumeAfter;
  }

  /** Takes an update from the feed: shown at once, or after the moves before it had their time. */
  private enqueue(update: GameUpdate): void {
    this.queue.push(update);
    if (!this.draining) void this.drain();
  }

  private async drain(): Promise<void> {
    this.draining = true;
    try {
      while (this.queue.length && !this.signal.aborted) {
        const update = this.queue[0];
        const kind = update.event?.kind;
        // A page behind by more than a few moves (a spectator who arrived late, a tab
        // that slept) catches up at once rather than lag further behind the table.
        const behind = this.queue.filter((u) => u.event?.kind.case === "turnTaken").length;
        if (kind?.case === "turnTaken" && kind.value.seat !== this.view?.viewerSeat && behind <= MAX_PACED) {
          const wait = this.lastPacedAt + prefs().paceMs - Date.now();
          if (wait > 0) await sleep(wait);
          this.lastPacedAt = Date.now();
        }
        this.queue.shift();
        this.apply(update);
      }
    } finally {
      this.draining = false;
    }
  }

  private apply(update: GameUpdate): void {
    const kind = update.event?.kind;
    const text = eventText(update.event, (s) => this.seatName(s));
    if (text) this.log.push(text);
    if (kind?.case === "turnTaken") {
      this.lastMove = kind.value;
      this.landed = false;
      this.announce.textContent = `Last move: ${turnText(kind.value, (s) => this.seatName(s))}`;
    }
    if (kind?.case === "roundResolved") this.showRoundEnd(kind.value);
    if (kind?.case === "playerLeft" && kind.value.player?.seat !== undefined) {
      this.notice.textContent = kind.value.resigned
        ? `${playerName(kind.value.player)} resigned: the server plays the seat to the end.`
        : `${playerName(kind.value.player)} left the table.`;
    }
    if (update.view) this.show(update.view);
    else this.renderLog();
    if (kind?.case === "gameEnded" || kind?.case === "gameAborted") {
      if (this.view) this.showStandings(this.view);
      this.roundEnd.hidden = true;
      this.standings.scrollIntoView({ block: "start" });
    }
  }

  private show(view: GameView): void {
    if (this.view && view.seq < this.view.seq) return;
    const newTurn = !this.view || this.view.seq !== view.seq;
    this.view = view;
    if (newTurn) {
      this.choice = { option: -1, experts: 0, occasionals: 0 };
      this.sending = false;
      this.undo();
    }
    this.error.textContent = "";
    this.render();
    this.signalTurn();
    void this.refreshOdds();
  }

  private setReconnecting(on: boolean): void {
    if (this.reconnecting === on) return;
    this.reconnecting = on;
    this.renderStatus();
  }

  private seatName(seat: number): string {
    const p = this.view?.seats[seat]?.player;
    return p ? `${p.displayName}` : `seat ${seat}`;
  }

  private mine(): boolean {
    const v = this.view;
    return v !== undefined && v.viewerSeat !== undefined && v.toMove === v.viewerSeat && v.legal !== undefined && !this.queue.length;
  }

  /** The tab's title and, if asked for, a sound, when it becomes this page's turn. */
  private signalTurn(): void {
    const mine = this.mine();
    document.title = mine ? `▶ Your turn · ${TITLE}` : this.view && isOver(this.view) ? `Game over · ${TITLE}` : TITLE;
    if (mine && !this.wasMine && prefs().sound) beep();
    this.wasMine = mine;
  }

  // Rendering.

  private render(): void {
    const v = this.view;
    if (!v) return;
    this.renderStatus();
    this.renderTools(v);
    this.renderBoard(v);
    this.renderSeats(v);
    this.renderHand(v);
    this.renderTurn(v);
    this.renderOdds();
    this.renderLog();
    this.tick();
  }

  private renderStatus(): void {
    const v = this.view;
    if (!v) return;
    const over = isOver(v);
    const role = v.viewerSeat === undefined ? "Watching" : `You are ${this.seatName(v.viewerSeat)} (seat ${v.viewerSeat + 1})`;
    const what =
      v.status === GameStatus.OPEN
        ? `waiting for players (${v.seats.filter((s) => s.player).length} of ${v.settings?.players})`
        : over
          ? v.status === GameStatus.ABORTED
            ? "the game was stopped without a result"
            : `game over — ${v.outcome?.winners.map((s) => this.seatName(s)).join(" and ")} won`
          : `round ${v.round}, turn ${v.turn}${v.lastTurn ? " (last turn)" : ""}${v.lastRound ? ", last round" : ""} — ${
              this.mine() ? "your turn" : `${this.seatName(v.toMove ?? 0)} to play`
            }`;
    fill(
      this.status,
      `${role} · ${what}`,
      this.reconnecting ? h("span", { class: "reconnecting", "data-testid": "reconnecting" }, " · reconnecting…") : null,
      over ? h("a", { href: `#/replay/${this.gameId}`, class: "replay-link", "data-testid": "replay-link" }, " replay") : null,
    );
    this.status.dataset.state = over ? "over" : this.mine() ? "your-turn" : "waiting";
  }

  private renderTools(v: GameView, force = false): void {
    const p = prefs();
    // Drawn again only when what it shows changes, so a button is not replaced under the
    // pointer or the keyboard's focus by every move.
    const key = [v.status, v.viewerSeat, v.viewerSeat !== undefined && v.seats[v.viewerSeat]?.forfeited, v.lastResolution?.round, p.paceMs, p.sound].join();
    if (key === this.toolsKey && !force) return;
    this.toolsKey = key;
    const pace = h(
      "select",
      { "aria-label": "Pace of the other players' moves", "data-testid": "pace", onchange: (e: Event) => setPrefs({ paceMs: Number((e.target as HTMLSelectElement).value) }) },
      ...[
        [1500, "slow moves"],
        [700, "normal moves"],
        [150, "fast moves"],
      ].map(([ms, label]) => h("option", { value: ms, selected: p.paceMs === ms }, String(label))),
    );
    const sound = h("button", {
      "aria-pressed": p.sound,
      "data-testid": "sound",
      onclick: () => {
        setPrefs({ sound: !prefs().sound });
        this.renderTools(v, true);
      },
    }, "turn sound");
    const running = v.status === GameStatus.RUNNING;
    const mySeat = v.viewerSeat !== undefined ? v.seats[v.viewerSeat] : undefined;
    const leave =
      v.viewerSeat === undefined || isOver(v)
        ? null
        : running
          ? mySeat?.forfeited
            ? null
            : h("button", { class: "danger", "data-testid": "resign", onclick: () => void this.resign() }, "Resign…")
          : h("button", { "data-testid": "leave", onclick: () => void this.leave() }, "Leave the table");
    const join =
      v.viewerSeat === undefined && v.status === GameStatus.OPEN && !this.me.anonymous
        ? h("button", { "data-testid": "sit-down", onclick: () => void this.sitDown() }, "Sit down")
        : null;
    const register = this.me.anonymous ? h("a", { href: "#/", class: "button", "data-testid": "register-to-play" }, "Register to play") : null;
    const lastRound = v.lastResolution
      ? h("button", { "data-testid": "show-round-end", onclick: () => this.view?.lastResolution && this.showRoundEnd(this.view.lastResolution) }, `Round ${v.lastResolution.round} result`)
      : null;
    fill(this.tools, join, register, lastRound, pace, " ", sound, " ", leave);
  }

  private renderBoard(v: GameView): void {
    const police = v.police;
    const last = this.lastMove;
    const landing = !this.landed;
    this.landed = true;
    fill(
      this.board,
      h("h2", {}, "Board"),
      h(
        "div",
        { class: "police", "data-testid": "police" },
        h("span", {}, "Police: "),
        ...(police?.revealed.length ? police.revealed.map((b) => h("span", { class: "badge", title: policeName(b) }, badgeSvg(b), h("span", { class: "badge-word" }, policeName(b)))) : [h("span", {}, "no badge yet")]),
        h("span", { class: "muted" }, ` · silver ${police?.silver ?? 0}/3, gold ${police?.gold ?? 0}/3 · ${police?.remaining ?? 0} left`),
      ),
      h(
        "div",
        { class: "locations" },
        ...v.locations.map((l) => {
          const chicago = l.location === Location.CHICAGO;
          const city = l.location as number as City;
          const cards = chicago ? [] : (this.catalogue.get(city) ?? []);
          const placedHere = last?.action?.placement?.location === l.location;
          const lastCard = last?.action?.card;
          return h(
            "div",
            {
              class: `location${chicago ? " chicago" : ""}${placedHere ? " last-move" : ""}${placedHere && landing ? " landing" : ""}`,
              "data-testid": `location-${locationName(l.location)}`,
            },
            h(
              "h3",
              { class: "location-name", "data-city": chicago ? "chicago" : String(city) },
              chicago ? "Chicago" : `${city} · ${cityName(city)}`,
            ),
            chicago
              ? h("p", { "data-testid": "chicago-value" }, `Pays its leader $${v.chicagoValue}`)
              : h("p", { class: "muted" }, `Cards: ${cards.map(faceText).join(" · ")}`),
            l.faceDown ? h("div", { class: "face-down", "data-testid": "face-down", role: "img", "aria-label": "a face-down card" }, backSvg(city, 0.6)) : null,
            l.played.length
              ? h(
                  "div",
                  { class: "played", "aria-label": `Played: ${l.played.map(cardText).join(", ")}`, role: "group" },
                  ...l.played.map((c, i) =>
                    h(
                      "span",
                      { class: `played-card${i === l.played.length - 1 && lastCard && sameCard(c, lastCard) ? ` last-move${landing ? " landing" : ""}` : ""}`, title: cardText(c) },
                      cardSvg(c, 0.6),
                      h("span", { class: "visually-hidden" }, cardText(c)),
                    ),
                  ),
                )
              : null,
            h(
              "ul",
              { class: "gangsters" },
              ...l.gangsters
                .map((g, seat) => ({ g, seat }))
                .filter(({ g }) => g.experts + g.occasionals > 0)
                .map(({ g, seat }) =>
                  h(
                    "li",
                    { class: `seat-colour-${seat}` },
                    h("span", { class: "cubes", "aria-hidden": "true" }, "■".repeat(g.experts) + "▪".repeat(g.occasionals)),
                    ` ${this.seatName(seat)}: ${g.experts} expert${g.experts === 1 ? "" : "s"}, ${g.occasionals} occasional${g.occasionals === 1 ? "" : "s"}${l.leader === seat ? " — leads" : ""}`,
                  ),
                ),
            ),
            placedHere ? h("p", { class: "last-move-mark" }, `◀ last move: ${this.seatName(last?.seat ?? 0)}`) : null,
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
        ...v.seats.map((s) =>
          h(
            "li",
            {
              class: `seat seat-colour-${s.seat}${v.toMove === s.seat ? " to-move" : ""}${v.viewerSeat === s.seat ? " me" : ""}`,
              "data-testid": `seat-${s.seat}`,
            },
            h("strong", {}, playerName(s.player)),
            v.viewerSeat === s.seat ? " (you)" : "",
            v.toMove === s.seat ? " ◀ to play" : "",
            h("br"),
            h("span", { class: "money" }, `$${s.money}`),
            ` · ${supplyText(s.supply)}`,
            ...seatMarks(s).map((m) => h("span", { class: "mark" }, ` · ${m}`)),
            h("br"),
            h(
              "span",
              { class: "backs", "aria-label": `Hand: ${s.handSize} card${s.handSize === 1 ? "" : "s"}${s.handBacks.filter((b) => b.count).map((b) => `, ${b.count} ${cityName(b.city)}`).join("")}` },
              `Hand: ${s.handSize} `,
              ...s.handBacks.filter((b) => b.count > 0).flatMap((b) => Array.from({ length: b.count }, () => backSvg(b.city, 0.28))),
            ),
          ),
        ),
      ),
    );
  }

  private renderHand(v: GameView): void {
    if (v.viewerSeat === undefined || isOver(v)) {
      fill(this.hand);
      return;
    }
    const legal = v.legal?.cards ?? [];
    const choiceOk = this.choiceValid();
    const pending = this.pending;
    fill(
      this.hand,
      h("h2", {}, "Your hand"),
      pending
        ? h(
            "div",
            { class: "confirm", "data-testid": "confirm", role: "group", "aria-label": "Confirm your card" },
            h("span", {}, `Playing ${cardText(pending.card)}${this.placementWords()} in `, h("span", { "data-testid": "countdown" }, `${Math.max(0, Math.ceil((pending.at - Date.now()) / 1000))}`), " s"),
            h("button", { class: "primary", "data-testid": "confirm-play", onclick: () => void this.confirm() }, "Play now ✓"),
            h("button", { "data-testid": "undo", onclick: () => { this.undo(); this.render(); } }, "Undo ✗"),
          )
        : null,
      h(
        "div",
        { class: "cards" },
        ...v.hand.map((card, i) => {
          const playable = this.mine() && !this.sending && !pending && choiceOk && legal.some((c) => sameCard(c, card));
          const chosen = pending && sameCard(pending.card, card);
          return h(
            "button",
            {
              class: `card-button${chosen ? " chosen" : ""}`,
              disabled: !playable,
              "aria-label": `${cardText(card)}${i < 9 ? ` (key ${i + 1})` : ""}`,
              "data-testid": `card-${i}`,
              "data-card": cardText(card),
              "aria-keyshortcuts": i < 9 ? String(i + 1) : undefined,
              onclick: () => this.choose(card),
            },
            cardSvg(card),
            i < 9 ? h("kbd", { "aria-hidden": "true" }, String(i + 1)) : null,
          );
        }),
      ),
    );
  }

  private placementWords(): string {
    const o = this.view?.legal?.placements[this.choice.option];
    if (!o) return "";
    return `, placing ${this.choice.experts} expert(s) and ${this.choice.occasionals} occasional(s) in ${locationName(o.location)},`;
  }

  private renderTurn(v: GameView): void {
    if (!this.mine() || !v.legal) {
      fill(
        this.turn,
        v.viewerSeat !== undefined && v.status === GameStatus.RUNNING
          ? h("p", { class: "muted", "data-testid": "waiting" }, `Waiting for ${this.seatName(v.toMove ?? 0)}…`)
          : null,
      );
      return;
    }
    const options = v.legal.placements;
    const chosen: PlacementOption | undefined = options[this.choice.option];
    const locked = this.pending !== undefined || this.sending;
    const placeButtons = h(
      "div",
      { class: "placements", role: "group", "aria-label": "Where to place gangsters" },
      h("button", { "aria-pressed": this.choice.option === -1, disabled: locked, "data-testid": "place-none", onclick: () => this.place(-1) }, "No placement"),
      ...options.map((o, i) =>
        h(
          "button",
          { "aria-pressed": this.choice.option === i, disabled: locked, "data-testid": `place-${locationName(o.location)}`, onclick: () => this.place(i) },
          `${locationName(o.location)} (${o.minGangsters}+ to lead)`,
        ),
      ),
    );
    const stepper = (label: string, key: "experts" | "occasionals", max: number) =>
      h(
        "span",
        { class: "stepper" },
        `${label}: `,
        h("button", { "aria-label": `fewer ${label}`, "data-testid": `${key}-less`, disabled: locked || this.choice[key] === 0, onclick: () => this.step(key, -1, max) }, "−"),
        h("output", { "data-testid": `${key}-count`, "aria-live": "polite" }, String(this.choice[key])),
        h("button", { "aria-label": `more ${label}`, "data-testid": `${key}-more`, disabled: locked || this.choice[key] >= max, onclick: () => this.step(key, 1, max) }, "+"),
      );
    fill(
      this.turn,
      h("h2", {}, "Your turn"),
      h("p", { class: "muted keys" }, "Place gangsters (or not), then choose a card. Keys: L location, E experts, O occasionals, N no placement, 1–9 a card, Enter to play it, Esc to undo."),
      placeButtons,
      chosen ? h("div", {}, stepper("experts", "experts", chosen.maxExperts), " ", stepper("occasionals", "occasionals", chosen.maxOccasionals)) : null,
      this.choiceValid() ? null : h("p", { class: "hint", "data-testid": "placement-hint" }, this.choiceProblem()),
    );
  }

  private renderOdds(): void {
    const odds = this.odds;
    if (!odds || !this.view || odds.cities.length === 0 || isOver(this.view)) {
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
              .map((o) => `${faceText(o.card)} ${Math.round(o.probability * 100)}%`)
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

  /** The round-end screen: face-down cards turned, who led each city, what each sanction did, the money. */
  private showRoundEnd(r: RoundSummary): void {
    const name = (s: number) => this.seatName(s);
    this.roundEnd.hidden = false;
    fill(
      this.roundEnd,
      h("h2", {}, `Round ${r.round}: the result`),
      h(
        "div",
        { class: "turned" },
        ...r.awards.map((a) =>
          h(
            "figure",
            { class: "award" },
            a.card && a.location !== Location.CHICAGO ? cardSvg(a.card, 0.8) : h("span", { class: "chicago-mark", "aria-hidden": "true" }, "★"),
            h("figcaption", {}, locationName(a.location)),
          ),
        ),
      ),
      h("ul", { class: "resolution", "data-testid": "round-end-lines" }, ...resolutionLines(r, name).map((line) => h("li", {}, line))),
      h("button", { "data-testid": "close-round-end", onclick: () => (this.roundEnd.hidden = true) }, "Close"),
    );
  }

  /** The final standings, with the tie-breaks that ordered them. */
  private showStandings(v: GameView): void {
    const name = (s: number) => this.seatName(s);
    this.standings.hidden = false;
    if (v.status === GameStatus.ABORTED || !v.outcome) {
      fill(this.standings, h("h2", {}, "The game was stopped"), h("p", {}, "It ended without a result (every person at the table left, or it never filled)."), h("a", { href: "#/" }, "Back to the lobby"));
      return;
    }
    const o = v.outcome;
    fill(
      this.standings,
      h("h2", {}, `Game over: ${o.winners.map(name).join(" and ")} ${o.winners.length > 1 ? "share the win" : "wins"}`),
      h(
        "table",
        { "data-testid": "standings-table" },
        h("caption", { class: "muted" }, `After ${o.rounds} round${o.rounds === 1 ? "" : "s"}`),
        h("thead", {}, h("tr", {}, ...["#", "player", "money", "won in the last round", "gangsters owned"].map((t) => h("th", { scope: "col" }, t)))),
        h(
          "tbody",
          {},
          ...o.standings.map((s, i) =>
            h(
              "tr",
              { class: o.winners.includes(s.seat) ? "winner" : "" },
              h("td", {}, String(i + 1)),
              h("th", { scope: "row" }, `${name(s.seat)}${o.winners.includes(s.seat) ? " ★ winner" : ""}${s.seat === v.viewerSeat ? " (you)" : ""}`),
              h("td", {}, `$${s.money}`),
              h("td", {}, `$${s.moneyLastRound}`),
              h("td", {}, String(s.gangstersOwned)),
            ),
          ),
        ),
      ),
      h("p", { class: "muted" }, "Most money wins; a tie goes to the most money won in the last round, then to the most gangsters owned, then to a decisive round."),
      ...tieBreaks(o, name).map((t) => h("p", { "data-testid": "tie-break" }, t)),
      h("p", {}, h("a", { href: `#/replay/${this.gameId}`, "data-testid": "standings-replay" }, "Replay this game"), " · ", h("a", { href: "#/" }, "Back to the lobby")),
    );
  }

  private tick(): void {
    if (this.pending) {
      const left = this.hand.querySelector("[data-testid=countdown]");
      if (left) left.textContent = String(Math.max(0, Math.ceil((this.pending.at - Date.now()) / 1000)));
    }
    const deadline = this.view?.legal?.deadline;
    if (!deadline || !this.mine()) {
      this.clock.textContent = "";
      return;
    }
    const ms = Number(deadline.seconds) * 1000 + deadline.nanos / 1e6 - Date.now();
    this.clock.textContent = `${Math.max(0, Math.ceil(ms / 1000))} s left to play`;
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

  private place(option: number): void {
    if (this.pending || this.sending) return;
    const o = this.view?.legal?.placements[option];
    this.choice = { option, experts: o ? Math.min(o.maxExperts, Math.max(o.minGangsters, 1)) : 0, occasionals: 0 };
    if (o && this.choice.experts < Math.max(o.minGangsters, 1)) this.choice.occasionals = Math.min(o.maxOccasionals, Math.max(o.minGangsters, 1) - this.choice.experts);
    this.render();
  }

  private step(key: "experts" | "occasionals", by: number, max: number): void {
    if (this.pending || this.sending) return;
    this.choice[key] = Math.max(0, Math.min(max, this.choice[key] + by));
    this.render();
  }

  /** A card chosen: it is sent after a short wait, unless confirmed sooner or undone. */
  private choose(card: Card): void {
    const v = this.view;
    if (!v || !this.mine() || this.sending || this.pending || !this.choiceValid()) return;
    if (!v.legal?.cards.some((c) => sameCard(c, card))) return;
    this.pending = { card, at: Date.now() + CONFIRM_MS, timer: setTimeout(() => void this.confirm(), CONFIRM_MS) };
    this.render();
    this.hand.querySelector<HTMLButtonElement>("[data-testid=confirm-play]")?.focus();
  }

  private undo(): void {
    if (!this.pending) return;
    clearTimeout(this.pending.timer);
    this.pending = undefined;
  }

  private async confirm(): Promise<void> {
    const pending = this.pending;
    if (!pending) return;
    this.undo();
    await this.play(pending.card);
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
        { signal: this.signal, onRetry: (r) => r.kind === "transient" && this.setReconnecting(true) },
      );
      this.setReconnecting(false);
      const latest = response.updates.findLast((u) => u.view)?.view;
      if (latest) this.show(latest);
    } catch (e) {
      this.setReconnecting(false);
      if (this.signal.aborted) return;
      this.sending = false;
      this.error.textContent = say(e).text;
      // A turn refused because the table moved on: show the table as it is now.
      if (errorKind(e) === "refused") {
        try {
          this.show(await this.me.view(this.gameId, { signal: this.signal }));
        } catch {
          // The feed brings the next view anyway.
        }
      }
      this.render();
    }
  }

  private async resign(): Promise<void> {
    const ok = await confirmDialog(
      "Resign this game?",
      "Your seat is forfeited: the server plays your turns to the end, and the game counts as played. This cannot be undone.",
      "Resign",
      "Keep playing",
    );
    if (!ok) return;
    try {
      await this.me.leave(this.gameId);
      this.notice.textContent = "You resigned: the server plays your seat to the end.";
      this.show(await this.me.view(this.gameId));
    } catch (e) {
      this.error.textContent = say(e).text;
    }
  }

  private async leave(): Promise<void> {
    try {
      await this.me.leave(this.gameId);
      window.location.hash = "#/";
    } catch (e) {
      this.error.textContent = say(e).text;
    }
  }

  private async sitDown(): Promise<void> {
    try {
      await this.me.join(this.gameId);
      this.show(await this.me.view(this.gameId));
    } catch (e) {
      this.error.textContent = say(e).text;
    }
  }

  private key(event: KeyboardEvent): void {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.target instanceof HTMLInputElement || event.target instanceof HTMLSelectElement || document.querySelector("dialog[open]")) return;
    const key = event.key.toLowerCase();
    if (this.pending) {
      if (key === "enter") void this.confirm();
      else if (key === "escape" || key === "backspace") {
        this.undo();
        this.render();
      } else return;
      event.preventDefault();
      return;
    }
    if (key === "escape" && !this.roundEnd.hidden) {
      this.roundEnd.hidden = true;
      event.preventDefault();
      return;
    }
    if (!this.mine()) return;
    const options = this.view?.legal?.placements ?? [];
    const o = options[this.choice.option];
    if (key === "l") this.place(this.choice.option + 1 >= options.length ? -1 : this.choice.option + 1);
    else if (key === "n") this.place(-1);
    else if (key === "e" && o) this.step("experts", this.choice.experts >= o.maxExperts ? -this.choice.experts : 1, o.maxExperts);
    else if (key === "o" && o) this.step("occasionals", this.choice.occasionals >= o.maxOccasionals ? -this.choice.occasionals : 1, o.maxOccasionals);
    else if (/^[1-9]$/.test(key)) {
      const card = this.view?.hand[Number(key) - 1];
      if (card) this.choose(card);
    } else return;
    event.preventDefault();
  }

  private async refreshOdds(): Promise<void> {
    const v = this.view;
    if (!v || v.status !== GameStatus.RUNNING || v.seq === this.oddsSeq) return;
    this.oddsSeq = v.seq;
    try {
      this.odds = await this.me.odds(this.gameId);
      this.renderOdds();
    } catch {
      // Odds are a help, not the game: a refusal (a busy server) leaves the panel as it was.
    }
  }
}

/** Asks a yes-or-no question in a modal dialog; resolves with the answer. */
export function confirmDialog(title: string, text: string, yes: string, no: string): Promise<boolean> {
  return new Promise((resolve) => {
    const dialog = h(
      "dialog",
      { class: "dialog", "aria-labelledby": "dialog-title", "data-testid": "dialog" },
      h("h2", { id: "dialog-title" }, title),
      h("p", {}, text),
      h(
        "form",
        { method: "dialog", class: "dialog-buttons" },
        h("button", { value: "no", "data-testid": "dialog-no" }, no),
        h("button", { value: "yes", class: "danger", "data-testid": "dialog-yes" }, yes),
      ),
    );
    dialog.addEventListener("close", () => {
      resolve(dialog.returnValue === "yes");
      dialog.remove();
    });
    document.body.append(dialog);
    dialog.showModal();
  });
}

/** A short two-note chime (Web Audio: nothing downloaded). */
function beep(): void {
  try {
    const audio = new AudioContext();
    for (const [i, f] of [660, 880].entries()) {
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.frequency.value = f;
      gain.gain.setValueAtTime(0.15, audio.currentTime + i * 0.15);
      gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + i * 0.15 + 0.14);
      osc.connect(gain).connect(audio.destination);
      osc.start(audio.currentTime + i * 0.15);
      osc.stop(audio.currentTime + i * 0.15 + 0.15);
    }
    setTimeout(() => void audio.close(), 600);
  } catch {
    // No sound where the browser allows none.
  }
}
