//! API tokens: minting them at registration, and turning an `authorization: Bearer <token>`
//! header back into a player. Only SHA-256 hashes of tokens are stored, so a leaked database
//! does not leak credentials; known tokens are cached in memory.

use std::sync::Arc;

use sha2::{Digest, Sha256};
use tonic::Request;
use tonic::metadata::MetadataMap;

use crate::domain::PlayerInfo;
use crate::error::ApiError;
use crate::quota::Quotas;
use crate::store::Store;

const TOKEN_PREFIX: &str = "tb_";

/// A fresh secret token: 256 random bits, hex-encoded.
pub fn new_token() -> String {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).expect("the OS random source works");
    format!("{TOKEN_PREFIX}{}", hex(&bytes))
}

pub fn token_hash(token: &str) -> String {
    hex(&Sha256::digest(token.as_bytes()))
}

fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for &b in bytes {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 0xf)]));
    }
    out
}

/// The token in `authorization: Bearer <token>`.
pub fn bearer(metadata: &MetadataMap) -> Result<&str, ApiError> {
    let value = metadata
        .get("authorization")
        .ok_or(ApiError::Unauthenticated(
            "missing `authorization: Bearer <token>` metadata; call Register for a token",
        ))?;
    let value = value
        .to_str()
        .map_err(|_| ApiError::Unauthenticated("the authorization header is not text"))?;
    value
        .strip_prefix("Bearer ")
        .or_else(|| value.strip_prefix("bearer "))
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .ok_or(ApiError::Unauthenticated(
            "the authorization header must be `Bearer <token>`",
        ))
}

/// Tokens remembered at most: every player who ever registered must not stay in memory
/// (a ladder or a load generator registers players without end).
const KNOWN_TOKENS: usize = 100_000;

/// The address a call comes from: behind a proxy, the proxy's.
fn peer<T>(request: &Request<T>) -> Option<std::net::IpAddr> {
    request.remote_addr().map(|addr| addr.ip())
}

/// Resolves tokens to players through the store, remembering the recent answers, and
/// charges each call to its quota (`quota`).
#[derive(Clone)]
pub struct Authenticator {
    store: Arc<dyn Store>,
    known: Arc<quick_cache::sync::Cache<String, PlayerInfo>>,
    quotas: Arc<Quotas>,
}

impl Authenticator {
    pub fn new(store: Arc<dyn Store>, quotas: Arc<Quotas>) -> Authenticator {
        Authenticator {
            store,
            known: Arc::new(quick_cache::sync::Cache::new(KNOWN_TOKENS)),
            quotas,
        }
    }

    /// The caller of an authenticated call, within its quota. A missing or unknown token
    /// counts against the caller's address, so that guessing tokens is throttled too.
    pub async fn caller<T>(&self, request: &Request<T>) -> Result<PlayerInfo, ApiError> {
        match self.player(request.metadata()).await {
            Ok(player) => {
                self.quotas.player_call(&player.id)?;
                Ok(player)
            }
            Err(refused @ ApiError::Unauthenticated(_)) => {
                self.quotas.peer_call(peer(request))?;
                Err(refused)
            }
            Err(other) => Err(other),
        }
    }

    /// A registration, within its address's quota.
    pub fn registration<T>(&self, request: &Request<T>) -> Result<(), ApiError> {
        self.quotas.peer_call(peer(request))
    }

    async fn player(&self, metadata: &MetadataMap) -> Result<PlayerInfo, ApiError> {
        let hash = token_hash(bearer(metadata)?);
        if let Some(player) = self.known.get(&hash) {
            return Ok(player);
        }
        let player = self
            .store
            .player_by_token_hash(&hash)
            .await?
            .ok_or(ApiError::Unauthenticated("unknown API token"))?;
        self.known.insert(hash, player.clone());
        Ok(player)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_random_and_hashes_stable() {
        let (a, b) = (new_token(), new_token());
        assert_ne!(a, b);
        assert_eq!(a.len(), TOKEN_PREFIX.len() + 64);
        assert_eq!(token_hash(&a), token_hash(&a));
        assert_ne!(token_hash(&a), token_hash(&b));
        assert_eq!(
            token_hash("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn bearer_needs_the_scheme_and_a_token() {
        let mut md = MetadataMap::new();
        assert!(bearer(&md).is_err());
        md.insert("authorization", "Basic xyz".parse().unwrap());
        assert!(bearer(&md).is_err());
        md.insert("authorization", "Bearer ".parse().unwrap());
        assert!(bearer(&md).is_err());
        md.insert("authorization", "Bearer tb_123".parse().unwrap());
        assert_eq!(bearer(&md).unwrap(), "tb_123");
    }
}
