/**
 * The page's one service (its own origin) and the player it acts as, kept in the browser's
 * storage so a reload or another tab is the same player; without one, the page watches as a
 * spectator. Also the page's preferences (the pace of other seats' moves, the turn sound).
 *
 * @module
 */

import { Service, type Session } from "@theboss/client";

import type { Player } from "./recovery.js";

const KEY = "theboss.player";
const PREFS = "theboss.prefs";

export type { Player };

/** The service at the page's own origin. */
export const service = new Service(window.location.origin);

/** The player this browser plays as, if any. */
export function player(): Player | undefined {
  try {
    const saved = JSON.parse(localStorage.getItem(KEY) ?? "null") as Player | null;
    return saved?.playerId && saved.token ? saved : undefined;
  } catch {
    return undefined;
  }
}

/** The player's session, if this browser has a player. */
export function session(): Session | undefined {
  const p = player();
  return p && service.session(p);
}

/** The player's session, or a spectator's: what pages anyone may open use. */
export function sessionOrSpectator(): Session {
  return session() ?? service.spectator();
}

/** Registers a new player and keeps it in this browser. */
export async function register(name: string, isBot: boolean): Promise<Player> {
  const s = await service.register(name, isBot, isBot ? "a bot playing from the reference web page" : "");
  const p: Player = { playerId: s.playerId, token: s.credentials?.token ?? "", name };
  remember(p);
  return p;
}

/** Keeps a player in this browser (after registering, or signing in with a recovery code). */
export function remember(p: Player): void {
  localStorage.setItem(KEY, JSON.stringify(p));
}

/** Forgets the player: this browser is no one's until it registers or signs in again. */
export function forget(): void {
  localStorage.removeItem(KEY);
}

/** The page's preferences. */
export interface Prefs {
  /** Milliseconds each move of another seat stays alone on the table before the next. */
  paceMs: number;
  /** A short sound when it becomes your turn. */
  sound: boolean;
}

const DEFAULT_PREFS: Prefs = { paceMs: 700, sound: false };

export function prefs(): Prefs {
  try {
    return { ...DEFAULT_PREFS, ...(JSON.parse(localStorage.getItem(PREFS) ?? "{}") as Partial<Prefs>) };
  } catch {
    return DEFAULT_PREFS;
  }
}

export function setPrefs(change: Partial<Prefs>): Prefs {
  const next = { ...prefs(), ...change };
  localStorage.setItem(PREFS, JSON.stringify(next));
  return next;
}
