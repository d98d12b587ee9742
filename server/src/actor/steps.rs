//! A game's step log, as its actor keeps it: one step per committed action (the events it
//! caused and when), the table after the latest action and after every [`CHECKPOINT`]-th one
//! (a game's memory stays a few tables, not one per action), and the idempotency keys seen.
//! Synchronous and free of IO: the actor drives it, and it is tested on its own.
//!
//! What watchers, retries and histories read are [`Batch`]es: a step with the table after it.
//! Tables between checkpoints are rebuilt from the nearest checkpoint and the log; a
//! [`Backlog`] carries what is needed to do so, so that a watcher that fell behind rebuilds
//! on its own task, not on the game's.

use std::collections::HashMap;
use std::sync::Arc;

use theboss_engine::Viewer;

use crate::domain::GameInfo;
use crate::store::{StoreError, StoredAction};
use crate::table::{Action, Logged, TableEvent, TableState, numbered};
use crate::wire::{self, Encodings};

/// Every this many actions the log keeps the table, so any earlier one is a few actions'
/// replay away.
pub const CHECKPOINT: usize = 16;

/// One action's outcome, shared with every watcher.
#[derive(Debug)]
pub struct Batch {
    /// The number of events before this batch; its events are `seq_before + 1 ..`.
    pub seq_before: u64,
    pub events: Arc<[TableEvent]>,
    /// When the action was committed (micros).
    pub at: i64,
    pub record: Arc<GameInfo>,
    /// The record's seed commitment, which every view shows: hashed once per game.
    pub seed_commitment: Arc<str>,
    /// The table right after the action.
    pub state: Arc<TableState>,
    /// When the seat to move will be played for (micros), if the game has a clock.
    pub deadline: Option<i64>,
    /// The encoded updates of each kind of viewer, made once by the first watcher or answer
    /// that needs them and shared by the others (`wire` owns what goes in); when the game has
    /// watchers, the actor makes them while the action is written.
    pub encoded: Encodings,
}

impl Batch {
    pub fn seq_after(&self) -> u64 {
        self.seq_before + self.events.len() as u64
    }

    /// The events a viewer may see, numbered; `reveal_all` once the game is over.
    pub fn visible_events(
        &self,
        viewer: Viewer,
        reveal_all: bool,
    ) -> impl Iterator<Item = (u64, &TableEvent)> {
        numbered(self.seq_before, &self.events, viewer, reveal_all)
    }

    /// The step as `wire` encodes it.
    pub fn step(&self) -> wire::Step<'_> {
        wire::Step {
            record: &self.record,
            seed_commitment: &self.seed_commitment,
            state: &self.state,
            seq_before: self.seq_before,
            events: &self.events,
            deadline: self.deadline,
            encodings: &self.encoded,
        }
    }
}

/// What [`StepLog::replay`] added: a batch per action applied, and the error that stopped it
/// short, if one did.
#[derive(Debug)]
#[must_use = "a replay can stop short: its batches are to be sent, its error seen"]
pub struct Replayed {
    pub batches: Vec<Arc<Batch>>,
    pub stopped: Option<StoreError>,
}

impl Replayed {
    /// The batches, or the error if the replay stopped short.
    pub fn whole(self) -> Result<Vec<Arc<Batch>>, StoreError> {
        match self.stopped {
            None => Ok(self.batches),
            Some(error) => Err(error),
        }
    }
}

/// A game's whole log, and the table now.
#[derive(Debug, Clone)]
pub struct History {
    pub log: Vec<Logged>,
    pub latest: Arc<Batch>,
}

/// The batches of a range of steps, not built yet: a checkpoint's table, the actions to
/// replay from it, and the steps wanted. Building them costs a few actions' replay, paid by
/// whoever builds them.
#[derive(Debug, Clone)]
pub struct Backlog {
    record: Arc<GameInfo>,
    seed_commitment: Arc<str>,
    /// The table after step `base`.
    base_state: Arc<TableState>,
    /// The actions of steps `base + 1 ..`, with the tables the log kept for them.
    replay: Vec<(Action, Option<Arc<TableState>>)>,
    /// Steps `base ..`: their events and deadlines.
    steps: Vec<(Logged, Option<i64>)>,
    /// How many of `steps` come before the first one wanted.
    skip: usize,
}

impl Backlog {
    /// The batches wanted, each with its table.
    pub fn build(self) -> Vec<Arc<Batch>> {
        let mut state = self.base_state;
        let mut batches = Vec::with_capacity(self.steps.len().saturating_sub(self.skip));
        let mut replay = self.replay.into_iter();
        for (i, (logged, deadline)) in self.steps.into_iter().enumerate() {
            if i > 0 {
                let (action, kept) = replay.next().expect("one action per later step");
                state = match kept {
                    Some(kept) => kept,
                    None => {
                        let mut next = (*state).clone();
                        // The log replayed once already: it replays the same again.
                        let _ = next.apply(&self.record, &action);
                        Arc::new(next)
                    }
                };
            }
            if i >= self.skip {
                batches.push(Arc::new(Batch {
                    seq_before: logged.seq_before,
                    events: logged.events,
                    at: logged.at,
                    record: self.record.clone(),
                    seed_commitment: self.seed_commitment.clone(),
                    state: state.clone(),
                    deadline,
                    encoded: Default::default(),
                }));
            }
        }
        batches
    }

    pub fn is_empty(&self) -> bool {
        self.steps.len() <= self.skip
    }
}

/// What the log remembers of one action.
struct Step {
    logged: Logged,
    deadline: Option<i64>,
    /// The table after it: kept for the latest action and every [`CHECKPOINT`]-th.
    state: Option<Arc<TableState>>,
}

/// A game's record, its committed actions and what they did.
pub struct StepLog {
    record: Arc<GameInfo>,
    seed_commitment: Arc<str>,
    /// `steps[0]` is the empty table at creation; `steps[i]` follows action `i`.
    steps: Vec<Step>,
    actions: Vec<StoredAction>,
    /// Player → idempotency key → action number: by player first, so that a lookup borrows
    /// the caller's strings instead of copying them into a key.
    keys: HashMap<String, HashMap<String, usize>>,
    latest: Arc<Batch>,
}

impl StepLog {
    /// The log of a game with no action yet.
    pub fn new(record: GameInfo) -> StepLog {
        let record = Arc::new(record);
        let seed_commitment: Arc<str> = record
            .seed_salt
            .as_deref()
            .map(|salt| theboss::fairness::seed_commitment(record.seed, salt))
            .unwrap_or_default()
            .into();
        let state = Arc::new(TableState::new(&record.settings));
        let created = Logged {
            seq_before: 0,
            events: Arc::from(Vec::new()),
            at: record.created_at,
        };
        StepLog {
            latest: Arc::new(Batch {
                seq_before: 0,
                events: created.events.clone(),
                at: created.at,
                record: record.clone(),
                seed_commitment: seed_commitment.clone(),
                state: state.clone(),
                deadline: None,
                encoded: Default::default(),
            }),
            steps: vec![Step {
                logged: created,
                deadline: None,
                state: Some(state),
            }],
            actions: Vec::new(),
            keys: HashMap::new(),
            record,
            seed_commitment,
        }
    }

    pub fn record(&self) -> &Arc<GameInfo> {
        &self.record
    }

    /// The latest batch, whole.
    pub fn latest(&self) -> &Arc<Batch> {
        &self.latest
    }

    /// The game's sequence number: events so far.
    pub fn seq(&self) -> u64 {
        self.latest.seq_after()
    }

    /// Actions committed so far.
    pub fn actions(&self) -> usize {
        self.actions.len()
    }

    /// The `n`-th action (1-based).
    pub fn action(&self, n: usize) -> &StoredAction {
        &self.actions[n - 1]
    }

    /// The action a player committed with an idempotency key, if any.
    pub fn keyed(&self, player_id: &str, key: &str) -> Option<usize> {
        self.keys.get(player_id)?.get(key).copied()
    }

    /// Adds a committed action, the events it caused and the table after it; `deadline` is
    /// when the seat to move will be played for. Returns the action's number.
    pub fn push(
        &mut self,
        stored: StoredAction,
        events: Vec<TableEvent>,
        state: TableState,
        deadline: Option<i64>,
    ) -> usize {
        let next = self.prepare(stored.at, events, state, deadline);
        self.push_prepared(stored, next)
    }

    /// The step an action would add, before it is committed: what its watchers will be
    /// sent, ready for [`Self::push_prepared`] once the action is, so that its encodings can
    /// be made while the action is written (see `wire::encode_ahead`).
    pub fn prepare(
        &self,
        at: i64,
        events: Vec<TableEvent>,
        state: TableState,
        deadline: Option<i64>,
    ) -> Arc<Batch> {
        Arc::new(Batch {
            seq_before: self.seq(),
            events: Arc::from(events),
            at,
            record: self.record.clone(),
            seed_commitment: self.seed_commitment.clone(),
            state: Arc::new(state),
            deadline,
            encoded: Default::default(),
        })
    }

    /// Adds a committed action as the step [`Self::prepare`] made of it (nothing was added
    /// since). Returns the action's number.
    pub fn push_prepared(&mut self, stored: StoredAction, next: Arc<Batch>) -> usize {
        debug_assert_eq!(next.seq_before, self.seq(), "a step made for this place");
        let logged = Logged {
            seq_before: next.seq_before,
            events: next.events.clone(),
            at: next.at,
        };
        let state = next.state.clone();
        let deadline = next.deadline;
        self.latest = next;
        let n = usize::try_from(stored.seq).expect("fits");
        if let (Some(player), Some(key)) = (&stored.player_id, &stored.idempotency_key) {
            match self.keys.get_mut(player.as_str()) {
                Some(keys) => {
                    keys.insert(key.clone(), n);
                }
                None => {
                    self.keys
                        .insert(player.clone(), HashMap::from([(key.clone(), n)]));
                }
            }
        }
        self.actions.push(stored);
        // The table before this action is needed no more, unless it is a checkpoint.
        let previous = self.steps.len() - 1;
        if !previous.is_multiple_of(CHECKPOINT) {
            self.steps[previous].state = None;
        }
        self.steps.push(Step {
            logged,
            deadline,
            state: Some(state),
        });
        n
    }

    /// Applies logged actions after the ones the log has (given the whole log, or only its
    /// end); `deadline` gives each step's deadline from its table and commit time. An action
    /// that does not follow or does not replay stops it there: the steps before it are in
    /// the log all the same, and come back with the error.
    pub fn replay(
        &mut self,
        actions: Vec<StoredAction>,
        deadline: impl Fn(&TableState, i64) -> Option<i64>,
    ) -> Replayed {
        let known = self.actions.len() as u64;
        let mut batches = Vec::new();
        for stored in actions.into_iter().filter(|a| a.seq > known) {
            if let Err(error) = self.replay_one(stored, &deadline) {
                return Replayed {
                    batches,
                    stopped: Some(error),
                };
            }
            batches.push(self.latest.clone());
        }
        Replayed {
            batches,
            stopped: None,
        }
    }

    /// Applies the action that follows the log's last one.
    fn replay_one(
        &mut self,
        stored: StoredAction,
        deadline: impl Fn(&TableState, i64) -> Option<i64>,
    ) -> Result<(), StoreError> {
        let expected = self.actions.len() as u64 + 1;
        if stored.seq != expected {
            return Err(StoreError::Corrupt(format!(
                "game {}: action {} where {expected} was expected",
                self.record.id, stored.seq
            )));
        }
        let mut next = (*self.latest.state).clone();
        let events = next.apply(&self.record, &stored.action).map_err(|e| {
            StoreError::Corrupt(format!(
                "game {}: action {} does not replay: {e}",
                self.record.id, stored.seq
            ))
        })?;
        let due = deadline(&next, stored.at);
        self.push(stored, events, next, due);
        Ok(())
    }

    /// The batches of steps `from..` (step `n` follows action `n`), to be built.
    pub fn backlog(&self, from: usize) -> Backlog {
        let from = from.min(self.steps.len());
        let base = (0..=from)
            .rev()
            .find(|&i| i < self.steps.len() && self.steps[i].state.is_some())
            .unwrap_or(0);
        Backlog {
            record: self.record.clone(),
            seed_commitment: self.seed_commitment.clone(),
            base_state: self.steps[base]
                .state
                .clone()
                .expect("a checkpoint keeps its table"),
            replay: (base + 1..self.steps.len())
                .map(|i| {
                    (
                        self.actions[i - 1].action.clone(),
                        self.steps[i].state.clone(),
                    )
                })
                .collect(),
            steps: self.steps[base..]
                .iter()
                .map(|s| (s.logged.clone(), s.deadline))
                .collect(),
            skip: from - base,
        }
    }

    /// The batches whose events come after event `after`.
    pub fn backlog_after(&self, after: u64) -> Backlog {
        let first = self
            .steps
            .iter()
            .position(|s| s.logged.seq_before + s.logged.events.len() as u64 > after)
            .unwrap_or(self.steps.len());
        self.backlog(first)
    }

    /// The batch of action `n` (the latest at once; an earlier one rebuilt).
    pub fn batch(&self, n: usize) -> Arc<Batch> {
        if n + 1 == self.steps.len() {
            self.latest.clone()
        } else {
            self.backlog(n).build().swap_remove(0)
        }
    }

    /// The whole log, and the table now.
    pub fn history(&self) -> History {
        History {
            log: self.steps.iter().map(|s| s.logged.clone()).collect(),
            latest: self.latest.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{PlayerInfo, Settings, Visibility};

    fn record() -> GameInfo {
        GameInfo {
            id: "g".into(),
            settings: Settings::new(2, vec![], 0, Visibility::Public).unwrap(),
            seed: 11,
            created_by: "p0".into(),
            created_at: 0,
            ladder: false,
            series: None,
            seed_salt: None,
            seeded: false,
        }
    }

    /// A whole game's log: two joins, then the default turn of whoever is to move.
    fn whole_game() -> Vec<StoredAction> {
        let record = record();
        let mut table = TableState::new(&record.settings);
        let mut actions = Vec::new();
        let mut push = |table: &mut TableState, action: Action, keyed: bool| {
            table.apply(&record, &action).unwrap();
            let seq = actions.len() as u64 + 1;
            actions.push(StoredAction {
                seq,
                action,
                player_id: Some("p".into()),
                idempotency_key: keyed.then(|| format!("k{seq}")),
                at: 0,
            });
        };
        for seat in 0..2u8 {
            let player = PlayerInfo {
                id: format!("p{seat}"),
                display_name: format!("P{seat}"),
                is_bot: true,
            };
            push(&mut table, Action::Join { seat, player }, false);
        }
        while let Some(action) = table.timeout_action() {
            let Action::Turn { seat, turn, .. } = action else {
                unreachable!()
            };
            let turn = Action::Turn {
                seat,
                turn,
                by_timeout: false,
            };
            push(&mut table, turn, true);
        }
        actions
    }

    #[test]
    fn every_rebuilt_batch_is_the_table_the_log_gives_and_only_checkpoints_are_kept() {
        let actions = whole_game();
        assert!(actions.len() > 2 * CHECKPOINT, "{} actions", actions.len());
        let mut log = StepLog::new(record());
        log.replay(actions.clone(), |_, _| None).whole().unwrap();
        let kept = log.steps.iter().filter(|s| s.state.is_some()).count();
        assert_eq!(
            kept,
            actions.len() / CHECKPOINT + 2,
            "checkpoints, and the latest"
        );
        let mut table = TableState::new(&record().settings);
        let mut expected = Vec::new();
        for action in &actions {
            table.apply(&record(), &action.action).unwrap();
            expected.push(format!("{table:?}"));
        }
        for from in [1, 5, CHECKPOINT, CHECKPOINT + 1, actions.len()] {
            let rebuilt: Vec<String> = log
                .backlog(from)
                .build()
                .iter()
                .map(|b| format!("{:?}", b.state))
                .collect();
            assert_eq!(rebuilt, expected[from - 1..], "from step {from}");
        }
        assert!(log.backlog(actions.len() + 1).build().is_empty());
        assert_eq!(format!("{:?}", log.batch(7).state), expected[6]);
    }

    #[test]
    fn keys_name_their_actions_and_a_gap_in_the_log_is_corrupt() {
        let actions = whole_game();
        let mut log = StepLog::new(record());
        log.replay(actions[..10].to_vec(), |_, _| None)
            .whole()
            .unwrap();
        let key = actions[5].idempotency_key.clone().unwrap();
        assert_eq!(log.keyed("p", &key), Some(6));
        assert_eq!(log.keyed("other", &key), None);
        // Replaying what it has changes nothing; a gap is refused.
        assert!(
            log.replay(actions[..10].to_vec(), |_, _| None)
                .whole()
                .unwrap()
                .is_empty()
        );
        let gap = log
            .replay(actions[11..].to_vec(), |_, _| None)
            .whole()
            .unwrap_err();
        assert!(matches!(gap, StoreError::Corrupt(_)), "{gap}");
        assert_eq!(log.actions(), 10);
        // Events after a seq: the first step whose events reach past it.
        let seq = log.seq();
        assert!(log.backlog_after(seq).is_empty());
        assert_eq!(log.backlog_after(seq - 1).build().len(), 1);
    }

    #[test]
    fn a_replay_that_stops_partway_keeps_and_returns_the_steps_before_it() {
        let actions = whole_game();
        let mut log = StepLog::new(record());
        log.replay(actions[..10].to_vec(), |_, _| None)
            .whole()
            .unwrap();
        // Actions 11 and 12 follow; 14 leaves a gap.
        let with_gap = vec![
            actions[10].clone(),
            actions[11].clone(),
            actions[13].clone(),
        ];
        let replayed = log.replay(with_gap, |_, _| None);
        assert!(
            matches!(replayed.stopped, Some(StoreError::Corrupt(_))),
            "{:?}",
            replayed.stopped
        );
        assert_eq!(log.actions(), 12);
        let seqs: Vec<u64> = replayed.batches.iter().map(|b| b.seq_after()).collect();
        assert_eq!(seqs.len(), 2);
        assert_eq!(
            seqs[1],
            log.seq(),
            "the last step applied is the log's last"
        );
        assert!(Arc::ptr_eq(&replayed.batches[1], log.latest()));
        // An action that does not replay stops it the same way: action 13 follows, then a
        // join of a seat taken long ago.
        let mut taken = actions[0].clone();
        taken.seq = 14;
        let replayed = log.replay(vec![actions[12].clone(), taken], |_, _| None);
        assert_eq!(replayed.batches.len(), 1);
        assert!(
            matches!(&replayed.stopped, Some(StoreError::Corrupt(why)) if why.contains("does not replay")),
            "{:?}",
            replayed.stopped
        );
        assert_eq!(log.actions(), 13);
    }
}
