//! Browser front ends: gRPC-Web (tonic-web translates it on the same port as gRPC) and the
//! CORS policy that lets pages of other origins call every RPC, `WatchGame` included.

use std::time::Duration;

use http::{HeaderName, HeaderValue, Method};
use tower_http::cors::{AllowOrigin, CorsLayer};

use crate::ServerError;

/// Request headers a gRPC-Web client sends.
const ALLOWED: [&str; 5] = [
    "authorization",
    "content-type",
    "grpc-timeout",
    "x-grpc-web",
    "x-user-agent",
];

/// Response headers a gRPC-Web client must read: a trailers-only answer carries the status
/// in them; every answer its caller's rate-limit budget (`net::budget`).
const EXPOSED: [&str; 7] = [
    "grpc-status",
    "grpc-message",
    "grpc-status-details-bin",
    crate::net::budget::LIMIT,
    crate::net::budget::REMAINING,
    crate::net::budget::RESET,
    crate::net::budget::POLICY,
];

/// The CORS policy for `origins` (empty: any origin).
pub fn cors(origins: &[String]) -> Result<CorsLayer, ServerError> {
    let allow_origin = if origins.is_empty() {
        AllowOrigin::any()
    } else {
        let list = origins
            .iter()
            .map(|o| HeaderValue::from_str(o.trim()).map_err(|_| ServerError::Origin(o.clone())))
            .collect::<Result<Vec<_>, _>>()?;
        AllowOrigin::list(list)
    };
    Ok(CorsLayer::new()
        .allow_origin(allow_origin)
        .allow_methods([Method::POST, Method::OPTIONS])
        .allow_headers(ALLOWED.map(HeaderName::from_static))
        .expose_headers(EXPOSED.map(HeaderName::from_static))
        .max_age(Duration::from_secs(24 * 60 * 60)))
}
