//! An end-to-end ladder on PostgreSQL: six bots of three strategies queue, play and re-queue
//! duplicate sets through a real server until each has a dozen rated sets; the random bots
//! must then rate below the search bots on average. (A dozen comparisons
//! per bot cannot order the bots one by one, nor the heuristic bots against the others: that
//! is the arena's measurement, with thousands of duplicate deals.)

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use theboss::v1;
use theboss_bot::ladder::{self, LadderOptions, StrategyFactory};
use theboss_bot::play::PlayOptions;
use theboss_bot::strategy::ismcts::{Budget, Ismcts};
use theboss_bot::strategy::{Strategy, StrategyKind};
use theboss_client::Connection;
use theboss_engine::{Turn, View};
use theboss_server::testing::TestServer;

/// Rated duplicate sets every bot must have played (established from 10 on).
const SERIES_PER_BOT: u32 = 12;

/// Every bot takes at least this long per turn, so that all play at the same pace: fast
/// bots would otherwise mostly meet each other while the search bots think.
const TURN_PACE: Duration = Duration::from_millis(40);

/// A strategy that never answers faster than [`TURN_PACE`].
struct Paced(Box<dyn Strategy>);

impl Strategy for Paced {
    fn name(&self) -> &'static str {
        self.0.name()
    }

    fn choose(&mut self, view: &View, time: Option<Duration>) -> Turn {
        let started = Instant::now();
        let turn = self.0.choose(view, time);
        // `choose` runs on a blocking thread, so sleeping here blocks nothing else.
        std::thread::sleep(TURN_PACE.saturating_sub(started.elapsed()));
        turn
    }
}

fn strategy(kind: StrategyKind) -> StrategyFactory {
    Arc::new(move |seed| -> Box<dyn Strategy> {
        let inner: Box<dyn Strategy> = match kind {
            // A fixed budget keeps the strength independent of the machine's load.
            StrategyKind::Ismcts => Box::new(Ismcts::new(seed, Budget::iterations(3_000))),
            other => other.build(seed),
        };
        Box::new(Paced(inner))
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_the_ladder_the_search_bots_rate_above_the_random_bots() {
    let server = TestServer::postgres().await;
    let connection = Connection::connect(&server.url()).await.unwrap();
    let kinds = [
        StrategyKind::Random,
        StrategyKind::Heuristic,
        StrategyKind::Ismcts,
    ];
    let mut bots = Vec::new();
    let mut kind_of = HashMap::new();
    for kind in kinds {
        for i in 0..2 {
            let session = connection
                .register(&format!("{kind} {i}"), true)
                .await
                .unwrap();
            kind_of.insert(session.player_id().to_string(), kind);
            let options = LadderOptions {
                players: 2,
                // Duplicate sets (each deal played at two tables, its holders compared)
                // take the luck of the deal out of the ratings.
                duplicate: true,
                // Bots play on until the test has seen enough: a bot that stopped early
                // would leave the last one waiting for a partner forever.
                games: None,
                jitter: Duration::from_millis(150),
                play: PlayOptions::default(),
            };
            bots.push(tokio::spawn(async move {
                ladder::run(&session, strategy(kind), &options).await
            }));
        }
    }
    let viewer = connection.register("viewer", false).await.unwrap();
    // Each bot's overall rating, once every bot has played its sets (whether a bot is also
    // established on the leaderboard depends on how many different bots the queue paired it
    // with, which is the queue's business, not this test's).
    let overall = |player_id: String| {
        let viewer = viewer.clone();
        async move {
            let found = viewer.player(&player_id).await.unwrap();
            let rating = found.ratings.into_iter().find(|r| r.players == 0);
            (player_id, found.display_name, rating)
        }
    };
    let started = std::time::Instant::now();
    let ratings = loop {
        let mut ratings = Vec::new();
        for id in kind_of.keys() {
            ratings.push(overall(id.clone()).await);
        }
        let games = |r: &Option<v1::Rating>| r.map_or(0, |r| r.games);
        if ratings.iter().all(|(_, _, r)| games(r) >= SERIES_PER_BOT) {
            break ratings;
        }
        if let Some(stopped) = bots.iter().position(|bot| bot.is_finished()) {
            let outcome = bots.swap_remove(stopped).await;
            panic!("a bot stopped: {outcome:?}");
        }
        assert!(
            started.elapsed() < Duration::from_secs(600),
            "the ladder is too slow: {:?}",
            ratings
                .iter()
                .map(|(_, name, r)| (name.clone(), games(r)))
                .collect::<Vec<_>>()
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    };
    for bot in &bots {
        bot.abort();
    }
    let mut by_kind: HashMap<StrategyKind, Vec<f64>> = HashMap::new();
    for (id, name, rating) in &ratings {
        let rating = rating.unwrap();
        println!(
            "{:<12} mu {:6.2} sigma {:5.2} score {:6.2} games {} opponents {}",
            name, rating.mu, rating.sigma, rating.score, rating.games, rating.opponents
        );
        by_kind.entry(kind_of[id]).or_default().push(rating.mu);
    }
    let mean = |k: StrategyKind| by_kind[&k].iter().sum::<f64>() / by_kind[&k].len() as f64;
    let (r, h, i) = (
        mean(StrategyKind::Random),
        mean(StrategyKind::Heuristic),
        mean(StrategyKind::Ismcts),
    );
    // In a duplicate set a bot is compared with whoever held its cards, and the queue decides
    // who that is: the bots that finish first meet each other again (a run played the random
    // bots 24 sets each, the others 12). After a dozen sets a bot's sigma is still about 6.5,
    // and what a heuristic bot's rating says depends on whom it met: runs here put it level
    // with the random bots (CI: random 24.91 and 21.03, heuristic 19.87 and 17.22) or far above
    // them (38.20 against 18.29). The search bots' mean against the random bots' is the gap a
    // dozen sets do show: 12 to 16 points in most runs (36.08 against 22.59, 34.97 against
    // 22.97, 31.19 against 15.60, 38.16 against 24.85), but 4.94 in one (search 29.07 and
    // 22.78, random 27.53 and 14.42), so a floor of a few points would fail now and then
    // with nothing wrong. The ladder's end-to-end claim is the direction: ratings that did
    // not move (every mu still 25) or moved the wrong way fail here; how much stronger the
    // search is, is the arena's measurement, over thousands of duplicate deals.
    assert!(
        i > r,
        "mean mu: random {r:.2}, heuristic {h:.2}, ismcts {i:.2}"
    );
    server.stop().await;
}
