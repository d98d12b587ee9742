//! API tokens: minting them at registration, and turning an `authorization: Bearer <token>`
//! header back into a player. Only SHA-256 hashes of tokens are stored, so a leaked database
//! does not leak credentials; known tokens are cached in memory. A missing, malformed or
//! unknown token counts against its address's quota, and an address over that quota gets no
//! lookup in the store (see `quota`).

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use sha2::{Digest, Sha256};
use tonic::Request;
use tonic::metadata::MetadataMap;

use crate::domain::PlayerInfo;
use crate::error::ApiError;
use crate::net::address::ClientAddr;
use crate::net::budget::BudgetSlot;
use crate::net::layer::KnownCallers;
use crate::net::unauthenticated::Release;
use crate::quota::{Budget, Quotas, Throttled};
use crate::store::PlayerStore;

const TOKEN_PREFIX: &str = "tb_";

/// A fresh secret token: 256 random bits, hex-encoded.
pub fn new_token() -> String {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).expect("the OS random source works");
    format!("{TOKEN_PREFIX}{}", hex::encode(bytes))
}

/// What the store keeps of a token: its SHA-256, hex-encoded.
pub fn token_hash(token: &str) -> String {
    hex::encode(token_digest(token))
}

/// A token's SHA-256, which the cache of known tokens is keyed by: what every call carries
/// is looked up there without the hex string the store needs (written out only when the
/// store is asked).
fn token_digest(token: &str) -> [u8; 32] {
    Sha256::digest(token.as_bytes()).into()
}

/// Whether a token has the shape of the ones this server mints: others are unknown without
/// asking the store.
fn well_formed(token: &str) -> bool {
    token.strip_prefix(TOKEN_PREFIX).is_some_and(|hex| {
        hex.len() == 64
            && hex
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
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

/// Who calls an RPC that anyone may call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Caller {
    Player(PlayerInfo),
    /// No `authorization` metadata: a spectator nobody knows.
    Anonymous,
}

impl Caller {
    /// The player's id; empty for nobody, which no seat and no creator has.
    pub fn id(&self) -> &str {
        match self {
            Caller::Player(player) => &player.id,
            Caller::Anonymous => "",
        }
    }

    pub fn player(&self) -> Option<&PlayerInfo> {
        match self {
            Caller::Player(player) => Some(player),
            Caller::Anonymous => None,
        }
    }
}

/// Tokens remembered at most: every player who ever registered must not stay in memory
/// (a ladder or a load generator registers players without end).
const KNOWN_TOKENS: usize = 100_000;

/// The client a call comes from, keyed as `net::address` keys it (an IPv6 client by its
/// prefix, behind a trusted proxy the client it names); the connection's peer for a request
/// that did not come through the transport's layer.
fn peer<T>(request: &Request<T>) -> Option<IpAddr> {
    ClientAddr::of(request.extensions()).or_else(|| request.remote_addr().map(|addr| addr.ip()))
}

/// How the transport tells calls of known players, which hold no place among the
/// unauthenticated, from the others (`net::layer`): a call whose token is in the cache
/// carries its player in its extensions, for [`Authenticator::caller`] to take.
impl KnownCallers for Authenticator {
    fn recognise(&self, headers: &http::HeaderMap, extensions: &mut http::Extensions) -> bool {
        match self.known(headers) {
            Some(known) => {
                extensions.insert(known);
                true
            }
            None => false,
        }
    }
}

/// A caller the transport found in the cache of known tokens.
#[derive(Debug, Clone)]
pub struct KnownCaller(PlayerInfo);

/// Store lookups of tokens not known yet, one address's at a time: each is charged to its
/// address's quota before the next begins, so that concurrent calls cannot all slip past it.
#[derive(Default)]
struct LookupTurns(std::sync::Mutex<HashMap<IpAddr, Arc<tokio::sync::Mutex<()>>>>);

impl LookupTurns {
    async fn take(&self, peer: Option<IpAddr>) -> Option<LookupTurn<'_>> {
        let peer = peer?;
        let turn = {
            let mut turns = self.0.lock().expect("not poisoned");
            turns.entry(peer).or_default().clone()
        };
        let guard = turn.clone().lock_owned().await;
        Some(LookupTurn {
            turns: self,
            peer,
            turn,
            _guard: guard,
        })
    }
}

struct LookupTurn<'a> {
    turns: &'a LookupTurns,
    peer: IpAddr,
    turn: Arc<tokio::sync::Mutex<()>>,
    _guard: tokio::sync::OwnedMutexGuard<()>,
}

impl Drop for LookupTurn<'_> {
    fn drop(&mut self) {
        let mut turns = self.turns.0.lock().expect("not poisoned");
        // Nobody else waits for this address: forget it (the map holds one, this one, and
        // the guard one).
        if Arc::strong_count(&self.turn) <= 3 {
            turns.remove(&self.peer);
        }
    }
}

/// Resolves tokens to players through the store, remembering the recent answers, and
/// charges each call to its quota (`quota`).
#[derive(Clone)]
pub struct Authenticator {
    store: Arc<dyn PlayerStore>,
    /// Known tokens' players, by the tokens' SHA-256.
    known: Arc<quick_cache::sync::Cache<[u8; 32], PlayerInfo>>,
    quotas: Arc<Quotas>,
    lookups: Arc<LookupTurns>,
}

impl Authenticator {
    /// The quotas it charges calls to (for work charged beside a call: a challenge).
    pub fn quotas(&self) -> &Quotas {
        &self.quotas
    }

    pub fn new(store: Arc<dyn PlayerStore>, quotas: Arc<Quotas>) -> Authenticator {
        Authenticator {
            store,
            known: Arc::new(quick_cache::sync::Cache::new(KNOWN_TOKENS)),
            quotas,
            lookups: Arc::default(),
        }
    }

    /// The caller of an authenticated call, within its quota. A missing, malformed or unknown
    /// token counts against the caller's address, so that guessing tokens is throttled too,
    /// and costs no store lookup once the address is over that quota.
    pub async fn caller<T>(&self, request: &Request<T>) -> Result<PlayerInfo, ApiError> {
        if let Some(KnownCaller(player)) = request.extensions().get::<KnownCaller>() {
            paused(noted(request, self.quotas.player_call(&player.id))).await?;
            return Ok(player.clone());
        }
        let peer = peer(request);
        let token = match bearer(request.metadata()) {
            Ok(token) => token,
            Err(refused) => {
                paused(noted(request, self.quotas.unknown_token(peer))).await?;
                return Err(refused);
            }
        };
        if !well_formed(token) {
            paused(noted(request, self.quotas.unknown_token(peer))).await?;
            return Err(ApiError::Unauthenticated(UNKNOWN));
        }
        let digest = token_digest(token);
        let player = match self.known.get(&digest) {
            Some(player) => player,
            None => {
                // The check, the lookup and the charge in the address's turn; any pause
                // after it.
                let looked_up = {
                    let _turn = self.lookups.take(peer).await;
                    match self.quotas.may_look_up(peer) {
                        Err(throttled) => Err(Some(throttled)),
                        Ok(()) => match self
                            .store
                            .player_by_token_hash(&hex::encode(digest))
                            .await?
                        {
                            Some(player) => Ok(player),
                            None => Err(self.quotas.unknown_token(peer).err()),
                        },
                    }
                };
                match looked_up {
                    Ok(player) => {
                        self.known.insert(digest, player.clone());
                        player
                    }
                    Err(Some(throttled)) => {
                        BudgetSlot::note(request.extensions(), Some(throttled.budget()));
                        return paused(Err(throttled)).await;
                    }
                    Err(None) => return Err(ApiError::Unauthenticated(UNKNOWN)),
                }
            }
        };
        // Known now: the call no longer counts among the unauthenticated.
        Release::release(request.extensions());
        paused(noted(request, self.quotas.player_call(&player.id))).await?;
        Ok(player)
    }

    /// The player whose token `headers` carry, if the token is one this server knows already
    /// (in its cache). Asks nothing of the store.
    fn known(&self, headers: &http::HeaderMap) -> Option<KnownCaller> {
        let value = headers.get(http::header::AUTHORIZATION)?.to_str().ok()?;
        let token = value
            .strip_prefix("Bearer ")
            .or_else(|| value.strip_prefix("bearer "))?
            .trim();
        if !well_formed(token) {
            return None;
        }
        self.known.get(&token_digest(token)).map(KnownCaller)
    }

    /// Who makes a call that anyone may make (reading what a spectator may see): a player, if
    /// the call carries a token (checked as [`Self::caller`] checks it: a wrong token is
    /// refused, never taken for nobody), or nobody signed in, charged to its address.
    pub async fn viewer<T>(&self, request: &Request<T>) -> Result<Caller, ApiError> {
        if request.metadata().get("authorization").is_some() {
            return self.caller(request).await.map(Caller::Player);
        }
        paused(noted(request, self.quotas.anonymous_call(peer(request)))).await?;
        Ok(Caller::Anonymous)
    }

    /// Waits until the player's call quota allows one more unit of work, and charges it
    /// (see `Quotas::pace`).
    pub async fn pace(&self, player_id: &str) {
        self.quotas.pace(player_id).await;
    }

    /// A registration, within its address's quota.
    pub async fn registration<T>(&self, request: &Request<T>) -> Result<(), ApiError> {
        paused(noted(request, self.quotas.registration(peer(request)))).await?;
        Ok(())
    }
}

const UNKNOWN: &str = "unknown API token";

/// The longest a throttled call waits for its answer.
const THROTTLED_PAUSE: Duration = Duration::from_millis(250);

/// Answers a throttled call after a pause, as long as it was told to wait or
/// [`THROTTLED_PAUSE`]: a client that waits as RetryInfo says never notices; one that calls
/// again at once, in a loop, slows itself down instead of the server.
/// A quota check's answer, noted for the response's metadata (`net::budget`): the budget
/// left, or for a refused call, nothing until it may try again.
fn noted<R>(
    request: &Request<R>,
    checked: Result<Option<Budget>, Throttled>,
) -> Result<Option<Budget>, Throttled> {
    let budget = match &checked {
        Ok(budget) => *budget,
        Err(throttled) => Some(throttled.budget()),
    };
    BudgetSlot::note(request.extensions(), budget);
    checked
}

async fn paused<T>(result: Result<T, Throttled>) -> Result<T, ApiError> {
    match result {
        Ok(value) => Ok(value),
        Err(throttled) => {
            crate::logs::client_event(
                "throttled",
                &format!("a call over its quota was refused ({})", throttled.subject),
            );
            tokio::time::sleep(throttled.retry_after.min(THROTTLED_PAUSE)).await;
            Err(throttled.into())
        }
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

    #[test]
    fn only_tokens_of_the_minted_shape_are_looked_up() {
        assert!(well_formed(&new_token()));
        assert!(!well_formed("tb_123"));
        assert!(!well_formed(&new_token().to_uppercase()));
        assert!(!well_formed(&format!("{}x", &new_token()[..66])));
        assert!(!well_formed(&"a".repeat(100_000)));
    }
}
