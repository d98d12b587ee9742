//! [`Traced`]: a store that gives every call of the one it wraps a `store` span (debug level,
//! `op` and the ids involved) and its timing and failure metrics
//! (`theboss_store_duration_seconds`, `theboss_store_errors_total`, by `op`). Every store
//! the server opens is wrapped, so no backend method has to remember to do it.

use std::time::Duration;

use async_trait::async_trait;
use tokio::sync::mpsc;
use tracing::Instrument;

use super::coordination::{ClusterStore, Leadership, Notification, Ownership, Renewal, Replica};
use super::{
    ArrangedGameStore, ArrangedTable, AtCap, ChallengeRefused, ChallengeStore, Effects, Enqueued,
    GamePage, GameQuery, GameStore, LadderSeat, LadderStore, LeaderboardRow, NewPlayer, PlayerCaps,
    PlayerRatings, PlayerStore, RatingStore, SeriesRecord, StoreError, StoredAction, StoredGame,
    TournamentStore,
};
use crate::domain::{GameInfo, LadderMatch, PlayerInfo, QueueEntry};
use crate::metrics::store_call;
use theboss_ladder::challenge::{AnswerRefused, ChallengeRecord, Policy};
use theboss_ladder::rating::Rating;
use theboss_ladder::tournament::{TournamentRecord, TournamentRefused, TournamentStatus};

/// A store whose every call is traced and timed.
pub struct Traced<S>(S);

impl<S> Traced<S> {
    pub fn new(store: S) -> Traced<S> {
        Traced(store)
    }

    /// The store within.
    pub fn inner(&self) -> &S {
        &self.0
    }
}

/// Runs a store call in its span, timed.
macro_rules! traced {
    ($op:literal, $call:expr) => {
        store_call($op, $call).instrument(tracing::debug_span!("store", op = $op))
    };
    ($op:literal, $call:expr, $($field:tt)+) => {
        store_call($op, $call).instrument(tracing::debug_span!("store", op = $op, $($field)+))
    };
}

#[async_trait]
impl<S: PlayerStore> PlayerStore for Traced<S> {
    async fn create_player(&self, new: &NewPlayer) -> Result<(), StoreError> {
        traced!("create_player", self.0.create_player(new), player = %new.player.id).await
    }

    async fn player_by_token_hash(&self, hash: &str) -> Result<Option<PlayerInfo>, StoreError> {
        traced!("player_by_token_hash", self.0.player_by_token_hash(hash)).await
    }

    async fn set_description(
        &self,
        player_id: &str,
        description: &str,
    ) -> Result<bool, StoreError> {
        traced!(
            "set_description",
            self.0.set_description(player_id, description),
            player = %player_id
        )
        .await
    }
}

#[async_trait]
impl<S: GameStore> GameStore for Traced<S> {
    async fn create_game(
        &self,
        game: &GameInfo,
        seated: &[StoredAction],
        caps: Option<&PlayerCaps>,
    ) -> Result<Result<(), AtCap>, StoreError> {
        traced!("create_game", self.0.create_game(game, seated, caps), game = %game.id).await
    }

    async fn append_action(
        &self,
        game_id: &str,
        action: &StoredAction,
        effects: &Effects,
    ) -> Result<(), StoreError> {
        traced!(
            "append_action",
            self.0.append_action(game_id, action, effects),
            game = %game_id,
            seq = action.seq
        )
        .await
    }

    async fn load_game(&self, game_id: &str) -> Result<Option<StoredGame>, StoreError> {
        traced!("load_game", self.0.load_game(game_id), game = %game_id).await
    }

    async fn load_games(
        &self,
        game_ids: &[String],
    ) -> Result<Vec<(String, Result<StoredGame, StoreError>)>, StoreError> {
        traced!(
            "load_games",
            self.0.load_games(game_ids),
            games = game_ids.len()
        )
        .await
    }

    async fn import_games(&self, games: &[(StoredGame, Effects)]) -> Result<(), StoreError> {
        traced!(
            "import_games",
            self.0.import_games(games),
            games = games.len()
        )
        .await
    }

    async fn clocked_games(&self) -> Result<Vec<String>, StoreError> {
        traced!("clocked_games", self.0.clocked_games()).await
    }

    async fn finished_games_of(
        &self,
        player_id: &str,
        window: (i64, i64),
        cursor: Option<(i64, String)>,
        limit: u32,
    ) -> Result<Vec<(String, i64)>, StoreError> {
        traced!(
            "finished_games_of",
            self.0.finished_games_of(player_id, window, cursor, limit),
            player = %player_id
        )
        .await
    }

    async fn expired_open_games(&self, before: i64, limit: u32) -> Result<Vec<String>, StoreError> {
        traced!(
            "expired_open_games",
            self.0.expired_open_games(before, limit)
        )
        .await
    }

    async fn list_games(&self, query: &GameQuery) -> Result<GamePage, StoreError> {
        traced!("list_games", self.0.list_games(query)).await
    }

    async fn set_over(&self, series_id: &str) -> Result<bool, StoreError> {
        traced!("set_over", self.0.set_over(series_id), series = %series_id).await
    }
}

#[async_trait]
impl<S: RatingStore> RatingStore for Traced<S> {
    async fn rating(&self, player_id: &str, players: u8) -> Result<Option<Rating>, StoreError> {
        traced!("rating", self.0.rating(player_id, players), player = %player_id).await
    }

    async fn leaderboard(
        &self,
        players: u8,
        bots: Option<bool>,
        limit: u32,
        offset: u64,
    ) -> Result<Vec<LeaderboardRow>, StoreError> {
        traced!(
            "leaderboard",
            self.0.leaderboard(players, bots, limit, offset),
            ?bots
        )
        .await
    }

    async fn player_ratings(&self, player_id: &str) -> Result<Option<PlayerRatings>, StoreError> {
        traced!("player_ratings", self.0.player_ratings(player_id), player = %player_id).await
    }

    async fn create_series(&self, series: &SeriesRecord) -> Result<(), StoreError> {
        traced!("create_series", self.0.create_series(series), series = %series.id).await
    }
}

#[async_trait]
impl<S: LadderStore> LadderStore for Traced<S> {
    async fn ladder_games_of(&self, player_id: &str) -> Result<Vec<LadderSeat>, StoreError> {
        traced!("ladder_games_of", self.0.ladder_games_of(player_id), player = %player_id).await
    }

    async fn enqueue_ladder(&self, entry: &QueueEntry) -> Result<Enqueued, StoreError> {
        traced!(
            "enqueue_ladder",
            self.0.enqueue_ladder(entry),
            player = %entry.player.id,
            request = %entry.id
        )
        .await
    }

    async fn ladder_queue(&self) -> Result<Vec<QueueEntry>, StoreError> {
        traced!("ladder_queue", self.0.ladder_queue()).await
    }

    async fn answer_ladder(
        &self,
        answers: &[(String, Vec<LadderMatch>)],
    ) -> Result<(), StoreError> {
        traced!(
            "answer_ladder",
            self.0.answer_ladder(answers),
            requests = answers.len()
        )
        .await
    }

    async fn ladder_answers(
        &self,
        entry_ids: &[String],
    ) -> Result<Vec<(String, Option<Vec<LadderMatch>>)>, StoreError> {
        traced!(
            "ladder_answers",
            self.0.ladder_answers(entry_ids),
            requests = entry_ids.len()
        )
        .await
    }

    async fn forget_ladder_entry(&self, entry_id: &str) -> Result<(), StoreError> {
        traced!("forget_ladder_entry", self.0.forget_ladder_entry(entry_id), request = %entry_id)
            .await
    }

    async fn cancel_ladder(&self, player_id: &str) -> Result<Vec<String>, StoreError> {
        traced!("cancel_ladder", self.0.cancel_ladder(player_id), player = %player_id).await
    }

    async fn purge_ladder(&self, alive: &[String]) -> Result<u64, StoreError> {
        traced!(
            "purge_ladder",
            self.0.purge_ladder(alive),
            replicas = alive.len()
        )
        .await
    }
}

#[async_trait]
impl<S: ChallengeStore> ChallengeStore for Traced<S> {
    async fn set_challenge_policy(
        &self,
        player_id: &str,
        policy: Policy,
    ) -> Result<bool, StoreError> {
        traced!("set_challenge_policy", self.0.set_challenge_policy(player_id, policy), player = %player_id).await
    }

    async fn challenge_policy(&self, player_id: &str) -> Result<Option<Policy>, StoreError> {
        traced!("challenge_policy", self.0.challenge_policy(player_id), player = %player_id).await
    }

    async fn create_challenge(
        &self,
        challenge: &ChallengeRecord,
        max_open: u32,
    ) -> Result<Result<ChallengeRecord, ChallengeRefused>, StoreError> {
        traced!(
            "create_challenge",
            self.0.create_challenge(challenge, max_open),
            challenge = %challenge.id
        )
        .await
    }

    async fn challenge(&self, challenge_id: &str) -> Result<Option<ChallengeRecord>, StoreError> {
        traced!("challenge", self.0.challenge(challenge_id), challenge = %challenge_id).await
    }

    async fn answer_challenge(
        &self,
        challenge_id: &str,
        player_id: &str,
        accept: bool,
        now: i64,
    ) -> Result<Option<Result<ChallengeRecord, AnswerRefused>>, StoreError> {
        traced!(
            "answer_challenge",
            self.0.answer_challenge(challenge_id, player_id, accept, now),
            challenge = %challenge_id,
            player = %player_id,
            accept
        )
        .await
    }

    async fn challenges_of(
        &self,
        player_id: &str,
        now: i64,
    ) -> Result<Vec<ChallengeRecord>, StoreError> {
        traced!("challenges_of", self.0.challenges_of(player_id, now), player = %player_id).await
    }

    async fn note_contacts(&self, players: &[String]) -> Result<(), StoreError> {
        traced!("note_contacts", self.0.note_contacts(players)).await
    }

    async fn seating_challenges(&self, now: i64) -> Result<Vec<ChallengeRecord>, StoreError> {
        traced!("seating_challenges", self.0.seating_challenges(now)).await
    }

    async fn start_challenge(
        &self,
        challenge_id: &str,
        game_ids: &[String],
        now: i64,
    ) -> Result<bool, StoreError> {
        traced!(
            "start_challenge",
            self.0.start_challenge(challenge_id, game_ids, now),
            challenge = %challenge_id
        )
        .await
    }

    async fn expire_challenges(&self, now: i64, limit: u32) -> Result<Vec<String>, StoreError> {
        traced!("expire_challenges", self.0.expire_challenges(now, limit)).await
    }
}

#[async_trait]
impl<S: ArrangedGameStore> ArrangedGameStore for Traced<S> {
    async fn arrange_games(
        &self,
        arranged_by: &str,
        game_ids: &[String],
    ) -> Result<(), StoreError> {
        traced!(
            "arrange_games",
            self.0.arrange_games(arranged_by, game_ids),
            arranged_by = %arranged_by,
            games = game_ids.len()
        )
        .await
    }

    async fn arranged_games_of(&self, player_id: &str) -> Result<Vec<LadderSeat>, StoreError> {
        traced!("arranged_games_of", self.0.arranged_games_of(player_id), player = %player_id).await
    }
}

#[async_trait]
impl<S: TournamentStore> TournamentStore for Traced<S> {
    async fn create_tournament(
        &self,
        tournament: &TournamentRecord,
        max_unfinished: u32,
    ) -> Result<bool, StoreError> {
        traced!(
            "create_tournament",
            self.0.create_tournament(tournament, max_unfinished),
            tournament = %tournament.id
        )
        .await
    }

    async fn tournament(
        &self,
        tournament_id: &str,
    ) -> Result<Option<TournamentRecord>, StoreError> {
        traced!("tournament", self.0.tournament(tournament_id), tournament = %tournament_id).await
    }

    async fn enter_tournament(
        &self,
        tournament_id: &str,
        player_id: &str,
        entering: bool,
        now: i64,
    ) -> Result<Option<Result<TournamentRecord, TournamentRefused>>, StoreError> {
        traced!(
            "enter_tournament",
            self.0.enter_tournament(tournament_id, player_id, entering, now),
            tournament = %tournament_id,
            player = %player_id,
            entering
        )
        .await
    }

    async fn start_tournament(
        &self,
        tournament_id: &str,
        player_id: &str,
        now: i64,
    ) -> Result<Option<Result<TournamentRecord, TournamentRefused>>, StoreError> {
        traced!(
            "start_tournament",
            self.0.start_tournament(tournament_id, player_id, now),
            tournament = %tournament_id,
            player = %player_id
        )
        .await
    }

    async fn list_tournaments(
        &self,
        status: Option<TournamentStatus>,
        limit: u32,
    ) -> Result<Vec<TournamentRecord>, StoreError> {
        traced!(
            "list_tournaments",
            self.0.list_tournaments(status, limit),
            limit
        )
        .await
    }

    async fn running_tournaments(&self) -> Result<Vec<String>, StoreError> {
        traced!("running_tournaments", self.0.running_tournaments()).await
    }

    async fn tournament_tables(
        &self,
        tournament_id: &str,
    ) -> Result<Vec<ArrangedTable>, StoreError> {
        traced!("tournament_tables", self.0.tournament_tables(tournament_id), tournament = %tournament_id)
            .await
    }

    async fn finish_tournament(&self, tournament_id: &str, now: i64) -> Result<(), StoreError> {
        traced!("finish_tournament", self.0.finish_tournament(tournament_id, now), tournament = %tournament_id)
            .await
    }
}

#[async_trait]
impl<S: ClusterStore> ClusterStore for Traced<S> {
    async fn join_cluster(&self, me: &Replica, lease: Duration) -> Result<(), StoreError> {
        traced!("join_cluster", self.0.join_cluster(me, lease), replica = %me.id).await
    }

    async fn renew_lease(&self, lease: Duration) -> Result<Renewal, StoreError> {
        traced!("renew_lease", self.0.renew_lease(lease)).await
    }

    async fn leave_cluster(&self) -> Result<(), StoreError> {
        traced!("leave_cluster", self.0.leave_cluster()).await
    }

    async fn replicas(&self) -> Result<Vec<Replica>, StoreError> {
        traced!("replicas", self.0.replicas()).await
    }

    async fn ownership(&self, game_id: &str) -> Result<Option<Ownership>, StoreError> {
        traced!("ownership", self.0.ownership(game_id), game = %game_id).await
    }

    async fn claim_game(&self, game_id: &str) -> Result<bool, StoreError> {
        traced!("claim_game", self.0.claim_game(game_id), game = %game_id).await
    }

    async fn claim_orphans(&self, limit: u32) -> Result<Vec<String>, StoreError> {
        traced!("claim_orphans", self.0.claim_orphans(limit)).await
    }

    async fn owned_games(&self) -> Result<Vec<String>, StoreError> {
        traced!("owned_games", self.0.owned_games()).await
    }

    async fn release_games(&self) -> Result<Vec<String>, StoreError> {
        traced!("release_games", self.0.release_games()).await
    }

    async fn actions_after(
        &self,
        game_id: &str,
        seq: u64,
    ) -> Result<Vec<StoredAction>, StoreError> {
        traced!("actions_after", self.0.actions_after(game_id, seq), game = %game_id, seq).await
    }

    async fn notify(&self, notification: &Notification) -> Result<(), StoreError> {
        traced!("notify", self.0.notify(notification)).await
    }

    async fn listen(&self) -> Result<mpsc::UnboundedReceiver<Notification>, StoreError> {
        traced!("listen", self.0.listen()).await
    }

    async fn fence_writes(&self) -> Result<(), StoreError> {
        traced!("fence_writes", self.0.fence_writes()).await
    }

    async fn try_lead(&self, role: &str) -> Result<Option<Box<dyn Leadership>>, StoreError> {
        traced!("try_lead", self.0.try_lead(role), role = %role).await
    }
}
