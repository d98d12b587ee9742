//! Offers mode: answer challenges (from anyone, or from bots only), enter a tournament, and
//! play every game a challenge or a tournament seats the bot in, as its `Offers` stream
//! tells it, until the tournament finishes or enough games were played. A dropped stream or
//! a restarted server only delays it: the stream is opened again and tells the games the
//! bot sits in anew (each is played once).

use std::collections::HashSet;
use std::time::Duration;

use theboss::v1::{self, offers_response::Message};
use theboss_client::{ClientError, Session};
use theboss_engine::GameRng;
use tokio::task::JoinSet;

use crate::ladder::StrategyFactory;
use crate::play::{self, BotError, GameResult, PlayOptions, panic_message};

/// Which challenges the bot accepts (the others it declines).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Accept {
    All,
    BotsOnly,
    /// Leaves them unanswered (they expire).
    None,
}

#[derive(Debug, Clone)]
pub struct OffersOptions {
    pub accept: Accept,
    /// Enter this tournament, and stop once it finishes.
    pub tournament: Option<String>,
    /// Stop after this many games (None: until the tournament finishes, or forever).
    pub games: Option<u32>,
    pub play: PlayOptions,
}

/// How often a bot in a tournament checks whether it finished.
const TOURNAMENT_CHECK: Duration = Duration::from_secs(2);

/// Plays what is offered until done; returns the games' results.
pub async fn run(
    session: &Session,
    strategy: StrategyFactory,
    options: &OffersOptions,
) -> Result<Vec<GameResult>, ClientError> {
    if let Some(id) = &options.tournament {
        session.enter_tournament(id, false).await?;
        tracing::info!(tournament = %id, "entered");
    }
    let seed = session
        .player_id()
        .bytes()
        .fold(7u64, |h, b| h.rotate_left(5) ^ u64::from(b));
    let mut rng = GameRng::from_seed(seed);
    let mut results = Vec::new();
    let mut started: HashSet<String> = HashSet::new();
    let mut games = JoinSet::new();
    let mut check = tokio::time::interval(TOURNAMENT_CHECK);
    let mut failures = 0u32;
    'reconnect: loop {
        let mut stream = match session.offers().await {
            Ok(stream) => {
                failures = 0;
                stream
            }
            Err(e) if e.is_transient() && failures < options.play.feed.reconnects => {
                failures += 1;
                tokio::time::sleep(Duration::from_millis(200 * u64::from(failures.min(10)))).await;
                continue;
            }
            Err(e) => return Err(e),
        };
        loop {
            if options.games.is_some_and(|k| results.len() as u32 >= k) {
                return Ok(results);
            }
            tokio::select! {
                message = tokio::time::timeout(options.play.feed.silence, stream.message()) => {
                    match message {
                        Ok(Ok(Some(message))) => match message.message {
                            Some(Message::Challenge(c)) => answer(session, &c, options.accept).await,
                            Some(Message::Matched(m)) if started.insert(m.game_id.clone()) => {
                                let (session, play) = (session.clone(), options.play.clone());
                                let bot = strategy(rng.next_u64());
                                games.spawn(async move {
                                    play::play_game(&session, &m.game_id, bot, &play).await
                                });
                            }
                            _ => {}
                        },
                        // Ended, failed or silent: open it again.
                        _ => continue 'reconnect,
                    }
                }
                Some(done) = games.join_next(), if !games.is_empty() => {
                    match done {
                        Ok(Ok(result)) => {
                            tracing::info!(%result, "game over");
                            results.push(result);
                        }
                        Ok(Err(error)) => tracing::error!(%error, "a game failed"),
                        Err(error) => {
                            let error = BotError::Task(panic_message(error));
                            tracing::error!(%error, "a game task failed");
                        }
                    }
                }
                _ = check.tick(), if options.tournament.is_some() && games.is_empty() => {
                    let id = options.tournament.as_deref().unwrap_or_default();
                    let t = session.tournament(id).await?;
                    let finished = t
                        .tournament
                        .is_some_and(|t| t.status() == v1::TournamentStatus::Finished);
                    if finished {
                        tracing::info!(tournament = %id, "tournament finished");
                        return Ok(results);
                    }
                }
            }
        }
    }
}

/// Answers a challenge that waits for this bot's answer, as `accept` says.
async fn answer(session: &Session, challenge: &v1::Challenge, accept: Accept) {
    let mine = challenge
        .opponents
        .iter()
        .find(|o| o.player_id == session.player_id());
    let waiting = challenge.status() == v1::ChallengeStatus::Pending
        && mine.is_some_and(|o| o.answer() == v1::ChallengeAnswer::Pending);
    if !waiting {
        return;
    }
    let yes = match accept {
        Accept::All => true,
        Accept::BotsOnly => challenge.challenger_is_bot,
        Accept::None => return,
    };
    match session.answer_challenge(&challenge.challenge_id, yes).await {
        Ok(c) => tracing::info!(
            challenge = %c.challenge_id,
            from = %challenge.challenger_name,
            accepted = yes,
            "challenge answered"
        ),
        Err(error) => tracing::warn!(%error, "cannot answer a challenge"),
    }
}
