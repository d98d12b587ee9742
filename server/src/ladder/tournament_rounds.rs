//! Tournaments: created by a player, entered until their creator starts them, then run by
//! the matchmaker one round at a time (`advance`): when every game of a tournament has
//! ended, the next round is planned from the comparisons made so far (`schedule`) and
//! seated. Everything a round needs is read from the store, so a restart or a new
//! matchmaker on another replica carries on where the last one stopped. Results are read
//! the same way (`crosstable`).

use std::collections::{BTreeMap, HashMap};

use super::seating::{self, Seating};
use super::{Ladder, Signal, challenging};
use crate::domain::{PlayerInfo, now_micros};
use crate::game_error::{GameError, LimitKind};
use crate::games::Games;
use crate::store::{ArrangedTable, Store};
use theboss_ladder::crosstable::{self, Comparison};
use theboss_ladder::schedule::{Plan, pair_key};
use theboss_ladder::tournament::{
    Entrant, Format, MAX_OPEN_TOURNAMENTS, TournamentRecord, TournamentRefused, TournamentReport,
    TournamentStatus,
};

/// What a player asks for, checked for its shape by the RPC layer.
#[derive(Debug, Clone)]
pub struct TournamentSpec {
    pub name: String,
    pub format: Format,
    pub players: u8,
    pub sets_per_pair: u8,
    pub hero_id: Option<String>,
    pub max_entrants: u8,
    pub rated: bool,
    /// Enter the creator at once.
    pub enter: bool,
}

/// A tournament's games by set, in set order.
fn by_set(tables: Vec<ArrangedTable>) -> BTreeMap<String, Vec<ArrangedTable>> {
    let mut sets: BTreeMap<String, Vec<ArrangedTable>> = BTreeMap::new();
    for table in tables {
        let key = table
            .series_id
            .clone()
            .unwrap_or_else(|| table.table.game_id.clone());
        sets.entry(key).or_default().push(table);
    }
    for set in sets.values_mut() {
        set.sort_by_key(|t| t.series_index);
    }
    sets
}

fn refusal(refused: TournamentRefused, tournament_id: &str) -> GameError {
    let (reason, message) = match refused {
        TournamentRefused::NotOpen => (
            "TOURNAMENT_NOT_OPEN",
            format!("tournament {tournament_id} is not taking entries: it started"),
        ),
        TournamentRefused::Full => (
            "TOURNAMENT_FULL",
            format!("tournament {tournament_id} has all the entrants it takes"),
        ),
        TournamentRefused::TooFewEntrants { have, need } => (
            "TOO_FEW_ENTRANTS",
            format!(
                "tournament {tournament_id} has {have} entrants: it needs {need} (two full tables)"
            ),
        ),
        TournamentRefused::HeroNotEntered => (
            "HERO_NOT_ENTERED",
            format!("the hero of gauntlet {tournament_id} has not entered"),
        ),
        TournamentRefused::NotCreator => {
            return GameError::Forbidden {
                reason: "NOT_CREATOR",
                message: format!("only its creator may start tournament {tournament_id}"),
            };
        }
    };
    GameError::Refused { reason, message }
}

fn not_found(tournament_id: &str) -> GameError {
    GameError::NotFound {
        what: "tournament",
        id: tournament_id.to_string(),
    }
}

impl Ladder {
    pub async fn create_tournament(
        &self,
        creator: PlayerInfo,
        spec: TournamentSpec,
    ) -> Result<TournamentRecord, GameError> {
        let record = TournamentRecord {
            id: uuid::Uuid::new_v4().to_string(),
            name: spec.name,
            creator_id: creator.id.clone(),
            format: spec.format,
            players: spec.players,
            sets_per_pair: spec.sets_per_pair,
            hero_id: spec.hero_id,
            max_entrants: spec.max_entrants,
            rated: spec.rated,
            turn_secs: self.turn_secs,
            status: TournamentStatus::Open,
            created_at: now_micros(),
            started_at: None,
            finished_at: None,
            entrants: if spec.enter {
                vec![Entrant {
                    player: creator.clone(),
                    description: String::new(),
                }]
            } else {
                Vec::new()
            },
        };
        if !self
            .store
            .create_tournament(&record, MAX_OPEN_TOURNAMENTS)
            .await?
        {
            return Err(GameError::Limit {
                kind: LimitKind::OpenTournaments,
                subject: format!("player:{}", creator.id),
                limit: MAX_OPEN_TOURNAMENTS,
            });
        }
        tracing::info!(tournament = %record.id, format = record.format.as_str(), "tournament created");
        self.tournament(&record.id).await
    }

    pub async fn tournament(&self, tournament_id: &str) -> Result<TournamentRecord, GameError> {
        self.store
            .tournament(tournament_id)
            .await?
            .ok_or_else(|| not_found(tournament_id))
    }

    pub async fn enter_tournament(
        &self,
        player: &PlayerInfo,
        tournament_id: &str,
        entering: bool,
    ) -> Result<TournamentRecord, GameError> {
        self.store
            .enter_tournament(tournament_id, &player.id, entering, now_micros())
            .await?
            .ok_or_else(|| not_found(tournament_id))?
            .map_err(|refused| refusal(refused, tournament_id))
    }

    pub async fn start_tournament(
        &self,
        player: &PlayerInfo,
        tournament_id: &str,
    ) -> Result<TournamentRecord, GameError> {
        let started = self
            .store
            .start_tournament(tournament_id, &player.id, now_micros())
            .await?
            .ok_or_else(|| not_found(tournament_id))?
            .map_err(|refused| refusal(refused, tournament_id))?;
        tracing::info!(tournament = %tournament_id, entrants = started.entrants.len(), "tournament started");
        // The matchmaker seats its first round at its next tick.
        Ok(started)
    }

    pub async fn list_tournaments(
        &self,
        status: Option<TournamentStatus>,
        limit: u32,
    ) -> Result<Vec<TournamentRecord>, GameError> {
        Ok(self.store.list_tournaments(status, limit).await?)
    }

    /// A tournament with its standings, crosstable and games being played.
    pub async fn tournament_report(
        &self,
        tournament_id: &str,
    ) -> Result<TournamentReport, GameError> {
        let tournament = self.tournament(tournament_id).await?;
        let sets = by_set(self.store.tournament_tables(tournament_id).await?);
        let mut comparisons: Vec<Comparison> = Vec::new();
        let mut games = Vec::new();
        let (mut finished, mut running) = (0, 0);
        for (set_id, tables) in &sets {
            let plain: Vec<_> = tables.iter().map(|t| t.table.clone()).collect();
            if plain.iter().all(|t| t.status.is_over()) {
                finished += 1;
                comparisons.extend(crosstable::comparisons(&plain));
            } else {
                running += 1;
                for t in tables.iter().filter(|t| !t.table.status.is_over()) {
                    games.push((
                        t.table.game_id.clone(),
                        t.table.players.clone(),
                        Some(set_id.clone()),
                        t.series_index,
                    ));
                }
            }
        }
        let (standings, crosstable) = crosstable::crosstable(&comparisons);
        Ok(TournamentReport {
            tournament,
            standings,
            crosstable,
            games,
            sets_finished: finished,
            sets_running: running,
        })
    }
}

/// Moves every running tournament on: seats its next round once its last one ended, or
/// finishes it when no comparison is owed.
pub(super) async fn advance_all(games: &Games, signal: &Signal) {
    let store = games.store();
    let running = match store.running_tournaments().await {
        Ok(running) => running,
        Err(error) => {
            tracing::warn!(%error, "cannot list the running tournaments");
            return;
        }
    };
    for id in running {
        if let Err(error) = advance(games, &**store, signal, &id).await {
            tracing::warn!(tournament = %id, %error, "cannot move the tournament on");
        }
    }
}

async fn advance(
    games: &Games,
    store: &dyn Store,
    signal: &Signal,
    tournament_id: &str,
) -> Result<(), GameError> {
    let Some(tournament) = store.tournament(tournament_id).await? else {
        return Ok(());
    };
    let sets = by_set(store.tournament_tables(tournament_id).await?);
    if sets.values().flatten().any(|t| !t.table.status.is_over()) {
        return Ok(());
    }
    // Comparisons made or tried: a set whose table was aborted (everyone timed out) is not
    // played again, or an absent entrant would hold the tournament up for ever. A set
    // missing a table (the server stopped while seating it) compared nobody.
    let mut done: HashMap<(String, String), u32> = HashMap::new();
    for tables in sets.values().filter(|t| t.len() == 2) {
        for (a, b) in tables[0].table.players.iter().zip(&tables[1].table.players) {
            *done.entry(pair_key(a, b)).or_insert(0) += 1;
        }
    }
    let entrants: Vec<String> = tournament
        .entrants
        .iter()
        .map(|e| e.player.id.clone())
        .collect();
    let plan = Plan {
        format: tournament.format,
        entrants: &entrants,
        hero: tournament.hero_id.as_deref(),
        players: usize::from(tournament.players),
        sets_per_pair: u32::from(tournament.sets_per_pair),
    };
    let round = plan.next_round(&done, uuid::Uuid::new_v4().as_u64_pair().0);
    if round.is_empty() {
        store.finish_tournament(tournament_id, now_micros()).await?;
        tracing::info!(tournament = %tournament_id, sets = sets.len(), "tournament finished");
        return Ok(());
    }
    let info: HashMap<&str, &PlayerInfo> = tournament
        .entrants
        .iter()
        .map(|e| (e.player.id.as_str(), &e.player))
        .collect();
    let mut seated = Vec::new();
    for layout in &round {
        let tables: Vec<Vec<PlayerInfo>> = layout
            .tables
            .iter()
            .map(|t| t.iter().map(|id| info[id.as_str()].clone()).collect())
            .collect();
        seating::seat(
            games,
            Seating {
                tables: &tables,
                rated: tournament.rated,
                turn_secs: tournament.turn_secs,
                arranged_by: Some(tournament_id),
                game_ids: None,
            },
        )
        .await?;
        seated.extend(layout.tables.iter().flatten().cloned());
    }
    tracing::info!(tournament = %tournament_id, sets = round.len(), "tournament round seated");
    challenging::tell(signal, seated).await;
    Ok(())
}
