//! How an actor commits an action: tried on a copy of the table, written to the store with
//! its effects (the game's status, what its end rates), and only then made visible. On any
//! error nothing has changed; a store that is ahead of the actor (a lost answer, another
//! writer) is caught up with, and a replica that no longer owns the game steps down.

use std::task::Poll;

use theboss_engine::Seat;

use super::{Actor, Committed, Role};
use crate::domain::{GameStatus, now_micros};
use crate::game_error::GameError;
use crate::store::{Effects, PlayerCaps, RatingJob, StoreError, StoredAction};
use crate::table::{Action, TableError};
use crate::wire;
use theboss_ladder::rating;

/// What an actor wrote to its game's row (its status, winners, money and seats that acted)
/// with its action number `seq`. The next action leaves the row alone if it would write the
/// same, and only if this actor wrote the action just before it: an action it did not write
/// (read back after a write whose outcome was unknown, or caught up with from another
/// writer) was written with a row it never saw.
#[derive(Debug)]
pub(super) struct WrittenRow {
    seq: u64,
    status: GameStatus,
    winners: Vec<Seat>,
    money: Vec<u32>,
    acted: Vec<bool>,
}

impl WrittenRow {
    fn of(seq: u64, effects: &Effects) -> WrittenRow {
        WrittenRow {
            seq,
            status: effects.status,
            winners: effects.winners.clone(),
            money: effects.money.clone(),
            acted: effects.acted.clone(),
        }
    }

    /// Whether the row holds what `effects` would write, after action `seq`.
    fn holds(&self, seq: u64, effects: &Effects) -> bool {
        self.seq == seq
            && self.status == effects.status
            && self.winners == effects.winners
            && self.money == effects.money
            && self.acted == effects.acted
    }
}

impl Actor {
    /// Tries an action on a copy of the table, commits it, then makes it visible. Returns the
    /// action's number. On error nothing has changed.
    pub(super) async fn commit(
        &mut self,
        action: Action,
        player_id: Option<String>,
        idempotency_key: Option<String>,
    ) -> Result<usize, GameError> {
        self.commit_within(action, player_id, idempotency_key, None)
            .await
    }

    /// [`Self::commit`], for an action a player asks for that adds to what it holds: the
    /// store checks `caps` with the write, and refuses it at a cap.
    pub(super) async fn commit_within(
        &mut self,
        action: Action,
        player_id: Option<String>,
        idempotency_key: Option<String>,
        caps: Option<PlayerCaps>,
    ) -> Result<usize, GameError> {
        self.settle().await?;
        let mut next = (*self.log.latest().state).clone();
        let events = next.apply(&self.record, &action)?;
        let stored = StoredAction {
            seq: self.log.actions() as u64 + 1,
            action,
            player_id,
            idempotency_key,
            at: now_micros(),
        };
        let mut effects = Effects {
            caps,
            ..self.effects(&next)
        };
        effects.row_unchanged = self
            .row
            .as_ref()
            .is_some_and(|row| row.holds(self.log.actions() as u64, &effects));
        let prepared = self.prepare(stored.at, events, next);
        // What the step's watchers will be sent is encoded while the action is written (once
        // its statement is sent), off the path from the commit to them: what they all share,
        // and each kind of viewer's updates the step before was asked for. Thrown away with
        // the step if the write fails. A game nobody watches is not encoded for nothing: an
        // answer to its player encodes what it needs.
        let watched = self.updates.receiver_count() > 0;
        let written = {
            let mut write =
                std::pin::pin!(self.store.append_action(&self.record.id, &stored, &effects));
            let first = futures::poll!(write.as_mut());
            if watched {
                wire::encode_ahead(prepared.step(), &self.log.latest().encoded);
            }
            match first {
                Poll::Ready(written) => written,
                Poll::Pending => write.await,
            }
        };
        if let Err(error) = written {
            match error {
                StoreError::Conflict { .. } => {
                    // The store is ahead of this actor: a commit whose answer was lost, or
                    // another server. Catch up, and let the caller decide again from the new
                    // view.
                    self.catch_up().await;
                }
                StoreError::AtCap(at) => {
                    return Err(GameError::Limit {
                        kind: at.kind,
                        subject: format!("player:{}", stored.player_id.unwrap_or_default()),
                        limit: at.limit,
                    });
                }
                StoreError::NotOwner { .. } => {
                    // Another replica runs the game now (this one's lease ran out, or it
                    // gave the game up): follow it, and send the caller there.
                    self.set_role(Role::Follower);
                    tracing::warn!("another replica runs the game now");
                    return Err(GameError::Moved);
                }
                StoreError::Database(_) | StoreError::Closed => {
                    tracing::warn!(%error, seq = stored.seq, "a write's outcome is unknown");
                    self.unsure = true;
                }
                _ => {}
            }
            return Err(error.into());
        }
        self.row = Some(WrittenRow::of(stored.seq, &effects));
        let timed_out = matches!(
            stored.action,
            Action::Turn {
                by_timeout: true,
                ..
            }
        );
        let was_forfeited = self
            .log
            .latest()
            .state
            .forfeited
            .iter()
            .filter(|f| **f)
            .count();
        let next = &prepared.state;
        let forfeited = next.forfeited.iter().filter(|f| **f).count();
        crate::metrics::action_committed(timed_out, forfeited.saturating_sub(was_forfeited));
        let ended = next.status.is_over() && !self.log.latest().state.status.is_over();
        // A table that ended no longer takes a place among the house bots' tables.
        if ended && next.seats.iter().flatten().any(crate::domain::is_house_bot) {
            self.house.forget(&self.record.id);
        }
        // Players who finished a game together know each other: their challenges to each
        // other are shown first (`arranged::shown`). Written beside the game, never in its
        // way: a failure only costs that.
        if ended && next.status == GameStatus::Finished {
            let players: Vec<String> = next
                .seats
                .iter()
                .flatten()
                .filter(|p| !crate::domain::is_house_bot(p))
                .map(|p| p.id.clone())
                .collect();
            if players.len() >= 2 {
                let store = self.store.clone();
                tokio::spawn(async move {
                    if let Err(error) = store.note_contacts(&players).await {
                        tracing::warn!(%error, "cannot record who played together");
                    }
                });
            }
        }
        Ok(self.push(stored, prepared))
    }

    /// Reads the log back from the store after a write whose outcome is unknown: what the
    /// store holds is what happened. Until it answers, nothing is written (UNAVAILABLE: the
    /// caller retries with the same idempotency key, and finds its action if it was kept).
    pub(super) async fn settle(&mut self) -> Result<(), GameError> {
        if !self.unsure {
            return Ok(());
        }
        let stored = self
            .store
            .load_game(&self.record.id)
            .await?
            .ok_or_else(|| StoreError::Corrupt(format!("game {} vanished", self.record.id)))?;
        let before = self.log.seq();
        self.replay(stored.actions);
        self.unsure = false;
        tracing::info!(
            before,
            after = self.log.seq(),
            "read the log back after an unknown outcome"
        );
        Ok(())
    }

    /// What changes with an action that leads to `next`, besides the log.
    fn effects(&self, next: &crate::table::TableState) -> Effects {
        let ended = next.status.is_over() && !self.log.latest().state.status.is_over();
        let rating = match &self.record.series {
            // A table of a duplicate set: the set is rated once its last table ends (and
            // counted down even if not rated: its tables are hidden until then).
            Some(series) if series.is_set() && ended => Some(RatingJob::SetTableEnded {
                series_id: series.id.clone(),
                rated: self.record.ladder,
            }),
            // A ladder game alone: rated by itself once it finished.
            None if self.record.ladder && next.status == GameStatus::Finished => next
                .game
                .as_ref()
                .and_then(theboss_engine::Game::outcome)
                .and_then(|outcome| {
                    let players = next
                        .seats
                        .iter()
                        .map(|p| p.as_ref().map(|p| p.id.clone()).unwrap_or_default())
                        .collect();
                    rating::rated_game(&self.record.id, players, &next.acted, outcome)
                })
                .map(RatingJob::Game),
            _ => None,
        };
        Effects {
            status: next.status,
            winners: next.winners(),
            money: if next.status == GameStatus::Finished {
                next.money()
            } else {
                Vec::new()
            },
            acted: next.acted.clone(),
            row_unchanged: false,
            rating,
            caps: None,
        }
    }

    /// A seat's request to play a turn: the first result again for a known idempotency key,
    /// else the turn checked, committed and made visible.
    pub(super) async fn submit(&mut self, submit: super::Submit) -> Result<Committed, GameError> {
        let seat = self
            .log
            .latest()
            .state
            .seat_of(&submit.player_id)
            .ok_or(TableError::NotSeated)?;
        let action = Action::Turn {
            seat,
            turn: submit.turn,
            by_timeout: false,
        };
        let key = (!submit.idempotency_key.is_empty()).then_some(submit.idempotency_key);
        self.settle().await?;
        if let Some(done) = self.already(&submit.player_id, key.as_deref(), &action, seat) {
            return done;
        }
        self.writable()?;
        if submit.expected_seq != self.log.seq() {
            return Err(GameError::Stale {
                expected: submit.expected_seq,
                current: self.log.seq(),
            });
        }
        match self
            .commit(action.clone(), Some(submit.player_id.clone()), key.clone())
            .await
        {
            Ok(n) => Ok(self.committed(n, seat)),
            // The store was ahead (the actor caught up): the action it holds may be this
            // very request's, committed by an earlier attempt whose answer was lost.
            Err(error @ GameError::Store(StoreError::Conflict { .. })) => self
                .already(&submit.player_id, key.as_deref(), &action, seat)
                .unwrap_or(Err(error)),
            Err(error) => Err(error),
        }
    }

    /// The answer to a request whose idempotency key the log already holds: the action it
    /// committed, or a refusal if the key was used for another.
    fn already(
        &self,
        player_id: &str,
        key: Option<&str>,
        action: &Action,
        seat: Seat,
    ) -> Option<Result<Committed, GameError>> {
        let n = self.log.keyed(player_id, key?)?;
        Some(if self.log.action(n).action == *action {
            Ok(self.committed(n, seat))
        } else {
            Err(GameError::invalid(
                "idempotency_key",
                "already used for a different action",
            ))
        })
    }

    fn committed(&self, n: usize, seat: Seat) -> Committed {
        Committed {
            batch: self.log.batch(n),
            seat,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn running(acted: Vec<bool>) -> Effects {
        Effects {
            status: GameStatus::Running,
            acted,
            ..Effects::default()
        }
    }

    #[test]
    fn a_row_is_known_unchanged_only_right_after_the_write_that_left_it_so() {
        let row = WrittenRow::of(7, &running(vec![true, false]));
        assert!(row.holds(7, &running(vec![true, false])));
        // Another value, or an action written since by someone else: written again.
        assert!(!row.holds(7, &running(vec![true, true])));
        assert!(!row.holds(8, &running(vec![true, false])));
        assert!(!row.holds(
            7,
            &Effects {
                status: GameStatus::Finished,
                ..running(vec![true, false])
            }
        ));
    }
}
