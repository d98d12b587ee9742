//! Ladder mode: ask the matchmaker for a game, play every game it seats us in, and again,
//! forever or for a number of games. A dropped `Enqueue` stream or a restarted server only
//! delays the next request: the server sends back the ladder games we already sit in first.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use theboss::v1::{self, enqueue_response::Message};
use tokio::task::JoinSet;

use theboss_engine::GameRng;

use theboss_client::{ClientError, Session};

use crate::play::{self, BotError, GameResult, PlayOptions, panic_message};
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

/// How often a failing game is taken up again before the bot gives up on it.
const GAME_TRIES: u32 = 3;

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
    // Games that failed, and how often: the server hands them back on the next request, so
    // they are tried again a few times before the bot gives up on them.
    let mut failed: HashMap<String, u32> = HashMap::new();
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
            Err(e) if e.is_transient() => {
                failures += 1;
                if failures > options.play.feed.reconnects {
                    return Err(e);
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
            set.spawn(async move {
                let result = play::play_game(&session, &m.game_id, bot, &play).await;
                (m.game_id, result)
            });
        }
        while let Some(done) = set.join_next().await {
            match done {
                Ok((_, Ok(result))) => {
                    tracing::info!(%result, "ladder game over");
                    results.push(result);
                }
                Ok((game_id, Err(error))) => {
                    let tries = failed.entry(game_id.clone()).or_default();
                    *tries += 1;
                    tracing::error!(game = %game_id, %error, tries = *tries, "a ladder game failed");
                    if *tries < GAME_TRIES {
                        played.remove(&game_id);
                    }
                }
                Err(error) => {
                    let error = BotError::Task(panic_message(error));
                    tracing::error!(%error, "a ladder game task failed");
                }
            }
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
    let mut stream = session.enqueue(options.players, options.duplicate).await?;
    let mut matches = Vec::new();
    loop {
        match tokio::time::timeout(options.play.feed.silence, stream.message()).await {
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
