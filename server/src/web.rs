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

/// Whether a request is plain gRPC from a program, which none of the browsers' layers
/// concern: gRPC over HTTP/2, not gRPC-Web, and no `Origin` (which every browser sends with
/// a `POST`, so a page's call always takes the browsers' way, CORS included).
fn plain_grpc<B>(request: &http::Request<B>) -> bool {
    request.version() == http::Version::HTTP_2
        && !request.headers().contains_key(http::header::ORIGIN)
        && request
            .headers()
            .get(http::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| {
                v.starts_with("application/grpc") && !v.starts_with("application/grpc-web")
            })
}

/// Sends plain gRPC ([`plain_grpc`]) straight to the services, and every other request (a
/// page, gRPC-Web, a CORS preflight, anything from a browser) through `browsers`: the CORS
/// policy, the pages and tonic-web, in front of the same services. A program's call skips
/// three layers that would only look at it and let it through (they were 7% of a
/// health check's instructions through the server's layers, under callgrind: 65,500 of them
/// with the three, 61,100 without).
#[derive(Clone)]
pub struct Front<R, W> {
    rpcs: R,
    browsers: W,
}

impl<R, W> Front<R, W> {
    pub fn new(rpcs: R, browsers: W) -> Front<R, W> {
        Front { rpcs, browsers }
    }
}

type ToBody<R> = fn(http::Response<R>) -> http::Response<tonic::body::Body>;

impl<R, W, B, RB> tower::Service<http::Request<B>> for Front<R, W>
where
    R: tower::Service<http::Request<B>, Response = http::Response<RB>>,
    W: tower::Service<
            http::Request<B>,
            Response = http::Response<tonic::body::Body>,
            Error = R::Error,
        >,
    RB: http_body::Body<Data = bytes::Bytes> + Send + 'static,
    RB::Error: Into<BoxError>,
{
    type Response = http::Response<tonic::body::Body>;
    type Error = R::Error;
    type Future = futures::future::Either<futures::future::MapOk<R::Future, ToBody<RB>>, W::Future>;

    fn poll_ready(
        &mut self,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), R::Error>> {
        // Both are ready at once: each is a stack of layers over the same services.
        std::task::ready!(self.rpcs.poll_ready(cx))?;
        self.browsers.poll_ready(cx)
    }

    fn call(&mut self, request: http::Request<B>) -> Self::Future {
        use futures::TryFutureExt;
        if plain_grpc(&request) {
            let to_body: ToBody<RB> = |response| response.map(tonic::body::Body::new);
            futures::future::Either::Left(self.rpcs.call(request).map_ok(to_body))
        } else {
            futures::future::Either::Right(self.browsers.call(request))
        }
    }
}

#[cfg(test)]
mod tests {
    use tower::ServiceExt;

    /// Which way `Front` sends a request: "rpcs" or "browsers".
    async fn way(request: http::Request<()>) -> &'static str {
        let answer = |way: &'static str| {
            tower::service_fn(move |_: http::Request<()>| async move {
                let mut response = http::Response::new(tonic::body::Body::empty());
                response
                    .headers_mut()
                    .insert("x-way", http::HeaderValue::from_static(way));
                Ok::<_, std::convert::Infallible>(response)
            })
        };
        let front = super::Front::new(answer("rpcs"), answer("browsers"));
        let response = front.oneshot(request).await.unwrap();
        match response.headers()["x-way"].to_str().unwrap() {
            "rpcs" => "rpcs",
            _ => "browsers",
        }
    }

    fn post(version: http::Version, content_type: &str, origin: Option<&str>) -> http::Request<()> {
        let mut request = http::Request::post("/theboss.v1.GameService/GetView")
            .version(version)
            .header(http::header::CONTENT_TYPE, content_type);
        if let Some(origin) = origin {
            request = request.header(http::header::ORIGIN, origin);
        }
        request.body(()).unwrap()
    }

    #[tokio::test]
    async fn only_plain_grpc_without_an_origin_skips_the_browsers_layers() {
        use http::Version;
        assert_eq!(
            way(post(Version::HTTP_2, "application/grpc", None)).await,
            "rpcs"
        );
        assert_eq!(
            way(post(Version::HTTP_2, "application/grpc+proto", None)).await,
            "rpcs"
        );
        // Anything a page sends: its origin, gRPC-Web, a preflight, a page.
        let page = Some("https://play.example.com");
        assert_eq!(
            way(post(Version::HTTP_2, "application/grpc", page)).await,
            "browsers"
        );
        assert_eq!(
            way(post(Version::HTTP_2, "application/grpc-web+proto", None)).await,
            "browsers"
        );
        assert_eq!(
            way(post(Version::HTTP_11, "application/grpc-web-text", page)).await,
            "browsers"
        );
        let preflight = http::Request::options("/theboss.v1.GameService/GetView")
            .version(Version::HTTP_2)
            .header(http::header::ORIGIN, "https://play.example.com")
            .body(())
            .unwrap();
        assert_eq!(way(preflight).await, "browsers");
        let get = http::Request::get("/")
            .version(Version::HTTP_2)
            .body(())
            .unwrap();
        assert_eq!(way(get).await, "browsers");
        // gRPC over HTTP/1.1 is not gRPC: tonic-web refuses it, as before.
        assert_eq!(
            way(post(Version::HTTP_11, "application/grpc", None)).await,
            "browsers"
        );
    }

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
