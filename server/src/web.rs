//! Browser front ends: gRPC-Web (tonic-web translates it on the same port as gRPC) and the
//! CORS policy that lets pages of other origins call every RPC, `WatchGame` included.

use std::path::Path;
use std::time::Duration;

use http::{HeaderName, HeaderValue, Method};
use tower_http::cors::{AllowOrigin, CorsLayer};

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
/// An origin `--cors-origins` gave that is not one.
#[derive(Debug, thiserror::Error)]
#[error("--cors-origins: {0:?} is not an origin")]
pub struct BadOrigin(pub String);

pub fn cors(origins: &[String]) -> Result<CorsLayer, BadOrigin> {
    // An answer varies with the request only where it names the caller's origin: with any
    // origin allowed it says `*`, and the methods and headers allowed are fixed lists. So
    // `Vary` is sent only with a list of origins, and is not built for every response (it
    // was close to 1% of the server's CPU per action in a profile).
    let (allow_origin, vary) = if origins.is_empty() {
        (AllowOrigin::any(), Vec::new())
    } else {
        let list = origins
            .iter()
            .map(|o| HeaderValue::from_str(o.trim()).map_err(|_| BadOrigin(o.clone())))
            .collect::<Result<Vec<_>, _>>()?;
        (AllowOrigin::list(list), vec![http::header::ORIGIN])
    };
    Ok(CorsLayer::new()
        .allow_origin(allow_origin)
        .allow_methods([Method::POST, Method::OPTIONS])
        .allow_headers(ALLOWED.map(HeaderName::from_static))
        .expose_headers(EXPOSED.map(HeaderName::from_static))
        .max_age(Duration::from_secs(24 * 60 * 60))
        .vary(vary))
}

/// Where the built front end's hashed scripts and styles are served.
pub const ASSETS: &str = "/assets";

/// The HTTP surfaces this module serves beside the RPCs, as SECURITY.md names their rows
/// (`tests/security_rows.rs` checks each has one).
pub const HTTP_SURFACES: [&str; 4] = [
    "HTTP POST",
    "HTTP OPTIONS",
    "HTTP GET /assets/",
    "HTTP GET /",
];

/// The front end's pages and scripts (`web/`, built into a directory), served on the
/// service's own port beside gRPC and gRPC-Web: a request that is not gRPC is a page's.
///
/// Scripts and styles under `/assets/` are named by their content's hash, so a browser keeps
/// them for a year; everything else (the page itself) is checked on every load. Every answer
/// carries a Content-Security-Policy that allows no inline script and no other origin, so a
/// player's name that slipped past the page's escaping still could not run.
pub fn site(dir: Option<&Path>) -> axum::Router {
    use axum::routing::get_service;
    use tower_http::services::{ServeDir, ServeFile};
    use tower_http::set_header::SetResponseHeaderLayer;

    let headers = |router: axum::Router| {
        router
            .layer(SetResponseHeaderLayer::overriding(
                http::header::CONTENT_SECURITY_POLICY,
                HeaderValue::from_static(CSP),
            ))
            .layer(SetResponseHeaderLayer::overriding(
                http::header::X_CONTENT_TYPE_OPTIONS,
                HeaderValue::from_static("nosniff"),
            ))
            .layer(SetResponseHeaderLayer::overriding(
                http::header::REFERRER_POLICY,
                HeaderValue::from_static("no-referrer"),
            ))
    };
    let Some(dir) = dir.filter(|d| d.join("index.html").is_file()) else {
        return headers(axum::Router::new().fallback(|| async {
            (
                http::StatusCode::NOT_FOUND,
                "The web front end is not built here: run `npm ci && npm run build` in web/, \
                 then start the server from the repository's root (or give --web-dir).\n",
            )
        }));
    };
    let index = ServeFile::new(dir.join("index.html"));
    // Only an asset that exists is kept for a year: a name the build has not made yet (a
    // page of the next version asking an old server, a mistyped link) must be asked again,
    // not remembered as missing for a year.
    let assets = axum::Router::new()
        .fallback_service(get_service(ServeDir::new(dir.join("assets"))))
        .layer(SetResponseHeaderLayer::overriding(
            http::header::CACHE_CONTROL,
            |response: &http::Response<axum::body::Body>| {
                let status = response.status();
                Some(HeaderValue::from_static(
                    if status.is_success() || status == http::StatusCode::NOT_MODIFIED {
                        "public, max-age=31536000, immutable"
                    } else {
                        "no-store"
                    },
                ))
            },
        ));
    let pages = axum::Router::new()
        .nest(ASSETS, assets)
        .fallback_service(get_service(
            // Any other path is a page of the app (it routes by the URL's fragment, so this
            // is `/` and what a mistyped link asks for): the app, which says what it knows.
            ServeDir::new(dir).not_found_service(index),
        ))
        .layer(SetResponseHeaderLayer::if_not_present(
            http::header::CACHE_CONTROL,
            HeaderValue::from_static("no-cache"),
        ));
    headers(pages)
}

/// Scripts, styles, images and calls from this origin only; nothing inline, no frames.
const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
                   connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'; \
                   object-src 'none'";

/// Sends every request that is not an RPC (gRPC or gRPC-Web, or a CORS preflight for one) to
/// the front end's pages (`site`), and the RPCs on to the services.
#[derive(Clone)]
pub struct PagesLayer {
    site: axum::Router,
}

impl PagesLayer {
    pub fn new(site: axum::Router) -> PagesLayer {
        PagesLayer { site }
    }
}

impl<S> tower::Layer<S> for PagesLayer {
    type Service = PagesService<S>;

    fn layer(&self, inner: S) -> PagesService<S> {
        PagesService {
            inner,
            site: self.site.clone(),
        }
    }
}

#[derive(Clone)]
pub struct PagesService<S> {
    inner: S,
    site: axum::Router,
}

type BoxError = Box<dyn std::error::Error + Send + Sync>;

impl<S, B, R> tower::Service<http::Request<B>> for PagesService<S>
where
    S: tower::Service<http::Request<B>, Response = http::Response<R>>,
    S::Future: Send + 'static,
    B: http_body::Body<Data = bytes::Bytes> + Send + 'static,
    B::Error: Into<BoxError>,
    R: http_body::Body<Data = bytes::Bytes> + Send + 'static,
    R::Error: Into<BoxError>,
{
    type Response = http::Response<tonic::body::Body>;
    type Error = S::Error;
    type Future =
        std::pin::Pin<Box<dyn Future<Output = Result<Self::Response, S::Error>> + Send + 'static>>;

    fn poll_ready(
        &mut self,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: http::Request<B>) -> Self::Future {
        use tower::ServiceExt;
        if crate::metrics::is_rpc(&request) || request.method() == Method::OPTIONS {
            let response = self.inner.call(request);
            return Box::pin(async move { Ok(response.await?.map(tonic::body::Body::new)) });
        }
        let site = self.site.clone();
        Box::pin(async move {
            let response = match site.oneshot(request.map(axum::body::Body::new)).await {
                Ok(response) => response,
                Err(never) => match never {},
            };
            Ok(response.map(tonic::body::Body::new))
        })
    }
}

#[cfg(test)]
mod tests {
    use tower::ServiceExt;

    /// `Cache-Control` of `GET path` from the site of `dir`.
    async fn cache_control(dir: &std::path::Path, path: &str) -> (http::StatusCode, String) {
        let response = super::site(Some(dir))
            .oneshot(
                http::Request::get(path)
                    .body(axum::body::Body::empty())
                    .unwrap(),
            )
            .await
            .unwrap();
        let header = response
            .headers()
            .get(http::header::CACHE_CONTROL)
            .map(|v| v.to_str().unwrap().to_string())
            .unwrap_or_default();
        (response.status(), header)
    }

    #[tokio::test]
    async fn only_assets_that_exist_are_kept_a_year() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("assets")).unwrap();
        std::fs::write(dir.path().join("index.html"), "<!doctype html>").unwrap();
        std::fs::write(dir.path().join("assets/app-0123.js"), "1").unwrap();

        let (status, cache) = cache_control(dir.path(), "/assets/app-0123.js").await;
        assert_eq!(status, http::StatusCode::OK);
        assert_eq!(cache, "public, max-age=31536000, immutable");
        // A missing asset was once cached for a year as immutable too.
        let (status, cache) = cache_control(dir.path(), "/assets/app-missing.js").await;
        assert_eq!(status, http::StatusCode::NOT_FOUND);
        assert_eq!(cache, "no-store");
        let (_, cache) = cache_control(dir.path(), "/").await;
        assert_eq!(cache, "no-cache");
    }
}
