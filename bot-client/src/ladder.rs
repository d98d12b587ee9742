//! Ladder mode: ask the matchmaker for a game, play every game it seats us in, and again,
//! forever or for a number of games. A dropped `Enqueue` stream or a restarted server only
//! delays the next request: the server sends back the ladder games we already sit in first.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use theboss::v1::{self, enqueue_response::Message};
use tokio::task::JoinSet;

use theboss_engine::GameRng;

use crate::client::{ClientError, GameResult, PlayOptions, Session, transient};
use crate::strategy::{Strategy, StrategyKind};

/// Builds the strategy for each game from a seed.
pub type StrategyFactory = Arc<dyn Fn(u64) -> Box<dyn Strategy> + Send + Sync>;

/// The factory of a named strategy with its default settings.
pub fn factory(kind: StrategyKind) -> StrategyFactory {
    Arc::new(move |seed| kind.build(seed))
}

#[derive(Debug, Clone)]
pub struct LadderOptions {
    /// 2, 3 or 4; 0 for any.
    pub players: u32,
    pub duplicate: bool,
    /// Stop after this many games (None: play forever).
    pub games: Option<u32>,
    /// Waits up to this long (at random) before each request, so that bots finishing
    /// together do not always meet again.
    pub jitter: Duration,
    pub play: PlayOptions,
}

/// Plays ladder games until `options.games` are done; returns their results.
pub async fn run(
    session: &Session,
    strategy: StrategyFactory,
    options: &LadderOptions,
) -> Result<Vec<GameResult>, ClientError> {
    let seed = session
        .player_id()
        .bytes()
        .fold(0u64, |h, b| h.rotate_left(5) ^ u64::from(b));
    let mut rng = GameRng::from_seed(seed);
    let mut results = Vec::new();
    let mut played: HashSet<String> = HashSet::new();
    let mut failures = 0u32;
    while options.games.is_none_or(|k| (results.len() as u32) < k) {
        let jitter = options.jitter.as_millis().min(u128::from(u32::MAX)) as u32;
        if jitter > 0 {
            tokio::time::sleep(Duration::from_millis(u64::from(rng.below(jitter)))).await;
        }
        let matches = match next_matches(session, options).await {
            Ok(matches) => {
                failures = 0;
                matches
            }
            Err(ClientError::Rpc { status, .. }) if transient(status.code()) => {
                failures += 1;
                if failures > options.play.reconnects {
                    return Err(ClientError::Rpc {
                        call: "Enqueue",
                        status,
                    });
                }
                tokio::time::sleep(Duration::from_millis(200 * u64::from(failures.min(10)))).await;
                continue;
            }
            Err(e) => return Err(e),
        };
        let mut set = JoinSet::new();
        for m in matches {
            if !played.insert(m.game_id.clone()) {
                continue;
            }
            let (session, play) = (session.clone(), options.play.clone());
            let bot = strategy(rng.next_u64());
            set.spawn(async move { session.play_game(&m.game_id, bot, &play).await });
        }
        while let Some(done) = set.join_next().await {
            let result = done.expect("game tasks do not panic")?;
            tracing::info!(%result, "ladder game over");
            results.push(result);
        }
    }
    Ok(results)
}

/// One `Enqueue` call: the games it seats us in.
async fn next_matches(
    session: &Session,
    options: &LadderOptions,
) -> Result<Vec<v1::LadderMatch>, ClientError> {
    let rpc = |status| ClientError::Rpc {
        call: "Enqueue",
        status,
    };
    let mut stream = session
        .ladder_client()
        .enqueue(session.stream_request(v1::EnqueueRequest {
            players: options.players,
            duplicate: options.duplicate,
        }))
        .await
        .map_err(rpc)?
        .into_inner();
    let mut matches = Vec::new();
    loop {
        match tokio::time::timeout(options.play.silence, stream.message()).await {
            Ok(Ok(Some(message))) => {
                if let Some(Message::Matched(m)) = message.message {
                    matches.push(m);
                }
            }
            Ok(Ok(None)) => return Ok(matches),
            Ok(Err(status)) if !matches.is_empty() => {
                tracing::debug!(%status, "enqueue stream dropped after a match");
                return Ok(matches);
            }
            Ok(Err(status)) => return Err(rpc(status)),
            Err(_) => return Err(rpc(tonic::Status::unavailable("the ladder went silent"))),
        }
    }
}
