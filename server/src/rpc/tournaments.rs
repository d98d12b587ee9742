//! Tournaments over the wire: create, enter or leave, start, read (with standings and the
//! crosstable) and list. The running is the ladder's (`ladder::tournament_rounds`).

use theboss::v1;
use tonic::Request;

use super::checks::checked_id;
use super::enqueue::category;
use super::{LadderService, caller, viewer};
use crate::error::ApiError;
use crate::ladder::tournament_rounds::TournamentSpec;
use crate::wire;
use theboss_ladder::tournament::{Format, MAX_ENTRANTS, MAX_SETS_PER_PAIR, TournamentStatus};

fn spec(request: v1::CreateTournamentRequest) -> Result<TournamentSpec, ApiError> {
    let name = crate::text::checked(&crate::text::TOURNAMENT_NAME, &request.name)
        .map_err(|e| ApiError::invalid("name", e.to_string()))?;
    let format = match v1::TournamentFormat::try_from(request.format) {
        Ok(v1::TournamentFormat::RoundRobin) => Format::RoundRobin,
        Ok(v1::TournamentFormat::Gauntlet) => Format::Gauntlet,
        _ => {
            return Err(ApiError::invalid(
                "format",
                "TOURNAMENT_FORMAT_ROUND_ROBIN or TOURNAMENT_FORMAT_GAUNTLET",
            ));
        }
    };
    let players = match category(request.players, "players")? {
        0 => return Err(ApiError::invalid("players", "2, 3 or 4")),
        n => n,
    };
    let sets_per_pair = match request.sets_per_pair {
        0 => 2,
        n if n <= MAX_SETS_PER_PAIR => n as u8,
        n => {
            return Err(ApiError::invalid(
                "sets_per_pair",
                format!("1 to {MAX_SETS_PER_PAIR} (0 means 2), not {n}"),
            ));
        }
    };
    let hero_id = match (format, request.hero_id.as_str()) {
        (Format::Gauntlet, "") => {
            return Err(ApiError::invalid("hero_id", "a gauntlet needs its hero"));
        }
        (Format::Gauntlet, id) => Some(checked_id("hero_id", id)?.to_string()),
        (Format::RoundRobin, "") => None,
        (Format::RoundRobin, _) => {
            return Err(ApiError::invalid("hero_id", "only a gauntlet has a hero"));
        }
    };
    let min = 2 * u32::from(players);
    let max_entrants = match request.max_entrants {
        0 => 16.max(min),
        n if (min..=MAX_ENTRANTS).contains(&n) => n,
        n => {
            return Err(ApiError::invalid(
                "max_entrants",
                format!("{min} (two full tables) to {MAX_ENTRANTS}, or 0 for 16; not {n}"),
            ));
        }
    };
    Ok(TournamentSpec {
        name,
        format,
        players,
        sets_per_pair,
        hero_id,
        max_entrants: max_entrants as u8,
        rated: request.rated,
        enter: request.enter,
    })
}

impl LadderService {
    pub(super) async fn create_tournament(
        &self,
        request: Request<v1::CreateTournamentRequest>,
    ) -> Result<v1::CreateTournamentResponse, ApiError> {
        let player = caller(&self.auth, &request).await?;
        let spec = spec(request.into_inner())?;
        let tournament = self.ladder.create_tournament(player, spec).await?;
        Ok(v1::CreateTournamentResponse {
            tournament: Some(wire::tournament_to_wire(&tournament, (0, 0))),
        })
    }

    pub(super) async fn enter_tournament(
        &self,
        request: Request<v1::EnterTournamentRequest>,
    ) -> Result<v1::EnterTournamentResponse, ApiError> {
        let player = caller(&self.auth, &request).await?;
        let request = request.into_inner();
        let id = checked_id("tournament_id", &request.tournament_id)?;
        let tournament = self
            .ladder
            .enter_tournament(&player, id, !request.leave)
            .await?;
        Ok(v1::EnterTournamentResponse {
            tournament: Some(wire::tournament_to_wire(&tournament, (0, 0))),
        })
    }

    pub(super) async fn start_tournament(
        &self,
        request: Request<v1::StartTournamentRequest>,
    ) -> Result<v1::StartTournamentResponse, ApiError> {
        let player = caller(&self.auth, &request).await?;
        let id = checked_id("tournament_id", &request.get_ref().tournament_id)?.to_string();
        let tournament = self.ladder.start_tournament(&player, &id).await?;
        Ok(v1::StartTournamentResponse {
            tournament: Some(wire::tournament_to_wire(&tournament, (0, 0))),
        })
    }

    pub(super) async fn get_tournament(
        &self,
        request: Request<v1::GetTournamentRequest>,
    ) -> Result<v1::GetTournamentResponse, ApiError> {
        viewer(&self.auth, &request).await?;
        let id = checked_id("tournament_id", &request.get_ref().tournament_id)?.to_string();
        let report = self.ladder.tournament_report(&id).await?;
        Ok(wire::tournament_report_to_wire(report))
    }

    pub(super) async fn list_tournaments(
        &self,
        request: Request<v1::ListTournamentsRequest>,
    ) -> Result<v1::ListTournamentsResponse, ApiError> {
        viewer(&self.auth, &request).await?;
        let request = request.into_inner();
        let status = match v1::TournamentStatus::try_from(request.status) {
            Ok(v1::TournamentStatus::Unspecified) => None,
            Ok(v1::TournamentStatus::Open) => Some(TournamentStatus::Open),
            Ok(v1::TournamentStatus::Running) => Some(TournamentStatus::Running),
            Ok(v1::TournamentStatus::Finished) => Some(TournamentStatus::Finished),
            Err(_) => return Err(ApiError::invalid("status", "a TournamentStatus")),
        };
        let limit = super::checks::page_size(request.page_size)?;
        let tournaments = self.ladder.list_tournaments(status, limit).await?;
        Ok(v1::ListTournamentsResponse {
            tournaments: tournaments
                .iter()
                .map(|t| wire::tournament_to_wire(t, (0, 0)))
                .collect(),
        })
    }
}
