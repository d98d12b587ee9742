//! Seating named players: one game, or one duplicate set (one deal at several tables), created
//! and joined seat by seat. The ladder's matchmaker, challenges and tournaments all seat
//! their games here, so a ladder game and an arranged one differ only in what they say.

use theboss_engine::Seat;

use crate::domain::{
    GameInfo, LadderMatch, PlayerInfo, SeriesRef, Settings, Visibility, now_micros,
};
use crate::game_error::GameError;
use crate::games::Games;
use crate::store::SeriesRecord;

/// What to seat.
pub struct Seating<'a> {
    /// Players by table, each table in seat order; two tables or more make a duplicate set.
    pub tables: &'a [Vec<PlayerInfo>],
    /// Rated on the ladder (a ladder game: the ladder's `Enqueue` also reports it).
    pub rated: bool,
    pub turn_secs: u32,
    /// The challenge or tournament that asked for it: its games are recorded as arranged
    /// (before they exist) so that the players' `Offers` streams show them.
    pub arranged_by: Option<&'a str>,
    /// The games' ids, one per table, if the caller chose them (see [`new_ids`]).
    pub game_ids: Option<&'a [String]>,
}

/// Ids for `count` new games.
pub fn new_ids(count: usize) -> Vec<String> {
    (0..count)
        .map(|_| uuid::Uuid::new_v4().to_string())
        .collect()
}

/// Creates the games, all of one random deal, and seats their players; returns each
/// player's match, table by table and seat by seat.
pub async fn seat(games: &Games, seating: Seating<'_>) -> Result<Vec<LadderMatch>, GameError> {
    let store = games.store();
    let seed = random_seed();
    let n = u8::try_from(seating.tables.first().map_or(0, Vec::len)).unwrap_or(0);
    let count = u8::try_from(seating.tables.len()).unwrap_or(u8::MAX);
    let series = if count >= 2 {
        let record = SeriesRecord {
            id: uuid::Uuid::new_v4().to_string(),
            players: seating
                .tables
                .iter()
                .flatten()
                .map(|p| p.id.clone())
                .collect(),
            seed,
            created_at: now_micros(),
            tables: count,
        };
        store.create_series(&record).await?;
        Some(record)
    } else {
        None
    };
    let ids: Vec<String> = match seating.game_ids {
        Some(ids) if ids.len() == seating.tables.len() => ids.to_vec(),
        _ => new_ids(seating.tables.len()),
    };
    if let Some(by) = seating.arranged_by {
        store.arrange_games(by, &ids).await?;
    }
    let mut matches = Vec::with_capacity(usize::from(n) * seating.tables.len());
    for (index, (seated, game_id)) in seating.tables.iter().zip(&ids).enumerate() {
        let table = series.as_ref().map(|s| SeriesRef {
            id: s.id.clone(),
            index: u8::try_from(index).unwrap_or(u8::MAX),
            tables: s.tables,
        });
        let record = GameInfo {
            id: game_id.clone(),
            settings: Settings::new(n, vec![], seating.turn_secs, Visibility::Public)
                .map_err(|e| GameError::invalid("players", e.to_string()))?,
            seed,
            created_by: seated[0].id.clone(),
            created_at: now_micros(),
            ladder: seating.rated,
            series: table.clone(),
            seed_salt: Some(crate::domain::new_seed_salt()),
            seeded: false,
        };
        let handle = games.create_for_server(record).await?;
        for (seat, player) in seated.iter().enumerate() {
            handle.join(player.clone(), Some(seat as Seat)).await?;
            matches.push(LadderMatch {
                game_id: game_id.clone(),
                seat: seat as Seat,
                players: n,
                already_seated: false,
                series: table.clone(),
            });
        }
        tracing::info!(game = %game_id, players = n, table = index, arranged_by = ?seating.arranged_by, "game seated");
    }
    Ok(matches)
}

fn random_seed() -> u64 {
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes).expect("the OS random source works");
    u64::from_le_bytes(bytes)
}
