/**
 * Recovery codes: a player's id, key and name in one line of text, to sign in again on
 * another browser (or after clearing this one). The code is the key itself, so it is as
 * secret as the key: the page shows it only to its holder. Pure (no DOM, no storage), so it
 * is unit-tested under Node.
 *
 * @module
 */

/** Who a browser plays as: the credentials and the name chosen at registration. */
export interface Player {
  playerId: string;
  token: string;
  name: string;
}

const PREFIX = "boss1-";

const toBase64Url = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

function fromBase64Url(text: string): Uint8Array {
  const base64 = text.replace(/-/g, "+").replace(/_/g, "/");
  const binary = atob(base64 + "=".repeat((4 - (base64.length % 4)) % 4));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

/** The recovery code of a player. */
export function encodeRecovery(player: Player): string {
  const json = JSON.stringify({ i: player.playerId, t: player.token, n: player.name });
  return PREFIX + toBase64Url(new TextEncoder().encode(json));
}

/**
 * The player a recovery code names, or an error saying what is wrong with it (spaces and line
 * breaks a copy may add are ignored).
 */
export function decodeRecovery(code: string): Player | Error {
  const text = code.replace(/\s+/g, "");
  if (!text.startsWith(PREFIX)) return new Error("A recovery code starts with “boss1-”.");
  try {
    const value: unknown = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(fromBase64Url(text.slice(PREFIX.length))));
    if (typeof value === "object" && value !== null) {
      const { i, t, n } = value as Record<string, unknown>;
      if (typeof i === "string" && typeof t === "string" && typeof n === "string" && i && t) {
        return { playerId: i, token: t, name: n };
      }
    }
  } catch {
    // Falls through to the same answer as a code of the wrong shape.
  }
  return new Error("This recovery code is damaged: copy it again, whole.");
}
