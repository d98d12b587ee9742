//! The gRPC services, thin: each method authenticates the caller, checks its request (the
//! checks several RPCs share are in [`checks`], the rest beside the one RPC that asks them),
//! hands the work to the game directory, a game's actor, the ladder or the store, and turns
//! the answer into a wire message with `wire`. Refusals become statuses in one place,
//! `error`.
//!
//! - [`game_service`]: the `theboss.v1.GameService` trait, one line per method, over the
//!   families [`accounts`] (register, profile), [`tables`] (create, join, leave),
//!   [`listing`] (`ListGames`), [`play`] (views, catalogues, turns, histories), [`watching`]
//!   (`WatchGame` streams and their limits) and [`export`] (`ExportGames`, finished games as
//!   game records). Calls that must run where their game is run go through [`forward`], the
//!   owner-or-forward routing.
//! - [`ladder_service`]: `theboss.v1.LadderService` over [`enqueue`] (the `Enqueue` stream),
//!   [`standings`] (leaderboards and players), [`challenges`] (challenges and the `Offers`
//!   stream) and [`tournaments`].
//! - [`routes`]: each call to the service its path names, without a general HTTP router.
//! - [`framed`]: `WatchGame` responses sent from updates framed ahead, around the generated
//!   server.

mod accounts;
mod challenges;
mod checks;
mod enqueue;
mod export;
mod forward;
pub mod framed;
pub mod game_service;
pub mod ladder_service;
mod listing;
mod play;
pub mod routes;
mod standings;
mod tables;
mod tournaments;
mod watching;

use std::time::Duration;

use tonic::{Request, Response, Status};

use crate::auth::{Authenticator, Caller};
use crate::domain::PlayerInfo;
use crate::error::ApiError;
use crate::game_error::GameError;

pub use game_service::GameService;
pub use ladder_service::LadderService;

type RpcResult<T> = Result<Response<T>, Status>;

/// How long a refusal for a limit the caller reached waits before it is sent: a client that
/// asks again at once, in a loop, slows itself down instead of the server; one that does not
/// never notices.
const LIMIT_PAUSE: Duration = Duration::from_millis(250);

/// An RPC's answer, or its refusal as a status (logged at debug level).
async fn reply<T>(result: Result<T, ApiError>) -> RpcResult<T> {
    match result {
        Ok(answer) => {
            tracing::debug!("answered");
            Ok(Response::new(answer))
        }
        Err(error) => {
            match &error {
                ApiError::Game(GameError::Limit { kind, subject, .. }) => {
                    crate::logs::client_event(
                        kind.reason(),
                        &format!("a call past a limit was refused ({subject})"),
                    );
                    tokio::time::sleep(LIMIT_PAUSE).await;
                }
                ApiError::Game(GameError::AlreadyQueued { .. } | GameError::Busy { .. }) => {
                    tokio::time::sleep(LIMIT_PAUSE).await;
                }
                _ => {}
            }
            let status = Status::from(error);
            tracing::debug!(code = ?status.code(), why = status.message(), "refused");
            Err(status)
        }
    }
}

/// Who calls, within its quota, also noted on the call's span.
async fn caller<T>(auth: &Authenticator, request: &Request<T>) -> Result<PlayerInfo, ApiError> {
    let player = auth.caller(request).await?;
    tracing::Span::current().record("player", player.id.as_str());
    Ok(player)
}

/// Who calls an RPC that anyone may call (a spectator's reads), also noted on the call's
/// span when it is a player.
async fn viewer<T>(auth: &Authenticator, request: &Request<T>) -> Result<Caller, ApiError> {
    let caller = auth.viewer(request).await?;
    if let Caller::Player(player) = &caller {
        tracing::Span::current().record("player", player.id.as_str());
    }
    Ok(caller)
}
