//! # theboss-server
//!
//! The gRPC server of The Boss. A thin binary (`src/main.rs`) parses [`Config`], opens the
//! [`store`] and calls [`serve`], which calls [`run`] with a listener and a shutdown future,
//! so tests can start a server on `127.0.0.1:0` over any store and stop it at will.
//!
//! Code map (ARCHITECTURE.md has the whole of it): [`rpc`] (the services, thin) →
//! [`games`] (directory of live games) → [`actor`] (one task per game: apply, commit,
//! broadcast) → [`table`] (the table's rules around the engine) and [`store`] (SQL).
//! [`game_stream`] streams a game to one watcher; [`ladder`] matches and rates; [`replicas`]
//! joins replicas; [`net`] guards the transport; [`wire`] and `theboss::convert` turn domain values
//! into protobuf; [`auth`] and [`quota`] admit callers; [`error`] makes every status.

pub mod actor;
pub mod allocator;
pub mod auth;
pub mod config;
pub mod domain;
pub mod error;
pub mod finishing;
pub mod game_error;
pub mod game_stream;
pub mod games;
pub mod house;
pub mod ladder;
pub mod limits;
pub mod logs;
pub mod metrics;
pub mod net;
pub mod options;
pub mod quota;
pub mod replicas;
pub mod rpc;
pub mod runtime;
pub mod server;
pub mod shutdown;
pub mod store;
pub mod table;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
pub mod text;
pub mod web;
pub mod wire;

pub use actor::ActorOptions;
pub use config::Config;
pub use ladder::LadderOptions;
pub use limits::Limits;
pub use limits::fixed::MAX_REQUEST_BYTES;
pub use options::Options;
pub use replicas::ClusterOptions;
pub use server::{ServerError, Storage, run, serve};
