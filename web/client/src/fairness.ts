/**
 * Provably fair shuffles, checked in the browser: every view of a game carries a commitment,
 * SHA-256("theboss-seed-v1:" + salt + ":" + seed) in lowercase hex, and a finished game's
 * history reveals the seed and the salt (the service's `src/fairness.rs` says the same).
 *
 * @module
 */

/** What checking a revealed seed against a commitment found. */
export type ShuffleCheck =
  | { kind: "verified" }
  | { kind: "mismatch"; expected: string; found: string }
  | { kind: "unavailable" };

/** The commitment to `seed` under `salt` (Web Crypto's SHA-256). */
export async function seedCommitment(seed: bigint, salt: string): Promise<string> {
  const text = new TextEncoder().encode(`theboss-seed-v1:${salt}:${seed.toString()}`);
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", text));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Checks a revealed seed and salt against the commitment the game's views showed. */
export async function verifyShuffle(
  commitment: string,
  seed: bigint | undefined,
  salt: string | undefined,
): Promise<ShuffleCheck> {
  if (!commitment || seed === undefined || salt === undefined) {
    return { kind: "unavailable" };
  }
  const found = await seedCommitment(seed, salt);
  return found === commitment ? { kind: "verified" } : { kind: "mismatch", expected: commitment, found };
}
