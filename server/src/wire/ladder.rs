//! The ladder's answers: ratings, matches and seats, players' standings, challenges and
//! tournaments.

use theboss::v1;

use super::timestamp;
use crate::domain::LadderMatch;
use crate::store::PlayerRatings;
use theboss_ladder::rating::Rating;

pub fn rating_to_wire(players: u8, r: &Rating) -> v1::Rating {
    v1::Rating {
        players: u32::from(players),
        mu: r.mu,
        sigma: r.sigma,
        score: r.score(),
        games: r.games,
        provisional: r.is_provisional(),
        opponents: r.opponents,
        counted_games: r.counted(),
    }
}

pub fn ladder_match_to_wire(m: LadderMatch) -> v1::LadderMatch {
    v1::LadderMatch {
        game_id: m.game_id,
        seat: u32::from(m.seat),
        players: u32::from(m.players),
        already_seated: m.already_seated,
        series_game: m.series.as_ref().map_or(0, |s| u32::from(s.index)),
        series_games: m.series.as_ref().map_or(0, |s| u32::from(s.tables)),
        series_id: m.series.map(|s| s.id).unwrap_or_default(),
    }
}

pub fn player_ratings_to_wire(found: PlayerRatings) -> v1::GetPlayerResponse {
    v1::GetPlayerResponse {
        player_id: found.player.id,
        display_name: found.player.display_name,
        is_bot: found.player.is_bot,
        description: found.description,
        ratings: found
            .ratings
            .iter()
            .map(|(players, r)| rating_to_wire(*players, r))
            .collect(),
        history: found
            .history
            .iter()
            .map(|h| v1::RatingChange {
                game_id: h.game_id.clone(),
                players: u32::from(h.players),
                mu_before: h.before.mu,
                sigma_before: h.before.sigma,
                mu: h.after.mu,
                sigma: h.after.sigma,
                at: Some(timestamp(h.at)),
            })
            .collect(),
    }
}

/// A challenge as it is at `now` (an open one past its expiry is expired).
pub fn challenge_to_wire(
    c: &theboss_ladder::challenge::ChallengeRecord,
    now: i64,
) -> v1::Challenge {
    use theboss_ladder::challenge::{Answer, ChallengeStatus};
    let status = match c.status_at(now) {
        ChallengeStatus::Pending => v1::ChallengeStatus::Pending,
        ChallengeStatus::Seating => v1::ChallengeStatus::Seating,
        ChallengeStatus::Started => v1::ChallengeStatus::Started,
        ChallengeStatus::Declined => v1::ChallengeStatus::Declined,
        ChallengeStatus::Expired => v1::ChallengeStatus::Expired,
        ChallengeStatus::Withdrawn => v1::ChallengeStatus::Withdrawn,
    };
    let challenger = c.challenger();
    v1::Challenge {
        challenge_id: c.id.clone(),
        challenger_id: challenger.id.clone(),
        challenger_name: challenger.display_name.clone(),
        challenger_is_bot: challenger.is_bot,
        opponents: c
            .parties
            .iter()
            .skip(1)
            .map(|(p, answer)| v1::ChallengedPlayer {
                player_id: p.id.clone(),
                display_name: p.display_name.clone(),
                is_bot: p.is_bot,
                answer: match answer {
                    Answer::Pending => v1::ChallengeAnswer::Pending,
                    Answer::Accepted => v1::ChallengeAnswer::Accepted,
                    Answer::Declined => v1::ChallengeAnswer::Declined,
                } as i32,
            })
            .collect(),
        players: u32::from(c.players),
        duplicate: c.duplicate,
        rated: c.rated,
        status: status as i32,
        created_at: Some(timestamp(c.created_at)),
        expires_at: Some(timestamp(c.expires_at)),
        game_ids: c.game_ids.clone(),
    }
}

pub fn policy_to_wire(policy: theboss_ladder::challenge::Policy) -> v1::ChallengePolicy {
    use theboss_ladder::challenge::Policy;
    match policy {
        Policy::Open => v1::ChallengePolicy::Open,
        Policy::BotsOnly => v1::ChallengePolicy::BotsOnly,
        Policy::Closed => v1::ChallengePolicy::Closed,
    }
}

pub fn tournament_status_to_wire(
    status: theboss_ladder::tournament::TournamentStatus,
) -> v1::TournamentStatus {
    use theboss_ladder::tournament::TournamentStatus;
    match status {
        TournamentStatus::Open => v1::TournamentStatus::Open,
        TournamentStatus::Running => v1::TournamentStatus::Running,
        TournamentStatus::Finished => v1::TournamentStatus::Finished,
    }
}

pub fn tournament_to_wire(
    t: &theboss_ladder::tournament::TournamentRecord,
    sets: (u32, u32),
) -> v1::Tournament {
    use theboss_ladder::tournament::Format;
    v1::Tournament {
        tournament_id: t.id.clone(),
        name: t.name.clone(),
        creator_id: t.creator_id.clone(),
        format: match t.format {
            Format::RoundRobin => v1::TournamentFormat::RoundRobin,
            Format::Gauntlet => v1::TournamentFormat::Gauntlet,
        } as i32,
        players: u32::from(t.players),
        sets_per_pair: u32::from(t.sets_per_pair),
        hero_id: t.hero_id.clone().unwrap_or_default(),
        max_entrants: u32::from(t.max_entrants),
        rated: t.rated,
        status: tournament_status_to_wire(t.status) as i32,
        entrants: t
            .entrants
            .iter()
            .map(|e| v1::TournamentEntrant {
                player_id: e.player.id.clone(),
                display_name: e.player.display_name.clone(),
                is_bot: e.player.is_bot,
                description: e.description.clone(),
            })
            .collect(),
        created_at: Some(timestamp(t.created_at)),
        started_at: t.started_at.map(timestamp),
        finished_at: t.finished_at.map(timestamp),
        sets_finished: sets.0,
        sets_running: sets.1,
    }
}

pub fn tournament_report_to_wire(
    report: theboss_ladder::tournament::TournamentReport,
) -> v1::GetTournamentResponse {
    let name_of = |id: &str| {
        report
            .tournament
            .entrants
            .iter()
            .find(|e| e.player.id == id)
            .map(|e| e.player.display_name.clone())
            .unwrap_or_default()
    };
    v1::GetTournamentResponse {
        tournament: Some(tournament_to_wire(
            &report.tournament,
            (report.sets_finished, report.sets_running),
        )),
        standings: report
            .standings
            .iter()
            .enumerate()
            .map(|(i, s)| v1::TournamentStanding {
                rank: u32::try_from(i + 1).unwrap_or(u32::MAX),
                display_name: name_of(&s.player),
                player_id: s.player.clone(),
                sets: s.sets,
                points: s.points,
                mean_money_diff: s.mean_diff,
            })
            .collect(),
        crosstable: report
            .crosstable
            .iter()
            .map(|c| v1::CrosstableCell {
                player_id: c.player.clone(),
                opponent_id: c.opponent.clone(),
                sets: c.sets,
                points: c.points,
                mean_money_diff: c.mean_diff,
                interval: c.interval.map(|(low, high)| v1::Interval { low, high }),
            })
            .collect(),
        games: report
            .games
            .into_iter()
            .map(
                |(game_id, player_ids, series_id, index)| v1::TournamentGame {
                    game_id,
                    player_ids,
                    series_id: series_id.unwrap_or_default(),
                    series_game: u32::from(index),
                },
            )
            .collect(),
    }
}

/// A seat in an arranged game, as the `Offers` stream tells it.
pub fn arranged_seat_to_wire(seat: crate::store::LadderSeat) -> v1::LadderMatch {
    ladder_match_to_wire(LadderMatch {
        game_id: seat.game_id,
        seat: seat.seat,
        players: seat.players,
        already_seated: false,
        series: seat.series,
    })
}
