// The front end in a real browser (Debian's Chromium, driven by puppeteer-core: no browser
// download) against a real server this script starts, restarts and stops:
//
// 1. a person registers, creates a table with three house bots and plays it to the final
//    scores by clicking, while a second browser context watches it live as a spectator and
//    is shown no hidden card; the click-to-spectator latency of every turn is measured;
// 2. the same by keyboard only, with the server killed and restarted mid-game, the table
//    opened again while it is down: the page carries on, no turn is lost or played twice;
// 3. the finished game's replay shows "shuffle verified", and a tampered seed the failure;
// 4. the ladder page, and the finished table at 360 px wide, followed once (not again and
//    again: its stream ends for good);
// and none of it logs a console error or a failed request (but while the server is down).
// Screenshots go to OUT (under target/, not committed). Prints one JSON summary line.
//
// Usage: node tests/browser.mjs --server BIN --web DIST --out DIR [--chromium PATH]

import { spawn } from "node:child_process";
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
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
    } catch {}
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

async function register(page, name) {
  await page.goto(base + "/#/");
  await page.waitForSelector("[data-testid=register]");
  await page.type("[data-testid=name]", name);
  await page.click("[data-testid=register-submit]");
  await page.waitForSelector("[data-testid=create]");
}

async function createWithBots(page) {
  await page.select("[data-testid=players]", "4");
  await page.select("[data-testid=house-bots]", "3");
  await page.select("[data-testid=strategy]", "2"); // heuristic
  await page.click("[data-testid=create-submit]");
  await page.waitForFunction(() => location.hash.startsWith("#/game/"));
  await page.waitForSelector("[data-testid=status]");
  return page.evaluate(() => location.hash.split("/")[2]);
}

const state = (page) => page.$eval("[data-testid=status]", (e) => e.dataset.state ?? "");
const logLength = (page) => page.$$eval("[data-testid=log] li", (l) => l.length);

/// Waits until it is the page's turn ("your-turn") or the game is over ("over").
async function myTurnOrOver(page) {
  try {
    await page.waitForFunction(
      () => {
        const s = document.querySelector("[data-testid=status]")?.dataset.state;
        return s === "over" || (s === "your-turn" && document.querySelector("[data-testid^=card-]:not([disabled])"));
      },
      { timeout: 60_000, polling: 20 },
    );
  } catch (error) {
    // What the page showed when it stopped moving, for whoever reads the failure.
    await page.screenshot({ path: join(args.out, "stuck.png"), fullPage: true }).catch(() => {});
    const shown = await page
      .evaluate(() => ({
        status: document.querySelector("[data-testid=status]")?.textContent,
        state: document.querySelector("[data-testid=status]")?.dataset.state,
        error: document.querySelector("[data-testid=error]")?.textContent,
        log: [...document.querySelectorAll("[data-testid=log] li")].slice(-6).map((e) => e.textContent),
      }))
      .catch((e) => String(e));
    throw new Error(`${error.message}; the page showed ${JSON.stringify(shown)}`);
  }
  return state(page);
}

/// Plays one turn by clicking: sometimes a placement first (the first option, with what the
/// page pre-selects), then the first playable card. Returns the click's time.
async function clickTurn(page, turn) {
  if (turn % 2 === 1 && (await page.$("[data-testid^=place-]:not([data-testid=place-none])"))) {
    const options = await page.$$("[data-testid^=place-]:not([data-testid=place-none])");
    await options[0].click();
    if (await page.$("[data-testid=placement-hint]")) await page.click("[data-testid=place-none]");
  }
  const card = await page.waitForSelector("[data-testid^=card-]:not([disabled])");
  const clicked = performance.now();
  await card.click();
  return clicked;
}

/// Plays one turn by keyboard only: L (a location) and E (an expert) on odd turns, then the
/// digit of the first playable card.
async function keyTurn(page, turn) {
  if (turn % 2 === 1) {
    await page.keyboard.press("l");
    await page.keyboard.press("e");
    if (await page.$("[data-testid=placement-hint]")) await page.keyboard.press("n");
  }
  const index = await page.$$eval("[data-testid^=card-]", (cards) => cards.findIndex((c) => !c.disabled));
  if (index < 0 || index > 8) throw new Error(`no card to play by keyboard (${index})`);
  await page.keyboard.press(String(index + 1));
}

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] : NaN;
};

await startServer();
const browser = await puppeteer.launch({
  executablePath: args.chromium,
  headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
});
const summary = {};
try {
  // 1. Play by clicking, watched live by a spectator.
  const player = await (await browser.createBrowserContext()).newPage();
  const watcher = await (await browser.createBrowserContext()).newPage();
  watchProblems(player, "player");
  watchProblems(watcher, "spectator");
  await player.setViewport({ width: 1200, height: 900 });
  await watcher.setViewport({ width: 1200, height: 900 });
  await register(player, "Alice");
  await player.screenshot({ path: join(args.out, "lobby.png"), fullPage: true });
  // A set of cities the rules do not allow: the server says so, the page shows it, and
  // nothing is created.
  await player.click("[data-testid=city-1]");
  await player.click("[data-testid=create-submit]");
  await player.waitForFunction(() => document.querySelector("[data-testid=error]")?.textContent.includes("cities"));
  summary.refused_cities = await player.$eval("[data-testid=error]", (e) => e.textContent);
  await player.click("[data-testid=city-1]");
  const gameId = await createWithBots(player);
  await register(watcher, "Watcher");
  await watcher.goto(`${base}/#/game/${gameId}`);
  await watcher.waitForSelector("[data-testid=seat-3]");

  // The harness's own share of a click-to-update figure: a click on a button whose handler
  // changes the page itself, seen by the same polling (no network, no server).
  const harness = [];
  for (let i = 0; i < 20; i++) {
    await player.evaluate((n) => {
      const b = document.createElement("button");
      b.id = `probe-${n}`;
      b.textContent = "probe";
      b.addEventListener("click", () => document.body.append(Object.assign(document.createElement("i"), { id: `probed-${n}` })));
      document.body.append(b);
    }, i);
    const start = performance.now();
    await player.click(`#probe-${i}`);
    await player.waitForFunction((n) => document.getElementById(`probed-${n}`), { polling: "raf" }, i);
    harness.push(performance.now() - start);
    await player.evaluate((n) => {
      document.getElementById(`probe-${n}`)?.remove();
      document.getElementById(`probed-${n}`)?.remove();
    }, i);
  }

  const latencies = [];
  let turns = 0;
  let shots = false;
  const leaks = [];
  let faceDownsSeen = 0;
  while ((await myTurnOrOver(player)) === "your-turn") {
    // Nothing of the player's hand is on the spectator's table (a round's cards are unique,
    // so a card still in a hand can be nowhere else this round; the log of earlier rounds
    // may name it), and face-down cards show as backs only.
    const hand = await player.$$eval("[data-testid^=card-]", (l) => l.map((e) => e.textContent.replace(/^\d\s*/, "").trim()));
    const seen = await watcher.$$eval("[data-testid=board], [data-testid=seats], [data-testid=hand], [data-testid=turn]", (l) => l.map((e) => e.innerText).join("\n"));
    for (const card of hand) if (seen.includes(card)) leaks.push(card);
    faceDownsSeen = Math.max(faceDownsSeen, await watcher.$$eval("[data-testid=face-down]", (l) => l.length));
    if (!shots && turns === 2) {
      await player.screenshot({ path: join(args.out, "table-player.png"), fullPage: true });
      await watcher.screenshot({ path: join(args.out, "table-spectator.png"), fullPage: true });
      shots = true;
    }
    const before = await logLength(watcher);
    const clicked = await clickTurn(player, turns);
    // The spectator's page shows the turn: its log grows.
    await watcher.waitForFunction((n) => document.querySelectorAll("[data-testid=log] li").length > n, { polling: "raf", timeout: 10_000 }, before);
    latencies.push(performance.now() - clicked);
    turns += 1;
  }
  const spectatorSawHand = (await watcher.$$("[data-testid^=card-]")).length;
  const spectatorDeals = await watcher.$$eval("[data-testid=log] li", (l) => l.map((e) => e.textContent).filter((t) => t.includes(" was dealt ")));
  summary.click = {
    turns,
    final: (await player.$eval("[data-testid=status]", (e) => e.textContent)) ?? "",
    spectator_hand_cards: spectatorSawHand,
    spectator_deals_with_faces: spectatorDeals.filter((t) => !t.endsWith("was dealt a hand")).length,
    spectator_deals: spectatorDeals.length,
    spectator_face_downs_seen: faceDownsSeen,
    spectator_hand_cards_shown: leaks,
    click_to_spectator_ms_p50: percentile(latencies, 0.5),
    click_to_spectator_ms_p90: percentile(latencies, 0.9),
    harness_click_to_own_page_ms_p50: percentile(harness, 0.5),
  };
  await watcher.screenshot({ path: join(args.out, "table-spectator-end.png"), fullPage: true });

  // 3. The replay, verified; then with a tampered seed.
  await player.goto(`${base}/#/replay/${gameId}`);
  await player.waitForSelector("[data-testid=shuffle][data-result]");
  const verified = await player.$eval("[data-testid=shuffle]", (e) => [e.dataset.result, e.textContent]);
  await player.click("[data-testid=first]");
  await player.click("[data-testid=next]");
  await player.click("[data-testid=next]");
  const stepped = await player.$eval("[data-testid=step]", (e) => e.textContent);
  await player.click("[data-testid=last]");
  await player.screenshot({ path: join(args.out, "replay.png"), fullPage: true });
  await player.$eval("[data-testid=seed]", (e) => {
    e.value = String(BigInt(e.value) + 1n);
  });
  await player.click("[data-testid=verify]");
  await player.waitForSelector("[data-testid=shuffle][data-result=mismatch]");
  const tampered = await player.$eval("[data-testid=shuffle]", (e) => [e.dataset.result, e.textContent]);
  await player.screenshot({ path: join(args.out, "replay-tampered.png"), fullPage: true });
  summary.replay = { verified, stepped, tampered };

  // 2. By keyboard only, with the server killed and restarted mid-game.
  await player.goto(`${base}/#/`);
  await player.waitForSelector("[data-testid=create]");
  const second = await createWithBots(player);
  let keyTurns = 0;
  let restarted = false;
  while ((await myTurnOrOver(player)) === "your-turn") {
    if (keyTurns === 3 && !restarted) {
      await killServer();
      // The table opened again while the server is down: the page loads it once the server
      // is back (its first calls fail to connect at all).
      await player.evaluate(() => (location.hash = "#/"));
      await player.evaluate((id) => (location.hash = `#/game/${id}`), second);
      await sleep(500);
      await startServer();
      restarted = true;
      // The page resumes on its own; wait for it to be playable again.
      await myTurnOrOver(player);
    }
    const before = await logLength(player);
    await keyTurn(player, keyTurns);
    await player.waitForFunction((n) => document.querySelectorAll("[data-testid=log] li").length > n, { timeout: 10_000 }, before);
    keyTurns += 1;
  }
  const mine = await player.$$eval("[data-testid=log] li", (l) => l.map((e) => e.textContent).filter((t) => t.startsWith("Alice ") && t.includes(" played ")).length);
  await player.goto(`${base}/#/replay/${second}`);
  await player.waitForSelector("[data-testid=shuffle][data-result]");
  const recorded = await player.$$eval("[data-testid=replay-log] li", (l) => l.map((e) => e.textContent).filter((t) => t.startsWith("Alice ") && t.includes(" played ")).length);
  summary.keyboard = { turns: keyTurns, restarted, turns_in_page_log: mine, turns_in_history: recorded, shuffle: await player.$eval("[data-testid=shuffle]", (e) => e.dataset.result) };

  // 4. The ladder, and the table at 360 px.
  await player.goto(`${base}/#/ladder`);
  await player.waitForSelector("[data-testid=leaderboard] > *");
  await player.screenshot({ path: join(args.out, "ladder.png"), fullPage: true });
  const narrow = await (await browser.createBrowserContext()).newPage();
  watchProblems(narrow, "narrow");
  await narrow.setViewport({ width: 360, height: 740 });
  await register(narrow, "Narrow");
  // A finished game's table is followed once: its stream ends at once, and for good.
  let narrowWatches = 0;
  narrow.on("request", (r) => {
    if (r.url().endsWith("/WatchGame")) narrowWatches += 1;
  });
  await narrow.goto(`${base}/#/game/${gameId}`);
  await narrow.waitForSelector("[data-testid=seat-3]");
  await sleep(1000);
  summary.narrow_watch_requests = narrowWatches;
  summary.narrow_overflow_px = await narrow.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  await narrow.screenshot({ path: join(args.out, "table-360px.png"), fullPage: true });
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
