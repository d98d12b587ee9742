//! The server as a whole: [`run`] serves on a listener until a shutdown future completes
//! (the transport's guards, gRPC-Web and the pages, health and reflection, both services);
//! [`serve`] is what the binary does with its configuration (the store opened, the
//! listener bound, the metrics endpoint started). [`Storage`] says what a server runs on.

use std::future::Future;
use std::sync::Arc;

use theboss::v1::game_service_server::GameServiceServer;
use theboss::v1::ladder_service_server::LadderServiceServer;
use tokio::net::TcpListener;
use tower::util::BoxCloneSyncService;
use tower::{ServiceBuilder, ServiceExt};

use crate::config::Config;
use crate::options::Options;
use crate::replicas::{self, ClusterOptions};
use crate::store::coordination::ClusterStore;
use crate::store::{self, Store, StoreError};
use crate::{auth, games, ladder, limits, logs, metrics, net, quota, rpc, web};

/// Why the server stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    #[error("gRPC transport: {0}")]
    Transport(#[from] tonic::transport::Error),
    #[error("reflection service: {0}")]
    Reflection(#[from] tonic_reflection::server::Error),
    #[error("listener: {0}")]
    Listener(#[from] std::io::Error),
    #[error("restoring games: {0}")]
    Restore(#[from] StoreError),
    #[error("cannot open the store: {0}")]
    Store(StoreError),
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        addr: std::net::SocketAddr,
        source: std::io::Error,
    },
    #[error(transparent)]
    Metrics(#[from] metrics::MetricsError),
    #[error(transparent)]
    Origin(#[from] web::BadOrigin),
    #[error("cannot join the service: {0}")]
    Cluster(StoreError),
    #[error(
        "listening on {0}, other replicas cannot know where to reach this one: give --advertise-url"
    )]
    NoAdvertisedUrl(std::net::SocketAddr),
}

/// What a server runs on: its store and, for one of several replicas of a service, what the
/// replicas share and how this one joins them.
#[derive(Clone)]
pub struct Storage {
    pub store: Arc<dyn Store>,
    pub cluster: Option<(Arc<dyn ClusterStore>, ClusterOptions)>,
}

impl From<Arc<dyn Store>> for Storage {
    /// A store of its own: one process runs every game.
    fn from(store: Arc<dyn Store>) -> Storage {
        Storage {
            store,
            cluster: None,
        }
    }
}

impl<S: Store> From<Arc<S>> for Storage {
    /// A store of its own: one process runs every game.
    fn from(store: Arc<S>) -> Storage {
        Storage {
            store,
            cluster: None,
        }
    }
}

/// What `theboss-server` does once its configuration is parsed and logging set up: opens the
/// store, binds, and serves until `shutdown` completes.
pub async fn serve(config: &Config, shutdown: impl Future<Output = ()>) -> Result<(), ServerError> {
    // Metrics first, so that what the store finds as it opens is recorded. The endpoint
    // outlives the gRPC server's drain by a moment: it ends when `run` returns.
    let (metrics_stop, metrics_stopped) = tokio::sync::oneshot::channel::<()>();
    if let Some(addr) = config.metrics_listen {
        metrics::start(addr, async move {
            let _ = metrics_stopped.await;
        })
        .await?;
    }
    let (store, shared) = store::open_shared(config.database_url.expose())
        .await
        .map_err(ServerError::Store)?;
    let listener = TcpListener::bind(config.listen)
        .await
        .map_err(|source| ServerError::Bind {
            addr: config.listen,
            source,
        })?;
    let storage = Storage {
        store,
        cluster: shared.map(|shared| (shared, config.cluster_options())),
    };
    net::raise_fd_limit();
    crate::allocator::tune();
    let served = run(listener, storage, config.options(), shutdown).await;
    let _ = metrics_stop.send(());
    served
}

/// Serves on `listener` until `shutdown` completes (open streams are then ended and
/// in-flight calls drained), restoring every unfinished game from the store meanwhile. One of
/// several replicas joins its service first, takes its share of the games, and hands them
/// over before it stops.
pub async fn run(
    listener: TcpListener,
    storage: impl Into<Storage>,
    options: Options,
    shutdown: impl Future<Output = ()>,
) -> Result<(), ServerError> {
    let Storage { store, cluster } = storage.into();
    let addr = listener.local_addr()?;
    let cluster = match cluster {
        None => None,
        Some((shared, mut joining)) => {
            if joining.url.is_empty() {
                if addr.ip().is_unspecified() {
                    return Err(ServerError::NoAdvertisedUrl(addr));
                }
                joining.url = format!("http://{addr}");
            }
            Some(
                replicas::Cluster::join(shared, joining)
                    .await
                    .map_err(ServerError::Cluster)?,
            )
        }
    };
    let games = Arc::new(games::Games::new(
        store.clone(),
        options.actor.clone(),
        &options.limits,
        cluster.clone(),
    ));
    let (stop, stopping) = tokio::sync::watch::channel(false);
    let unfinished = match &cluster {
        None => games.restore().await?,
        Some(cluster) => {
            cluster
                .start(games.clone(), stopping.clone())
                .await
                .map_err(ServerError::Cluster)?;
            0
        }
    };
    games.start_expiry(stopping.clone());
    logs::start_summaries(stopping.clone());
    let ladder =
        ladder::Ladder::start(games.clone(), options.ladder.clone(), stopping.clone()).await;
    // One authenticator: the services share its token cache and the quotas.
    let auth =
        auth::Authenticator::new(store.clone(), Arc::new(quota::Quotas::new(options.quotas)));
    let ladder_service = rpc::LadderService::new(
        store.clone(),
        auth.clone(),
        ladder,
        options.keep_alive,
        stopping.clone(),
    );
    let game_service = rpc::GameService::new(
        store,
        auth.clone(),
        games.clone(),
        limits::StreamCounts::new(&options.limits),
        options.keep_alive,
        stopping.clone(),
    );

    let (health_reporter, health) = tonic_health::server::health_reporter();
    // The empty service name reports the server as a whole.
    health_reporter
        .set_service_status("", tonic_health::ServingStatus::Serving)
        .await;
    health_reporter
        .set_serving::<GameServiceServer<rpc::GameService>>()
        .await;
    health_reporter
        .set_serving::<LadderServiceServer<rpc::LadderService>>()
        .await;
    // Both versions of reflection: grpcurl and newer tools speak v1; Python's grpcio
    // reflection client, several GUI clients and older grpcurl speak only v1alpha.
    let reflection = || {
        tonic_reflection::server::Builder::configure()
            .register_encoded_file_descriptor_set(theboss::FILE_DESCRIPTOR_SET)
            .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
    };
    let reflection_v1 = reflection().build_v1()?;
    let reflection_v1alpha = reflection().build_v1alpha()?;
    tracing::info!(%addr, unfinished, "serving");
    let shutdown = async move {
        shutdown.await;
        health_reporter
            .set_service_status("", tonic_health::ServingStatus::NotServing)
            .await;
        if let Some(cluster) = &cluster {
            cluster.hand_over(&*games).await;
        }
        // Streams never end by themselves, so tell them to, or draining would wait forever.
        let _ = stop.send(true);
    };
    let limits = &options.limits;
    let routes = rpc::routes::Routes::default()
        .add_service(health)
        .add_service(reflection_v1)
        .add_service(reflection_v1alpha)
        .add_service(rpc::framed::FramedWatch::new(
            GameServiceServer::new(game_service)
                .max_decoding_message_size(crate::limits::fixed::MAX_REQUEST_BYTES),
        ))
        .add_service(
            LadderServiceServer::new(ladder_service)
                .max_decoding_message_size(crate::limits::fixed::MAX_REQUEST_BYTES),
        );
    let rpcs = ServiceBuilder::new()
        .layer(net::layer::RequestBodyLayer::new(limits))
        .layer(net::budget::BudgetLayer)
        .layer(metrics::RpcMetricsLayer)
        .service(routes);
    let browsers = ServiceBuilder::new()
        // Browsers speak gRPC-Web over HTTP/1.1 (or 2), from pages of other origins.
        .layer(web::cors(&options.cors_origins)?)
        // A request that is not an RPC is a page of the front end, answered before tonic-web
        // (which refuses HTTP/1.1 that is not gRPC-Web).
        .layer(web::PagesLayer::new(web::site(options.web_dir.as_deref())))
        .layer(tonic_web::GrpcWebLayer::new())
        .service(rpcs.clone());
    let layered = ServiceBuilder::new()
        .layer(net::layer::ConnectionLayer::new(
            limits,
            options.addresses.clone(),
            Arc::new(auth),
            stopping,
        ))
        .service(web::Front::new(rpcs, browsers));
    // The layers answer every refusal as a response (their error is `Infallible`).
    let layered =
        ServiceExt::<http::Request<tonic::body::Body>>::map_response(layered, |response| {
            response.map(tonic::body::Body::new)
        });
    let settings = net::serve::Settings {
        max_concurrent_streams: (limits.streams_per_connection > 0)
            .then_some(limits.streams_per_connection),
        keep_alive_interval: limits.keep_alive,
        keep_alive_timeout: limits.keep_alive / 3,
    };
    net::serve::serve(
        net::accept(listener, limits, &options.addresses, Arc::default()),
        BoxCloneSyncService::new(layered),
        settings,
        shutdown,
    )
    .await;
    tracing::info!("stopped");
    Ok(())
}
