//! `CreateGame`, `JoinGame` and `LeaveGame`: a table's settings and house bots checked (a
//! chosen seed only for unlisted games), the creator's caps applied by the registry, and a
//! seat taken or left on the replica that runs the game.

use theboss::convert::{self, city_from_wire};
use theboss::v1;
use theboss_bots::StrategyKind;
use theboss_engine::RulesVersion;
use tonic::Request;

use super::checks::{checked_id, player_count};
use super::{GameService, caller};
use crate::domain::{GameInfo, Settings, SettingsError, Visibility, now_micros};
use crate::error::ApiError;
use crate::game_error::GameError;

/// The most cities a request may list: every city once.
const MAX_CITIES: usize = theboss_engine::CITY_COUNT;

/// Checks requested settings; the error names the offending field.
fn settings_from_wire(settings: Option<&v1::GameSettings>) -> Result<Settings, GameError> {
    let settings = settings.ok_or_else(|| GameError::invalid("settings", "required"))?;
    if settings.cities.len() > MAX_CITIES {
        return Err(GameError::invalid(
            "settings.cities",
            format!("at most {MAX_CITIES} cities, not {}", settings.cities.len()),
        ));
    }
    let players = player_count("settings.players", settings.players)?;
    let cities = settings
        .cities
        .iter()
        .enumerate()
        .map(|(i, &c)| city_from_wire(c, &format!("settings.cities[{i}]")))
        .collect::<Result<Vec<_>, _>>()?;
    let visibility = match v1::Visibility::try_from(settings.visibility) {
        Ok(v1::Visibility::Unspecified | v1::Visibility::Public) => Visibility::Public,
        Ok(v1::Visibility::Unlisted) => Visibility::Unlisted,
        Err(_) => {
            return Err(GameError::invalid(
                "settings.visibility",
                format!("{} is not a visibility", settings.visibility),
            ));
        }
    };
    let rules = match settings.rules_version {
        0 => RulesVersion::LATEST,
        n => convert::rules_from_wire(n, "settings.rules_version")?,
    };
    let checked = Settings::new(
        players,
        cities,
        settings.turn_time_limit_seconds,
        visibility,
    )
    .map_err(|e| match e {
        SettingsError::TurnTimeLimit(_) => {
            GameError::invalid("settings.turn_time_limit_seconds", e.to_string())
        }
        SettingsError::Rules(_) => GameError::invalid("settings.cities", e.to_string()),
    })?;
    Ok(checked.with_rules(rules))
}

/// A `CreateGameRequest`'s house bots, for a table of `players`: at most `players - 1`,
/// UNSPECIFIED standing for the server's default.
fn house_bots_from_wire(values: &[i32], players: u8) -> Result<Vec<StrategyKind>, GameError> {
    if values.len() >= usize::from(players) {
        return Err(GameError::invalid(
            "house_bots",
            format!(
                "{} house bots for {players} seats: at most {} (one seat is the creator's to take)",
                values.len(),
                players.saturating_sub(1)
            ),
        ));
    }
    values
        .iter()
        .map(|value| match v1::BotStrategy::try_from(*value) {
            Ok(v1::BotStrategy::Unspecified) => Ok(crate::house::DEFAULT_KIND),
            Ok(v1::BotStrategy::Random) => Ok(StrategyKind::Random),
            Ok(v1::BotStrategy::Heuristic) => Ok(StrategyKind::Heuristic),
            Ok(v1::BotStrategy::Ismcts) => Ok(StrategyKind::Ismcts),
            Err(_) => Err(GameError::invalid(
                "house_bots",
                format!("{value} is not a BotStrategy value"),
            )),
        })
        .collect()
}

fn random_seed() -> u64 {
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes).expect("the OS random source works");
    u64::from_le_bytes(bytes)
}

impl GameService {
    pub(super) async fn create(
        &self,
        request: Request<v1::CreateGameRequest>,
    ) -> Result<v1::CreateGameResponse, ApiError> {
        let player = caller(&self.auth, &request).await?;
        let address = crate::net::address::ClientAddr::of(request.extensions());
        let request = request.into_inner();
        let settings = settings_from_wire(request.settings.as_ref())?;
        // Whoever chose a seed may know every deal: such a game is for tests and replays,
        // between players who know it, never listed to strangers.
        if request.seed.is_some() && settings.visibility() != Visibility::Unlisted {
            return Err(ApiError::invalid(
                "seed",
                "only an UNLISTED game may be given a seed (settings.visibility)",
            ));
        }
        let house_bots = house_bots_from_wire(&request.house_bots, settings.players())?;
        let house_players = crate::house::seat_players(&house_bots).ok_or_else(|| {
            ApiError::invalid(
                "house_bots",
                format!(
                    "at most {} house bots of one strategy at a table",
                    crate::house::PER_KIND
                ),
            )
        })?;
        let record = GameInfo {
            id: uuid::Uuid::new_v4().to_string(),
            settings,
            seed: request.seed.unwrap_or_else(random_seed),
            created_by: player.id,
            created_at: now_micros(),
            ladder: false,
            series: None,
            seed_salt: Some(crate::domain::new_seed_salt()),
            seeded: request.seed.is_some(),
        };
        let game_id = record.id.clone();
        tracing::Span::current().record("game", game_id.as_str());
        tracing::info!(
            players = record.settings.players(),
            seeded = record.seeded,
            "game created"
        );
        if house_players.is_empty() {
            self.games.create(record).await?;
        } else {
            // The house bots take the last seats: the creator's JoinGame takes the first free
            // one.
            self.games
                .create_with_house(record, house_players, address)
                .await?;
        }
        Ok(v1::CreateGameResponse { game_id })
    }

    pub(super) async fn join(
        &self,
        request: Request<v1::JoinGameRequest>,
    ) -> Result<v1::JoinGameResponse, ApiError> {
        let player = caller(&self.auth, &request).await?;
        let (metadata, _, request) = request.into_parts();
        let game_id = checked_id("game_id", &request.game_id)?.to_string();
        // A seat past the table is one mistake, INVALID_ARGUMENT, whatever its size: the
        // table refuses those it knows it lacks, this those no table has.
        let seat = request
            .seat
            .map(|s| {
                u8::try_from(s).map_err(|_| {
                    ApiError::invalid("seat", format!("there is no seat {s} at this table"))
                })
            })
            .transpose()?;
        self.on_owner(&game_id, request, &metadata, |game| {
            let player = player.clone();
            async move {
                let caps = self.games.caps_of(&player.id);
                let joined = game.join_within(player, seat, caps).await?;
                Ok(v1::JoinGameResponse {
                    seat: u32::from(joined.seat),
                    started: joined.started,
                })
            }
        })
        .await
    }

    pub(super) async fn leave(
        &self,
        request: Request<v1::LeaveGameRequest>,
    ) -> Result<v1::LeaveGameResponse, ApiError> {
        let player = caller(&self.auth, &request).await?;
        let (metadata, _, request) = request.into_parts();
        let game_id = checked_id("game_id", &request.game_id)?.to_string();
        self.on_owner(&game_id, request, &metadata, |game| {
            let player_id = player.id.clone();
            async move {
                game.leave(player_id.clone()).await?;
                // Its place may be free again at once, whatever was cached.
                self.games.uncap(&player_id);
                Ok(v1::LeaveGameResponse {})
            }
        })
        .await
    }
}
