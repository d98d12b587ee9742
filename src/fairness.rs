//! Provably fair shuffles: the commitment every view of a game carries from its creation,
//! and its check once the game is over and the history reveals the seed and its salt.
//!
//! The commitment is `SHA-256("theboss-seed-v1:" + salt + ":" + seed)` in lowercase hex,
//! the salt being 64 hex digits drawn at random for the game and the seed in decimal. Before
//! the game is over the salt is secret, so the commitment says nothing of the seed (2^256
//! salts); afterwards anyone can recompute it, e.g.
//! `printf 'theboss-seed-v1:%s:%s' "$SALT" "$SEED" | sha256sum`, and so know that the seed
//! the server reveals, and with it every shuffle of the game, was fixed before the first
//! card was dealt.

use sha2::{Digest, Sha256};

/// The commitment to `seed` under `salt`.
pub fn seed_commitment(seed: u64, salt: &str) -> String {
    // Shown in every view a game sends: no formatting machinery per byte.
    hex::encode(Sha256::digest(format!("theboss-seed-v1:{salt}:{seed}")))
}

/// What checking a finished game's shuffle found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// The revealed seed and salt hash to the commitment the game showed.
    Verified,
    /// They do not: the seed is not the one committed to.
    Mismatch { expected: String, found: String },
    /// The game was created before commitments existed, or is not over yet.
    Unavailable,
}

/// Checks a revealed seed and salt against the commitment a game's views showed.
pub fn verify(commitment: &str, seed: Option<u64>, salt: Option<&str>) -> Verdict {
    match (commitment.is_empty(), seed, salt) {
        (false, Some(seed), Some(salt)) => {
            let found = seed_commitment(seed, salt);
            if found == commitment {
                Verdict::Verified
            } else {
                Verdict::Mismatch {
                    expected: commitment.to_string(),
                    found,
                }
            }
        }
        _ => Verdict::Unavailable,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_commitment_is_pinned_and_binds_seed_and_salt() {
        let salt = "00".repeat(32);
        // `printf 'theboss-seed-v1:%s:%s' 000…0 42 | sha256sum`
        assert_eq!(
            seed_commitment(42, &salt),
            "29c2d07ef83620e1899477d4589bb2e6e55b897ee4265a53ca8a5dd5fd738a49"
        );
        assert_ne!(seed_commitment(43, &salt), seed_commitment(42, &salt));
        assert_ne!(
            seed_commitment(42, &"01".repeat(32)),
            seed_commitment(42, &salt)
        );
        let commitment = seed_commitment(42, &salt);
        assert_eq!(
            verify(&commitment, Some(42), Some(&salt)),
            Verdict::Verified
        );
        assert!(matches!(
            verify(&commitment, Some(43), Some(&salt)),
            Verdict::Mismatch { .. }
        ));
        assert_eq!(verify("", Some(42), Some(&salt)), Verdict::Unavailable);
        assert_eq!(verify(&commitment, None, None), Verdict::Unavailable);
    }
}
