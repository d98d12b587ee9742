//! Tournaments: a round robin (every pair of entrants compared) or a gauntlet (one hero
//! against the field) of duplicate sets. The records as the store keeps them, and their rules
//! as pure functions: who may enter or leave, who may start it and when.

use crate::PlayerInfo;

/// Tournaments one player created that have not finished.
pub const MAX_OPEN_TOURNAMENTS: u32 = 2;
/// The most entrants a tournament may take.
pub const MAX_ENTRANTS: u32 = 32;
/// Comparisons per pair a tournament may ask for.
pub const MAX_SETS_PER_PAIR: u32 = 10;

/// A tournament's format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Every pair of entrants compared.
    RoundRobin,
    /// The hero compared with every other entrant.
    Gauntlet,
}

impl Format {
    pub fn as_str(self) -> &'static str {
        match self {
            Format::RoundRobin => "round_robin",
            Format::Gauntlet => "gauntlet",
        }
    }

    pub fn parse(text: &str) -> Option<Format> {
        Some(match text {
            "round_robin" => Format::RoundRobin,
            "gauntlet" => Format::Gauntlet,
            _ => return None,
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TournamentStatus {
    Open,
    Running,
    Finished,
}

impl TournamentStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            TournamentStatus::Open => "open",
            TournamentStatus::Running => "running",
            TournamentStatus::Finished => "finished",
        }
    }

    pub fn parse(text: &str) -> Option<TournamentStatus> {
        Some(match text {
            "open" => TournamentStatus::Open,
            "running" => TournamentStatus::Running,
            "finished" => TournamentStatus::Finished,
            _ => return None,
        })
    }
}

/// An entrant as a tournament shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entrant {
    pub player: PlayerInfo,
    pub description: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TournamentRecord {
    pub id: String,
    pub name: String,
    pub creator_id: String,
    pub format: Format,
    /// Players per game.
    pub players: u8,
    pub sets_per_pair: u8,
    pub hero_id: Option<String>,
    pub max_entrants: u8,
    pub rated: bool,
    pub turn_secs: u32,
    pub status: TournamentStatus,
    pub created_at: i64,
    pub started_at: Option<i64>,
    pub finished_at: Option<i64>,
    /// In the order they entered (empty where only the record was read).
    pub entrants: Vec<Entrant>,
}

impl TournamentRecord {
    /// The fewest entrants it can start with: two full tables.
    pub fn min_entrants(&self) -> usize {
        2 * usize::from(self.players)
    }
}

/// Why a tournament refused an entry or a start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TournamentRefused {
    NotOpen,
    Full,
    NotCreator,
    TooFewEntrants { have: usize, need: usize },
    HeroNotEntered,
}

/// Whether `player_id` may enter (or leave) `tournament` now.
pub fn check_entry(tournament: &TournamentRecord, entering: bool) -> Result<(), TournamentRefused> {
    if tournament.status != TournamentStatus::Open {
        return Err(TournamentRefused::NotOpen);
    }
    if entering && tournament.entrants.len() >= usize::from(tournament.max_entrants) {
        return Err(TournamentRefused::Full);
    }
    Ok(())
}

/// Whether `player_id` may start `tournament` now.
pub fn check_start(
    tournament: &TournamentRecord,
    player_id: &str,
) -> Result<(), TournamentRefused> {
    if tournament.creator_id != player_id {
        return Err(TournamentRefused::NotCreator);
    }
    if tournament.status != TournamentStatus::Open {
        return Err(TournamentRefused::NotOpen);
    }
    let (have, need) = (tournament.entrants.len(), tournament.min_entrants());
    if have < need {
        return Err(TournamentRefused::TooFewEntrants { have, need });
    }
    if let Some(hero) = &tournament.hero_id
        && !tournament.entrants.iter().any(|e| &e.player.id == hero)
    {
        return Err(TournamentRefused::HeroNotEntered);
    }
    Ok(())
}

/// A tournament with its results.
#[derive(Debug, Clone)]
pub struct TournamentReport {
    pub tournament: TournamentRecord,
    pub standings: Vec<crate::crosstable::Standing>,
    pub crosstable: Vec<crate::crosstable::Cell>,
    /// Games being played: (game id, player ids by seat, set id, table index).
    pub games: Vec<(String, Vec<String>, Option<String>, u8)>,
    pub sets_finished: u32,
    pub sets_running: u32,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn player(id: &str, is_bot: bool) -> PlayerInfo {
        PlayerInfo {
            id: id.into(),
            display_name: id.to_uppercase(),
            is_bot,
        }
    }

    fn tournament(entrants: usize) -> TournamentRecord {
        TournamentRecord {
            id: "t".into(),
            name: "T".into(),
            creator_id: "a".into(),
            format: Format::Gauntlet,
            players: 2,
            sets_per_pair: 2,
            hero_id: Some("hero".into()),
            max_entrants: 5,
            rated: false,
            turn_secs: 30,
            status: TournamentStatus::Open,
            created_at: 0,
            started_at: None,
            finished_at: None,
            entrants: (0..entrants)
                .map(|i| Entrant {
                    player: player(&format!("e{i}"), true),
                    description: String::new(),
                })
                .collect(),
        }
    }

    #[test]
    fn a_tournament_starts_with_two_tables_and_its_hero() {
        let t = tournament(3);
        assert_eq!(
            check_start(&t, "a"),
            Err(TournamentRefused::TooFewEntrants { have: 3, need: 4 })
        );
        assert_eq!(check_start(&t, "e0"), Err(TournamentRefused::NotCreator));
        let t = tournament(4);
        assert_eq!(check_start(&t, "a"), Err(TournamentRefused::HeroNotEntered));
        let mut t = tournament(4);
        t.entrants[0].player.id = "hero".into();
        assert_eq!(check_start(&t, "a"), Ok(()));
        assert_eq!(check_entry(&t, true), Ok(()));
        let full = tournament(5);
        assert_eq!(check_entry(&full, true), Err(TournamentRefused::Full));
        assert_eq!(check_entry(&full, false), Ok(()));
        t.status = TournamentStatus::Running;
        assert_eq!(check_entry(&t, false), Err(TournamentRefused::NotOpen));
    }
}
