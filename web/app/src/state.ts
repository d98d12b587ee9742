// The page's one service (its own origin) and the player it acts as, kept in the browser's
// storage so a reload or another tab is the same player.

import { Service, type Credentials, type Session } from "@theboss/client";

const KEY = "theboss.player";

export interface Player extends Credentials {
  name: string;
}

export const service = new Service(window.location.origin);

export function player(): Player | undefined {
  try {
    const saved = JSON.parse(localStorage.getItem(KEY) ?? "null") as Player | null;
    return saved?.playerId && saved.token ? saved : undefined;
  } catch {
    return undefined;
  }
}

export function session(): Session | undefined {
  const p = player();
  return p && service.session(p);
}

export async function register(name: string, isBot: boolean): Promise<Player> {
  const s = await service.register(name, isBot, isBot ? "a bot playing from the reference web page" : "");
  const p: Player = { ...s.credentials, name };
  localStorage.setItem(KEY, JSON.stringify(p));
  return p;
}

export function forget(): void {
  localStorage.removeItem(KEY);
}
