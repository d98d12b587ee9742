// The front end in a real browser (Debian's Chromium, driven by puppeteer-core: no browser
// download) against a real server this script starts, kills and restarts. Every scenario
// acts as a person would, by clicks, taps, keys and typing, and reads what the page shows
// (its text, which buttons are enabled or pressed, what the address bar says), never the
// app's internals:
//
// 1. a new player's first game: one typed name and three clicks from the empty page to a
//    card played against three house bots; then the same game played to its final
//    standings by clicks only, the round-end screen checked, while a visitor without an
//    account watches it from the shared link and is shown no hidden card;
// 2. a table whose history answers 400 ms late while the bots move first (the page once
//    stayed on a bot's turn for ever); then resigning it, which stops the game;
// 3. a turn sent while the server is down: "reconnecting…", then played once; a few turns
//    by keyboard; a table that fills while someone is about to join it;
// 4. the replay (the board at each step, the log following the step, rounds to jump to,
//    the shuffle verified and a tampered seed caught), the ladder, a player page;
// 5. a phone (390×844, touch): a few turns tapped, the hand in reach, nothing wider than
//    the screen on the table, the ladder and the replay;
// 6. the account: the name field's limit, signing out only after the recovery code is
//    shown, and signing in again with it; the rules; errors in words;
// 7. axe-core on the lobby, the table, the replay and the ladder: no serious or critical
//    violation.
// Nothing may log a console error or a failed request (but while the server is down). Screenshots go to OUT. Prints one JSON summary line.
//
// Usage: node tests/browser.mjs --server BIN --web DIST --out DIR [--chromium PATH]

import { spawn } from "node:child_process";
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import puppeteer from "puppeteer-core";

const { values: args } = parseArgs({
  options: {
    server: { type: "string" },
    web: { type: "string" },
    out: { type: "string" },
    chromium: { type: "string", default: process.env.CHROMIUM ?? "/usr/bin/chromium" },
  },
});
mkdirSync(args.out, { recursive: true });
const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
const dbDir = mkdtempSync(join(tmpdir(), "theboss-web-"));
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const serverLog = join(args.out, "server.log");
rmSync(serverLog, { force: true });
const SERVER_LOG_FILTER = "info,theboss_server::actor=debug,theboss_server::watch=debug";
const problems = [];
let serverDown = false;

function freePort() {
  return new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

let server;
async function startServer() {
  // The server's log goes to a file (appended to across the restart): its tail is printed if
  // the test fails, with what its games and streams did.
  const log = openSync(serverLog, "a");
  server = spawn(
    args.server,
    ["--listen", `127.0.0.1:${port}`, "--database-url", `sqlite://${join(dbDir, "theboss.db")}`, "--web-dir", args.web, "--log", SERVER_LOG_FILTER],
    { stdio: ["ignore", log, log] },
  );
  closeSync(log);
  for (let i = 0; i < 200; i++) {
    try {
      const r = await fetch(base + "/");
      if (r.ok) {
        serverDown = false;
        return;
      }
    } catch {
      // Not listening yet.
    }
    await sleep(50);
  }
  throw new Error("the server did not start");
}
async function killServer() {
  serverDown = true;
  const exited = new Promise((resolve) => server.once("exit", resolve));
  server.kill("SIGKILL");
  await exited;
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function watchProblems(page, who) {
  page.on("console", (m) => {
    if (m.type() === "error" && !serverDown) problems.push(`${who} console: ${m.text()}`);
  });
  page.on("pageerror", (e) => problems.push(`${who} page error: ${e.message}`));
  page.on("requestfailed", (r) => {
    // A stream the page itself cancels (leaving a page) is not a failure.
    const reason = r.failure()?.errorText ?? "";
    if (!serverDown && reason !== "net::ERR_ABORTED") problems.push(`${who} request failed: ${r.url()} ${reason}`);
  });
  page.on("response", (r) => {
    if (r.status() >= 400 && !serverDown) problems.push(`${who} HTTP ${r.status()}: ${r.url()}`);
  });
}

/** A page in a fresh browser context (its own storage: another person). */
async function person(who, viewport = { width: 1280, height: 900 }) {
  const context = await browser.createBrowserContext();
  const page = await context.newPage();
  await page.setViewport(viewport);
  watchProblems(page, who);
  page.clicks = 0;
  return page;
}

/** Clicks what `selector` finds, counting the clicks a person made. */
async function click(page, selector) {
  for (let attempt = 1; ; attempt++) {
    const element = await page.waitForSelector(selector, { visible: true });
    try {
      await element.click();
      page.clicks += 1;
      return;
    } catch (error) {
      // The page drew that part again between finding the element and clicking it (a new
      // view arrived): find it again, as a person's eye would.
      if (attempt >= 5 || !/detached|not clickable|not an Element/i.test(error.message)) throw error;
    }
  }
}

/**
 * Confirms the card just chosen with "Play now". On a slow machine its three seconds may
 * already have run out, and the card gone by itself: the turn is played either way.
 */
async function confirmCard(page, how = "click") {
  const button = await page.$("[data-testid=confirm-play]");
  if (!button) return;
  try {
    await (how === "tap" ? button.tap() : button.click());
    page.clicks += 1;
  } catch (error) {
    if (!/detached|not clickable|not an Element/i.test(error.message)) throw error;
  }
}

/** Picks an option of a select, once the page shows it. */
async function pick(page, selector, value) {
  await page.waitForSelector(selector, { visible: true });
  await page.select(selector, value);
}

const text = (page, selector) => page.$eval(selector, (e) => e.innerText).catch(() => "");

async function register(page, name) {
  await page.goto(base + "/#/");
  await page.waitForSelector("[data-testid=register]");
  await page.type("[data-testid=name]", name);
  await click(page, "[data-testid=register-submit]");
  await page.waitForSelector("[data-testid=create]");
}

/** Waits until the page says it is its turn (with a card to play) or that the game is over. */
async function myTurnOrOver(page, timeout = 60_000) {
  try {
    await page.waitForFunction(
      () => {
        const s = document.querySelector("[data-testid=status]")?.innerText ?? "";
        return /game over|stopped without a result/.test(s) || (s.includes("your turn") && document.querySelector("[data-testid^=card-]:not([disabled])"));
      },
      { timeout, polling: 50 },
    );
  } catch (error) {
    await page.screenshot({ path: join(args.out, "stuck.png"), fullPage: true }).catch(() => {});
    const shown = await page
      .evaluate(() => ({
        status: document.querySelector("[data-testid=status]")?.innerText,
        error: document.querySelector("[data-testid=error]")?.innerText,
        log: [...document.querySelectorAll("[data-testid=log] li")].slice(-6).map((e) => e.innerText),
      }))
      .catch((e) => String(e));
    throw new Error(`${error.message}; the page showed ${JSON.stringify(shown)}`, { cause: error });
  }
  return (await text(page, "[data-testid=status]")).includes("your turn") ? "your-turn" : "over";
}

/** Lines of the page's log that start with `name` and say a card was played. */
const turnsIn = (page, name, selector = "[data-testid=log] li") =>
  page.$$eval(selector, (l, n) => l.map((e) => e.innerText).filter((t) => t.startsWith(`${n} `) && t.includes(" played ")).length, name);

/**
 * One turn by clicks: on odd turns a placement (the first city offered, with what the page
 * proposes; none if the page says that is not enough), then the first playable card, then
 * "Play now". Returns the placement button's pressed state as the page showed it.
 */
async function clickTurn(page, turn) {
  let pressed;
  const cities = await page.$$("[data-testid^=place-]:not([data-testid=place-none])");
  if (turn % 2 === 1 && cities.length) {
    await cities[0].click();
    page.clicks += 1;
    pressed = await page.$eval("[data-testid=turn] [aria-pressed=true]", (b) => [b.innerText, getComputedStyle(b).outlineStyle]).catch(() => undefined);
    if (await page.$("[data-testid=placement-hint]")) await click(page, "[data-testid=place-none]");
  }
  await click(page, "[data-testid^=card-]:not([disabled])");
  await confirmCard(page);
  return pressed;
}

/** What a spectator's page shows of the table (board, seats, any hand or turn panel). */
const tableText = (page) =>
  page.$$eval("[data-testid=board], [data-testid=seats], [data-testid=hand], [data-testid=turn]", (l) => l.map((e) => e.innerText + " " + [...e.querySelectorAll("[aria-label]")].map((x) => x.getAttribute("aria-label")).join(" ")).join("\n"));

/** axe-core's serious and critical violations on the page as it is. */
async function axe(page, name) {
  await page.addScriptTag({ content: axeSource });
  const found = await page.evaluate(async () => {
    const r = await window.axe.run(document, { resultTypes: ["violations"] });
    return r.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(" ")).join(", ")}`);
  });
  return found.map((v) => `${name}: ${v}`);
}

await startServer();
const browser = await puppeteer.launch({
  executablePath: args.chromium,
  headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
});
const summary = { seconds: {} };
let lapStart = performance.now();
/** Records how long the part of the test that just ended took (printed in the summary). */
const lap = (name) => {
  summary.seconds[name] = Math.round((performance.now() - lapStart) / 100) / 10;
  lapStart = performance.now();
};
try {
  // 1. A new player's first game, from the empty page: a name and three clicks.
  const alice = await person("alice");
  // axe runs its script inline, which the page's CSP forbids (as it should).
  await alice.setBypassCSP(true);
  await alice.goto(base + "/#/");
  await alice.waitForSelector("[data-testid=register]");
  summary.axe = await axe(alice, "welcome");
  await alice.type("[data-testid=name]", "Alice");
  await click(alice, "[data-testid=register-submit]");
  await alice.waitForSelector("[data-testid=create]");
  await alice.waitForSelector("[data-testid=running-games] h2");
  summary.axe.push(...(await axe(alice, "lobby")));
  await alice.screenshot({ path: join(args.out, "lobby.png"), fullPage: true });
  await click(alice, "[data-testid=create-submit]");
  await alice.waitForFunction(() => location.hash.startsWith("#/game/"));
  const gameLink = alice.url();
  if ((await myTurnOrOver(alice)) !== "your-turn") throw new Error("the first game ended before Alice's first turn");
  await click(alice, "[data-testid^=card-]:not([disabled])");
  // Not confirmed: the card goes by itself after the countdown (undo was possible).
  const countdown = await text(alice, "[data-testid=confirm]");
  await alice.waitForFunction(() => [...document.querySelectorAll("[data-testid=log] li")].some((e) => e.innerText.startsWith("Alice ") && e.innerText.includes(" played ")), { timeout: 10_000 });
  summary.first_game = { clicks: alice.clicks, typed_names: 1, countdown };
  await alice.screenshot({ path: join(args.out, "first-turn.png") });
  await pick(alice, "[data-testid=pace]", "150");

  lap("first_game");
  // A visitor without an account opens the shared link.
  const visitor = await person("visitor");
  await visitor.goto(gameLink);
  await visitor.waitForSelector("[data-testid=seat-3]");
  await pick(visitor, "[data-testid=pace]", "150");
  const visitorHeader = await text(visitor, "#who");

  // The rest of the game by clicks.
  let turns = 1;
  const leaks = [];
  let faceDownsSeen = 0;
  let roundEnd;
  let pressed;
  let midRound = false;
  let maxLogAfterFirst = 0;
  let titleOnTurn;
  while ((await myTurnOrOver(alice)) === "your-turn") {
    titleOnTurn ??= await alice.title();
    // Once the visitor's page shows the same moment (cards are dealt anew each round, so an
    // earlier round's table may show a card Alice now holds), nothing of Alice's hand is on
    // it: a card in a hand is nowhere else this round.
    const moment = (await text(alice, "[data-testid=status]")).match(/round \d+, turn \d+/)?.[0];
    await visitor.waitForFunction((m) => (document.querySelector("[data-testid=status]")?.innerText ?? "").includes(`${m}`) && /Alice to play/.test(document.querySelector("[data-testid=status]")?.innerText ?? ""), { timeout: 15_000, polling: 50 }, moment);
    const hand = await alice.$$eval("[data-testid^=card-]", (l) => l.map((e) => e.dataset.card));
    const seen = await tableText(visitor);
    for (const card of hand) if (seen.includes(card)) leaks.push(card);
    faceDownsSeen = Math.max(faceDownsSeen, await visitor.$$eval("[data-testid=face-down]", (l) => l.length));
    if (!roundEnd && (await alice.$("[data-testid=round-end]:not([hidden])"))) {
      roundEnd = {
        title: await text(alice, "[data-testid=round-end] h2"),
        lines: await alice.$$eval("[data-testid=round-end-lines] li", (l) => l.map((e) => e.innerText)),
        cards_turned: await alice.$$eval("[data-testid=round-end] .award svg", (l) => l.length),
      };
      await alice.screenshot({ path: join(args.out, "round-end.png") });
      await click(alice, "[data-testid=close-round-end]");
    }
    if (!midRound && roundEnd && (await text(alice, "[data-testid=status]")).includes("turn 3")) {
      await alice.screenshot({ path: join(args.out, "table-mid-round.png"), fullPage: true });
      await visitor.screenshot({ path: join(args.out, "table-visitor.png"), fullPage: true });
      midRound = true;
    }
    const before = await turnsIn(alice, "Alice");
    const p = await clickTurn(alice, turns);
    pressed ??= p;
    await alice.waitForFunction((n) => [...document.querySelectorAll("[data-testid=log] li")].filter((e) => e.innerText.startsWith("Alice ") && e.innerText.includes(" played ")).length > n, { timeout: 15_000 }, before);
    turns += 1;
    maxLogAfterFirst = Math.max(maxLogAfterFirst, await alice.$$eval("[data-testid=log] li", (l) => l.length));
  }
  await alice.waitForSelector("[data-testid=standings]:not([hidden])");
  await alice.screenshot({ path: join(args.out, "game-end.png") });
  const standings = {
    title: await text(alice, "[data-testid=standings] h2"),
    rows: await alice.$$eval("[data-testid=standings-table] tbody tr", (l) => l.map((r) => [...r.children].map((c) => c.innerText))),
    tie_breaks: await alice.$$eval("[data-testid=tie-break]", (l) => l.map((e) => e.innerText)),
    explained: (await text(alice, "[data-testid=standings]")).includes("a tie goes to the most money won in the last round"),
  };
  await visitor.waitForFunction(() => /game over/.test(document.querySelector("[data-testid=status]")?.innerText ?? ""), { timeout: 15_000 });
  summary.click_game = {
    turns,
    alice_turns_in_log: await turnsIn(alice, "Alice"),
    standings,
    round_end: roundEnd,
    placement_pressed: pressed,
    visitor_header: visitorHeader,
    visitor_status: await text(visitor, "[data-testid=status]"),
    visitor_hand_cards: (await visitor.$$("[data-testid^=card-]")).length,
    visitor_hand_cards_shown: leaks,
    visitor_face_downs_seen: faceDownsSeen,
    visitor_deals_with_faces: await visitor.$$eval("[data-testid=log] li", (l) => l.map((e) => e.innerText).filter((t) => t.includes(" was dealt ") && !t.endsWith("was dealt a hand")).length),
    title_on_turn: titleOnTurn,
    title_at_end: await alice.title(),
  };
  summary.axe.push(...(await axe(alice, "table (game over)")));

  lap("whole_game");
  // 2. The history answers 400 ms late while the bots move first (a chosen deal in which
  //    seat 2 starts: three bot moves before the person's).
  const bob = await person("bob");
  await register(bob, "Bob");
  await bob.setRequestInterception(true);
  bob.on("request", (request) => {
    if (request.url().endsWith("/GetHistory")) setTimeout(() => void request.continue().catch(() => {}), 400);
    else void request.continue().catch(() => {});
  });
  await click(bob, "[data-testid=more-options] summary");
  await bob.type("[data-testid=deal]", "2");
  await click(bob, "[data-testid=create-submit]");
  await bob.waitForFunction(() => location.hash.startsWith("#/game/"));
  const lateState = await myTurnOrOver(bob, 20_000);
  const botsFirst = await bob.$$eval("[data-testid=log] li", (l) => l.map((e) => e.innerText));
  summary.late_history = { state: lateState, round_start: botsFirst.find((t) => t.startsWith("Round 1")), moves_before: botsFirst.filter((t) => t.includes(" played ")).length };
  // Resigning: the only person at a table of house bots stops it.
  await click(bob, "[data-testid=resign]");
  await click(bob, "[data-testid=dialog-yes]");
  await bob.waitForFunction(() => /stopped without a result/.test(document.querySelector("[data-testid=status]")?.innerText ?? ""), { timeout: 10_000 });
  summary.resign = { status: await text(bob, "[data-testid=status]"), log: (await bob.$$eval("[data-testid=log] li", (l) => l.map((e) => e.innerText))).slice(-2) };
  await bob.setRequestInterception(false);

  lap("late_history_and_resign");
  // 3. A turn sent while the server is down, then turns by keyboard.
  const carol = await person("carol");
  await register(carol, "Carol");
  await click(carol, "[data-testid=create-submit]");
  await carol.waitForFunction(() => location.hash.startsWith("#/game/"));
  const carolGame = carol.url().split("/").at(-1);
  await pick(carol, "[data-testid=pace]", "150");
  await myTurnOrOver(carol);
  await killServer();
  await click(carol, "[data-testid^=card-]:not([disabled])");
  await confirmCard(carol);
  await carol.waitForSelector("[data-testid=reconnecting]", { timeout: 10_000 });
  const reconnecting = await text(carol, "[data-testid=status]");
  await sleep(1500);
  await startServer();
  await carol.waitForFunction(() => [...document.querySelectorAll("[data-testid=log] li")].some((e) => e.innerText.startsWith("Carol ") && e.innerText.includes(" played ")), { timeout: 30_000 });
  let keyTurns = 0;
  while (keyTurns < 3 && (await myTurnOrOver(carol)) === "your-turn") {
    const before = await turnsIn(carol, "Carol");
    if (keyTurns % 2 === 1) {
      await carol.keyboard.press("l");
      await carol.keyboard.press("e");
      if (await carol.$("[data-testid=placement-hint]")) await carol.keyboard.press("n");
    }
    const index = await carol.$$eval("[data-testid^=card-]", (cards) => cards.findIndex((c) => !c.disabled));
    await carol.keyboard.press(String(index + 1));
    await carol.keyboard.press("Enter");
    await carol.waitForFunction((n) => [...document.querySelectorAll("[data-testid=log] li")].filter((e) => e.innerText.startsWith("Carol ") && e.innerText.includes(" played ")).length > n, { timeout: 15_000 }, before);
    keyTurns += 1;
  }
  const carolTurns = await turnsIn(carol, "Carol");
  summary.restart = { reconnecting, turns_in_page_log: carolTurns, key_turns: keyTurns };

  lap("server_down_and_keyboard");
  // A table that fills while someone is about to join it: Carol's lobby lists Dan's open
  // 2-player table; Erin takes the last seat; Carol, whose list has not caught up, clicks join.
  const dan = await person("dan");
  await register(dan, "Dan");
  await pick(dan, "[data-testid=players]", "2");
  await pick(dan, "[data-testid=house-bots]", "0");
  await click(dan, "[data-testid=create-submit]");
  await dan.waitForFunction(() => location.hash.startsWith("#/game/"));
  const danGame = dan.url().split("/").at(-1);
  await carol.goto(`${base}/#/`);
  await carol.waitForSelector(`[data-testid=join-${danGame}]`);
  // Carol's list stops refreshing (its answers held back) so the stale button stays.
  await carol.setRequestInterception(true);
  const held = [];
  carol.on("request", (request) => (request.url().endsWith("/ListGames") ? held.push(request) : void request.continue().catch(() => {})));
  const erin = await person("erin");
  await register(erin, "Erin");
  await erin.waitForSelector(`[data-testid=join-${danGame}]`);
  await click(erin, `[data-testid=join-${danGame}]`);
  await erin.waitForFunction(() => location.hash.startsWith("#/game/"));
  await click(carol, `[data-testid=join-${danGame}]`);
  await carol.waitForFunction(() => document.querySelector("[data-testid=error]")?.innerText.length > 0, { timeout: 10_000 });
  summary.join_filled = { error: await text(carol, "[data-testid=error]"), watch_link: Boolean(await carol.$("[data-testid=join-watch]")), hash: await carol.evaluate(() => location.hash) };
  for (const r of held) await r.continue().catch(() => {});
  await carol.setRequestInterception(false);
  // Dan and Erin resign their game: every person gone, it stops.
  for (const p of [dan, erin]) {
    await click(p, "[data-testid=resign]");
    await click(p, "[data-testid=dialog-yes]");
  }

  lap("join_filled");
  // Rated games from the page: Dan and Erin queue for a 2-player ladder game and are seated
  // at the same table.
  const queued = [];
  for (const p of [dan, erin]) {
    await p.goto(`${base}/#/`);
    await pick(p, "[data-testid=queue-players]", "2");
    await click(p, "[data-testid=queue-submit]");
    await p.waitForFunction(() => /Waiting for opponents|#\/game\//.test((document.querySelector("[data-testid=queue-status]")?.innerText ?? "") + location.hash), { timeout: 10_000 });
    queued.push(await text(p, "[data-testid=queue-status]"));
  }
  for (const p of [dan, erin]) await p.waitForFunction((old) => location.hash.startsWith("#/game/") && !location.hash.endsWith(old), { timeout: 30_000 }, danGame);
  await dan.waitForSelector("[data-testid=seat-1]");
  summary.queue = { queued, same_table: dan.url() === erin.url(), seats: await text(dan, "[data-testid=seats]") };
  for (const p of [dan, erin]) {
    await click(p, "[data-testid=resign]");
    await click(p, "[data-testid=dialog-yes]");
  }

  lap("queue");
  // 4. The replay: the board at each step, the log following it, the rounds.
  const gameId = gameLink.split("/").at(-1);
  await alice.goto(`${base}/#/replay/${gameId}`);
  await alice.waitForSelector("[data-testid=shuffle][data-result]");
  const verified = await text(alice, "[data-testid=shuffle]");
  await click(alice, "[data-testid=first]");
  await click(alice, "[data-testid=next]");
  await click(alice, "[data-testid=next]");
  const stepped = await text(alice, "[data-testid=step]");
  await click(alice, "[data-testid=last]");
  const logFollows = async () =>
    alice.$eval("[data-testid=replay-log]", (log) => {
      const current = log.querySelector("li[aria-current=step]");
      if (!current) return "no current step";
      const a = log.getBoundingClientRect();
      const b = current.getBoundingClientRect();
      return b.top >= a.top - 1 && b.bottom <= a.bottom + 1 ? "visible" : `hidden (${b.top} not in ${a.top}..${a.bottom})`;
    });
  const atLast = await logFollows();
  await click(alice, "[data-testid=round-2]");
  const atRound2 = { step: await text(alice, "[data-testid=step]"), round: await text(alice, "[data-testid=replay-round]"), log: await logFollows(), played_cards: await alice.$$eval("[data-testid=replay-board] .played svg", (l) => l.length) };
  await click(alice, "[data-testid=next]");
  await click(alice, "[data-testid=next]");
  await click(alice, "[data-testid=next]");
  await click(alice, "[data-testid=next]");
  await click(alice, "[data-testid=next]");
  await click(alice, "[data-testid=next]");
  const boardAfterSteps = await text(alice, "[data-testid=replay-board]");
  await alice.screenshot({ path: join(args.out, "replay.png"), fullPage: true });
  summary.axe.push(...(await axe(alice, "replay")));
  await alice.$eval("[data-testid=seed]", (e) => {
    e.value = String(BigInt(e.value) + 1n);
  });
  await click(alice, "[data-testid=verify]");
  await alice.waitForSelector("[data-testid=shuffle][data-result=mismatch]");
  summary.replay = { verified, stepped, at_last: atLast, at_round_2: atRound2, board_shows_gangsters_or_cards: /expert|occasional/.test(boardAfterSteps) || atRound2.played_cards > 0, tampered: await text(alice, "[data-testid=shuffle]") };
  // Carol's game, replayed once it is over, has each of her turns once; the page counted the same.
  await carol.goto(`${base}/#/game/${carolGame}`);
  await click(carol, "[data-testid=resign]");
  await click(carol, "[data-testid=dialog-yes]");
  await carol.waitForFunction(() => /stopped without a result/.test(document.querySelector("[data-testid=status]")?.innerText ?? ""), { timeout: 10_000 });
  await carol.goto(`${base}/#/replay/${carolGame}`);
  await carol.waitForSelector("[data-testid=replay-log] li");
  summary.restart.turns_in_history = await turnsIn(carol, "Carol", "[data-testid=replay-log] li");

  lap("replay");
  // The ladder, and Alice's own page from the header.
  await alice.goto(`${base}/#/ladder`);
  await alice.waitForSelector("[data-testid=leaderboard] > *");
  summary.axe.push(...(await axe(alice, "ladder")));
  await alice.screenshot({ path: join(args.out, "ladder.png"), fullPage: true });
  await click(alice, "[data-testid=me]");
  await alice.waitForSelector("[data-testid=player] h1");
  summary.own_page = await text(alice, "[data-testid=player] h1");
  const alicePage = alice.url();

  lap("ladder");
  // 5. A phone, by touch.
  const phone = await person("phone", { width: 390, height: 844, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
  await phone.goto(base + "/#/");
  await phone.waitForSelector("[data-testid=register]");
  await phone.type("[data-testid=name]", "Tapper");
  await phone.tap("[data-testid=register-submit]");
  await phone.waitForSelector("[data-testid=create-submit]");
  await phone.tap("[data-testid=create-submit]");
  await phone.waitForFunction(() => location.hash.startsWith("#/game/"));
  const phoneGame = phone.url().split("/").at(-1);
  let taps = 0;
  const reach = [];
  while (taps < 3 && (await myTurnOrOver(phone)) === "your-turn") {
    const before = await turnsIn(phone, "Tapper");
    // The hand is within reach: the action bar's cards are on screen without scrolling.
    reach.push(await phone.$eval("[data-testid^=card-]:not([disabled])", (b) => b.getBoundingClientRect().bottom <= window.innerHeight && b.getBoundingClientRect().top >= 0));
    await phone.tap("[data-testid^=card-]:not([disabled])");
    await confirmCard(phone, "tap");
    await phone.waitForFunction((n) => [...document.querySelectorAll("[data-testid=log] li")].filter((e) => e.innerText.startsWith("Tapper ") && e.innerText.includes(" played ")).length > n, { timeout: 15_000 }, before);
    taps += 1;
  }
  await phone.screenshot({ path: join(args.out, "table-390-touch.png") });
  const overflow = async () => phone.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  const phoneSummary = { turns: taps, hand_in_reach: reach, table_overflow_px: await overflow() };
  await phone.goto(`${base}/#/ladder`);
  await phone.waitForSelector("[data-testid=leaderboard] > *");
  phoneSummary.ladder_overflow_px = await overflow();
  await phone.goto(`${base}/#/replay/${gameId}`);
  await phone.waitForSelector("[data-testid=shuffle][data-result]");
  phoneSummary.replay_overflow_px = await overflow();
  await phone.screenshot({ path: join(args.out, "replay-390.png"), fullPage: true });
  summary.phone = phoneSummary;
  await phone.goto(`${base}/#/game/${phoneGame}`);
  await phone.waitForSelector("[data-testid=resign]");
  await phone.tap("[data-testid=resign]");
  await phone.tap("[data-testid=dialog-yes]");

  lap("phone");
  // 6. The account: the name's limit, signing out behind the recovery code, signing in again.
  const frank = await person("frank");
  await frank.goto(base + "/#/");
  await frank.waitForSelector("[data-testid=name]");
  await frank.type("[data-testid=name]", "F".repeat(40));
  const typedLength = await frank.$eval("[data-testid=name]", (e) => e.value.length);
  await frank.$eval("[data-testid=name]", (e) => (e.value = ""));
  await frank.type("[data-testid=name]", "Frank");
  await click(frank, "[data-testid=register-submit]");
  await frank.waitForSelector("[data-testid=create]");
  await click(frank, "[data-testid=account-open]");
  const code = await frank.$eval("[data-testid=recovery-code]", (e) => e.value);
  await click(frank, "[data-testid=sign-out]");
  const warning = await text(frank, "[data-testid=account]");
  await click(frank, "[data-testid=sign-out-confirm]");
  await frank.waitForSelector("[data-testid=register]");
  await click(frank, ".recover summary");
  await frank.type("[data-testid=recovery-input]", code);
  await click(frank, "[data-testid=recovery-submit]");
  await frank.waitForSelector("[data-testid=create]");
  summary.account = { typed_name_length: typedLength, code_shape: code.slice(0, 6), warning_shows_code: warning.includes("only copy") && (await frank.$("[data-testid=recovery-code]")) === null, back_as: await text(frank, "[data-testid=me]") };
  lap("account");
  // Frank challenges Alice from her page to a casual game; she accepts in her lobby; both
  // are seated.
  await frank.goto(alicePage);
  await frank.waitForSelector("[data-testid=challenge-form]");
  await click(frank, "[data-testid=challenge-rated]");
  await click(frank, "[data-testid=challenge-submit]");
  await frank.waitForFunction(() => document.querySelector("[data-testid=challenge-status]")?.innerText.length > 0);
  const sent = await text(frank, "[data-testid=challenge-status]");
  await alice.goto(`${base}/#/`);
  await click(alice, "[data-testid=challenge-accept]");
  await click(alice, "[data-testid=challenge-game]");
  await alice.waitForSelector("[data-testid=seat-1]");
  await frank.goto(`${base}/#/`);
  await click(frank, "[data-testid=challenge-game]");
  await frank.waitForSelector("[data-testid=seat-1]");
  summary.challenge = { sent, same_table: alice.url() === frank.url(), seats: await text(frank, "[data-testid=seats]") };
  for (const p of [alice, frank]) {
    await click(p, "[data-testid=resign]");
    await click(p, "[data-testid=dialog-yes]");
  }
  lap("challenge");
  // The rules, from docs/RULES.md.
  await click(frank, "[data-testid=rules-open]");
  await frank.waitForFunction(() => document.querySelector("[data-testid=rules] h2"));
  summary.rules = { headings: await frank.$$eval("[data-testid=rules] h2", (l) => l.length), mentions_chicago: (await text(frank, "[data-testid=rules]")).includes("Alcapo") };
  await click(frank, "[data-testid=rules-close]");
  // A mistyped link is said in words, not as the service's raw error.
  await frank.goto(`${base}/#/game/not-a-game`);
  await frank.waitForFunction(() => document.querySelector("[data-testid=error]")?.innerText.length > 0);
  summary.bad_link = await text(frank, "[data-testid=error]");
  // A missing asset is not kept for a year.
  const missing = await fetch(`${base}/assets/app-000000000000.js`);
  summary.missing_asset = { status: missing.status, cache_control: missing.headers.get("cache-control") };
  lap("rules_and_errors");
} catch (error) {
  const lines = readFileSync(serverLog, "utf8").trimEnd().split("\n");
  console.error(`the server's log, last ${Math.min(lines.length, 60)} of ${lines.length} lines (all of it: ${serverLog}):`);
  console.error(lines.slice(-60).join("\n"));
  throw error;
} finally {
  await browser.close();
  server.kill("SIGTERM");
  rmSync(dbDir, { recursive: true, force: true });
}
summary.problems = problems;
summary.screenshots = args.out;
console.log(JSON.stringify(summary));
