//! # theboss-server
//!
//! The gRPC server of The Boss. A thin binary (`src/main.rs`) parses [`Config`], sets up
//! logging and calls [`run`] with a listener and a shutdown future, so tests can start a
//! server on `127.0.0.1:0` and stop it at will.
//!
//! Serving today: the standard gRPC health service and server reflection (for `grpcurl`).
//! `GameService` (proto/theboss/v1/game_service.proto) is mounted here by issue #3.

pub mod config;
pub mod shutdown;

use std::future::Future;

use tokio::net::TcpListener;
use tokio_stream::wrappers::TcpListenerStream;
use tonic::transport::Server;

pub use config::Config;

/// Why the server stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    #[error("gRPC transport: {0}")]
    Transport(#[from] tonic::transport::Error),
    #[error("reflection service: {0}")]
    Reflection(#[from] tonic_reflection::server::Error),
}

/// Serves on `listener` until `shutdown` completes, then drains in-flight calls.
pub async fn run(
    listener: TcpListener,
    shutdown: impl Future<Output = ()>,
) -> Result<(), ServerError> {
    let (health_reporter, health) = tonic_health::server::health_reporter();
    // The empty service name reports the server as a whole.
    health_reporter
        .set_service_status("", tonic_health::ServingStatus::Serving)
        .await;
    let reflection = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(theboss::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
        .build_v1()?;
    tracing::info!(addr = ?listener.local_addr().ok(), "serving");
    Server::builder()
        .add_service(health)
        .add_service(reflection)
        .serve_with_incoming_shutdown(TcpListenerStream::new(listener), shutdown)
        .await?;
    tracing::info!("stopped");
    Ok(())
}
