//! Several replicas of the server on one PostgreSQL database form one service.
//!
//! - **Membership**: each replica has a lease in the database (`replicas`), renewed every
//!   third of its length; a replica whose lease ran out is dead.
//! - **Ownership**: each unfinished game is run by exactly one replica, its owner, whose actor
//!   is the game's one writer; the store refuses the writes of a replica that does not own
//!   the game or whose lease ran out (and the `(game, seq)` key refuses two writes of one
//!   action in any case). Games nobody runs (their owner died, or stopped) are claimed by the
//!   live replicas, a share each, every third of a lease, and at once when one hands over.
//! - **Any replica answers any call**: writes (and reads that must see them) are forwarded to
//!   the owner ([`Cluster::peer`]); a `WatchGame` stream is served by a local follower of the
//!   game, which reads each action the owner commits when told of it (`NOTIFY` at commit),
//!   and redacts it per viewer like the owner does.
//! - **Rolling restart**: a replica asked to stop demotes its actors, gives its games up and
//!   tells the others, which take them over before it is gone.
//!
//! The single-process mode (SQLite, or a test server) has no cluster: every game is local.
//!
//! The cluster reaches the games it takes over or follows through the [`Directory`] of
//! this replica's games (the registry, `games`, implements it).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use tokio::sync::{broadcast, watch};
use tonic::transport::{Channel, Endpoint};
use tracing::Instrument;

use crate::store::coordination::{ClusterStore, LadderSignal, Notification, Renewal, Replica};
use crate::store::{StoreError, StoredAction};

/// This replica's games, as the cluster needs them.
#[async_trait]
pub trait Directory: Send + Sync + 'static {
    /// Runs games this replica just claimed.
    async fn adopt(&self, ids: &[String]);
    /// Tells a game's follower here that the store has its actions up to number `seq`, the
    /// last of them being `last` when the notification brought it.
    fn poke(&self, id: &str, seq: u64, last: Option<StoredAction>);
    /// Tells every follower here to read the store (notifications may have been lost).
    fn poke_all(&self);
    /// Stops every actor here from writing (this replica gives its games up).
    async fn demote_all(&self);
}

/// Games a replica claims at once when it takes games over.
const CLAIM_BATCH: u32 = 200;

/// How a replica joins its service.
#[derive(Debug, Clone)]
pub struct ClusterOptions {
    /// This replica's id (a fresh one per start, unless the operator pins it).
    pub replica_id: String,
    /// Where the other replicas reach this one (its gRPC URL).
    pub url: String,
    /// How long a replica that stops renewing its lease keeps its games.
    pub lease: Duration,
}

/// This replica's membership of the service.
pub struct Cluster {
    pub store: Arc<dyn ClusterStore>,
    pub me: Replica,
    lease: Duration,
    peers: Mutex<HashMap<String, Channel>>,
    /// Ladder changes (the queue, answers, games ending), from any replica.
    ladder: broadcast::Sender<LadderSignal>,
}

impl Cluster {
    /// Joins the service: records this replica and its lease.
    pub async fn join(
        store: Arc<dyn ClusterStore>,
        options: ClusterOptions,
    ) -> Result<Arc<Cluster>, StoreError> {
        let me = Replica {
            id: options.replica_id,
            url: options.url,
        };
        store.join_cluster(&me, options.lease).await?;
        crate::metrics::lease_held(true);
        tracing::info!(replica = %me.id, url = %me.url, lease = ?options.lease, "joined the service");
        Ok(Arc::new(Cluster {
            store,
            me,
            lease: options.lease,
            peers: Mutex::default(),
            ladder: broadcast::channel(256).0,
        }))
    }

    pub fn lease(&self) -> Duration {
        self.lease
    }

    /// A channel to another replica (connected on first use, kept).
    pub fn peer(&self, url: &str) -> Result<Channel, tonic::transport::Error> {
        let mut peers = self.peers.lock().expect("not poisoned");
        if let Some(channel) = peers.get(url) {
            return Ok(channel.clone());
        }
        let channel = Endpoint::from_shared(url.to_string())?
            .tcp_nodelay(true)
            .connect_timeout(Duration::from_secs(2))
            .connect_lazy();
        peers.insert(url.to_string(), channel.clone());
        Ok(channel)
    }

    /// Ladder changes, from every replica.
    pub fn ladder_changes(&self) -> broadcast::Receiver<LadderSignal> {
        self.ladder.subscribe()
    }

    /// Tells every replica (this one included, through the database) of a ladder change.
    pub async fn ladder_changed(&self, signal: LadderSignal) {
        if let Err(error) = self.store.notify(&Notification::Ladder(signal)).await {
            tracing::warn!(%error, "cannot tell the other replicas of a ladder change");
        }
    }

    /// The replica's background work until `stopping`: renewing its lease, taking over the
    /// games nobody runs, and following the games others run from their notifications.
    pub async fn start(
        self: &Arc<Self>,
        games: Arc<dyn Directory>,
        stopping: watch::Receiver<bool>,
    ) -> Result<(), StoreError> {
        let notifications = self.store.listen().await?;
        // The games this replica owned before (a restart with the same id) come back first.
        games.adopt(&self.store.owned_games().await?).await;
        let cluster = self.clone();
        tokio::spawn(
            async move { cluster.run(games, notifications, stopping).await }
                .instrument(tracing::info_span!("replica")),
        );
        Ok(())
    }

    async fn run(
        self: Arc<Self>,
        games: Arc<dyn Directory>,
        mut notifications: tokio::sync::mpsc::UnboundedReceiver<Notification>,
        mut stopping: watch::Receiver<bool>,
    ) {
        let mut tick = tokio::time::interval(self.lease / 3);
        let mut renewed = Instant::now();
        loop {
            tokio::select! {
                () = async {
                    // An error means the server is gone, which is also a stop.
                    let _ = stopping.wait_for(|s| *s).await;
                } => return,
                _ = tick.tick() => {
                    match self.store.renew_lease(self.lease).await {
                        Ok(renewal @ (Renewal::Held | Renewal::Lapsed)) => {
                            renewed = Instant::now();
                            crate::metrics::lease_held(true);
                            if renewal == Renewal::Lapsed {
                                tracing::warn!("this replica's lease had run out; catching up");
                                self.catch_up(&*games).await;
                            }
                        }
                        Ok(Renewal::Gone) => {
                            tracing::error!("this replica's membership is gone; joining again");
                            match self.store.join_cluster(&self.me, self.lease).await {
                                Ok(()) => self.catch_up(&*games).await,
                                Err(error) => tracing::error!(%error, "cannot join again"),
                            }
                        }
                        Err(error) => tracing::warn!(%error, "cannot renew the lease"),
                    }
                    if renewed.elapsed() > self.lease {
                        crate::metrics::lease_held(false);
                        // Others may have taken our games: writing them would be refused.
                        games.demote_all().await;
                        continue;
                    }
                    self.take_over(&*games).await;
                }
                notification = notifications.recv() => match notification {
                    Some(Notification::Action { game_id, seq, action }) => {
                        games.poke(&game_id, seq, action.map(|a| *a));
                    }
                    Some(Notification::Handover) => self.take_over(&*games).await,
                    Some(Notification::Ladder(signal)) => {
                        let _ = self.ladder.send(signal);
                    }
                    Some(Notification::Resync) => {
                        games.poke_all();
                        // The matchmaker looks again; waiters poll their answers anyway; the
                        // Offers streams read the store again.
                        let _ = self.ladder.send(LadderSignal::Changed);
                        let _ = self.ladder.send(LadderSignal::Missed);
                    }
                    None => {
                        tracing::error!("the notification listener stopped");
                        return;
                    }
                },
            }
        }
    }

    /// After a time counted dead (a lapsed lease, a lost membership), when the others did not
    /// notify this replica of their commits: waits for the writes begun meanwhile to end,
    /// then has every follower read the store.
    async fn catch_up(&self, games: &dyn Directory) {
        if let Err(error) = self.store.fence_writes().await {
            // Followers read the store anyway: what a write still running commits reaches
            // them with the game's next notified action.
            tracing::warn!(%error, "cannot wait for the writes begun while this replica was away");
        }
        games.poke_all();
    }

    /// Claims the games nobody runs, a batch at a time, and starts running them.
    async fn take_over(&self, games: &dyn Directory) {
        loop {
            match self.store.claim_orphans(CLAIM_BATCH).await {
                Ok(ids) if ids.is_empty() => return,
                Ok(ids) => {
                    tracing::info!(games = ids.len(), "taking games over");
                    crate::metrics::games_taken_over(ids.len());
                    games.adopt(&ids).await;
                    if ids.len() < CLAIM_BATCH as usize {
                        return;
                    }
                }
                Err(error) => {
                    tracing::warn!(%error, "cannot take games over");
                    return;
                }
            }
        }
    }

    /// Before this replica stops: stops writing its games, gives them up and tells the
    /// others, which take them over.
    pub async fn hand_over(&self, games: &dyn Directory) {
        games.demote_all().await;
        crate::metrics::lease_held(false);
        match self.store.leave_cluster().await {
            Ok(()) => tracing::info!("handed every game over"),
            Err(error) => {
                tracing::error!(%error, "cannot hand the games over; they move when the lease ends")
            }
        }
    }
}
