//! Challenges: who may challenge a player, the challenges and their parties' answers, and
//! whom each player knows (`contacts`), read and written under a lock on the challenge (or
//! the challenger's row) so that the rules of `theboss_ladder::challenge`, applied in
//! between, see what they change.

use super::rows;
use super::sql_store;
use crate::domain::PlayerInfo;
use crate::store::{ChallengeRefused, ChallengeStore, StoreError};
use theboss_ladder::challenge::{Answer, AnswerRefused, ChallengeRecord, ChallengeStatus, Policy};

/// By the primary key.
pub(in crate::store) const SET_POLICY: &str =
    "UPDATE players SET challenge_policy = $1 WHERE id = $2";
/// By the primary key.
pub(in crate::store) const PLAYER_POLICY: &str =
    "SELECT id, display_name, is_bot, challenge_policy FROM players WHERE id = $1";
/// A challenger's challenges someone can still see, by the partial index
/// `challenge_players_visible_as_challenger`: they count toward its cap, withdrawn or not.
pub(in crate::store) const VISIBLE_CHALLENGES_BY: &str = "SELECT COUNT(*) FROM challenge_players \
     WHERE player_id = $1 AND position = 0 AND visible_until > $2";
/// By the primary key of `contacts`.
pub(in crate::store) const KNOWS: &str =
    "SELECT COUNT(*) FROM contacts WHERE player_id = $1 AND contact_id = $2";
pub(in crate::store) const INSERT_CONTACT: &str =
    "INSERT INTO contacts (player_id, contact_id) VALUES ($1, $2) ON CONFLICT DO NOTHING";
/// The challenges a player sees from players it does not know, by `challenge_players_visible`,
/// each challenge and each contact by its key: bounded by what strangers may send it.
pub(in crate::store) const FROM_STRANGERS: &str = "SELECT COUNT(*) FROM challenge_players cp \
     WHERE cp.player_id = $1 AND cp.position > 0 AND cp.visible_until > $2 \
     AND (SELECT COUNT(*) FROM contacts k WHERE k.player_id = $1 AND k.contact_id = \
     (SELECT c.challenger_id FROM challenges c WHERE c.id = cp.challenge_id)) = 0";
pub(in crate::store) const INSERT_CHALLENGE: &str = "INSERT INTO challenges \
     (id, challenger_id, players, duplicate, rated, status, created_at, expires_at) \
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)";
pub(in crate::store) const INSERT_PARTY: &str = "INSERT INTO challenge_players \
     (challenge_id, player_id, position, answer, visible_until) VALUES ($1, $2, $3, $4, $5)";
/// By the primary key.
pub(in crate::store) const CHALLENGE_BY_ID: &str = "SELECT id, players, duplicate, rated, status, \
     created_at, expires_at, game_ids FROM challenges WHERE id = $1";
/// By the primary key of `challenge_players`, each player by its key (one by one: a join
/// could read every player on a database without statistics).
pub(in crate::store) const PARTIES_OF: &str = "SELECT cp.player_id, \
     (SELECT p.display_name FROM players p WHERE p.id = cp.player_id), \
     (SELECT p.is_bot FROM players p WHERE p.id = cp.player_id), cp.answer \
     FROM challenge_players cp WHERE cp.challenge_id = $1 ORDER BY cp.position";
/// By the primary key.
pub(in crate::store) const UPDATE_CHALLENGE: &str =
    "UPDATE challenges SET status = $1, game_ids = $2 WHERE id = $3";
/// By the primary key.
pub(in crate::store) const UPDATE_PARTY: &str = "UPDATE challenge_players SET answer = $1, \
     visible_until = $2 WHERE challenge_id = $3 AND player_id = $4";
/// By the index `challenge_players_visible`: what a player's stream may show, with each
/// challenger and whether the player knows it (each by its key), bounded by the challenges of
/// its last minutes, whatever its history, and by what strangers may send it.
pub(in crate::store) const VISIBLE_CHALLENGES: &str = "SELECT cp.challenge_id, \
     (SELECT c.challenger_id FROM challenges c WHERE c.id = cp.challenge_id), \
     (SELECT COUNT(*) FROM contacts k WHERE k.player_id = $1 AND k.contact_id = \
     (SELECT c.challenger_id FROM challenges c WHERE c.id = cp.challenge_id)), \
     cp.visible_until FROM challenge_players cp \
     WHERE cp.player_id = $1 AND cp.visible_until > $2 ORDER BY cp.visible_until DESC LIMIT 500";
/// By the partial index `challenges_open`.
pub(in crate::store) const SEATING_CHALLENGES: &str = "SELECT id FROM challenges \
     WHERE status IN ('pending', 'seating') AND status = 'seating' AND expires_at > $1 \
     ORDER BY expires_at LIMIT 100";
/// By the partial index `challenges_open`.
pub(in crate::store) const EXPIRED_CHALLENGES: &str = "SELECT id FROM challenges \
     WHERE status IN ('pending', 'seating') AND expires_at <= $1 ORDER BY expires_at LIMIT $2";
/// By the primary key.
pub(in crate::store) const EXPIRE_CHALLENGE: &str = "UPDATE challenges SET status = 'expired' \
     WHERE id = $1 AND status IN ('pending', 'seating')";
/// By the primary key.
pub(in crate::store) const START_CHALLENGE: &str = "UPDATE challenges SET status = 'started', \
     game_ids = $1 WHERE id = $2 AND status = 'seating' AND expires_at > $3";

type ChallengeRow = (String, i64, bool, bool, String, i64, i64, String);
type PartyRow = (String, String, bool, String);

sql_store! {
    impl {
        /// Reads a challenge with its parties on `conn` (locked with `lock` appended).
        async fn read_challenge(
            conn: &mut DB::Connection,
            challenge_id: &str,
            lock: &str,
        ) -> Result<Option<ChallengeRecord>, StoreError> {
            let sql = format!("{CHALLENGE_BY_ID}{lock}");
            let row: Option<ChallengeRow> = sqlx::query_as(sqlx::AssertSqlSafe(sql))
                .bind(challenge_id)
                .fetch_optional(&mut *conn)
                .await?;
            let Some((id, players, duplicate, rated, status, created_at, expires_at, game_ids)) =
                row
            else {
                return Ok(None);
            };
            let parties: Vec<PartyRow> = sqlx::query_as(PARTIES_OF)
                .bind(challenge_id)
                .fetch_all(&mut *conn)
                .await?;
            let parties = parties
                .into_iter()
                .map(|(id, display_name, is_bot, answer)| {
                    Ok((
                        PlayerInfo {
                            id,
                            display_name,
                            is_bot,
                        },
                        rows::parsed(Answer::parse(&answer), "challenge answer", &answer)?,
                    ))
                })
                .collect::<Result<Vec<_>, StoreError>>()?;
            if parties.is_empty() {
                return Err(rows::corrupt(format!("challenge {id} has nobody in it")));
            }
            Ok(Some(ChallengeRecord {
                id,
                parties,
                players: rows::small(players, "challenge players")?,
                duplicate,
                rated,
                status: rows::parsed(ChallengeStatus::parse(&status), "challenge status", &status)?,
                created_at,
                expires_at,
                game_ids: game_ids
                    .split(',')
                    .filter(|g| !g.is_empty())
                    .map(str::to_string)
                    .collect(),
            }))
        }

        /// Writes a challenge's status, games and parties' answers as `next` has them.
        async fn write_challenge(
            conn: &mut DB::Connection,
            next: &ChallengeRecord,
            now: i64,
        ) -> Result<(), StoreError> {
            let games = next.game_ids.join(",");
            sqlx::query(UPDATE_CHALLENGE)
                .bind(next.status.as_str())
                .bind(games.as_str())
                .bind(next.id.as_str())
                .execute(&mut *conn)
                .await?;
            let visible = next.visible_until(now);
            for (player, answer) in &next.parties {
                sqlx::query(UPDATE_PARTY)
                    .bind(answer.as_str())
                    .bind(visible)
                    .bind(next.id.as_str())
                    .bind(player.id.as_str())
                    .execute(&mut *conn)
                    .await?;
            }
            Ok(())
        }
    }
}

sql_store! {
    impl ChallengeStore {
        async fn set_challenge_policy(
            &self,
            player_id: &str,
            policy: Policy,
        ) -> Result<bool, StoreError> {
            let done = sqlx::query(SET_POLICY)
                .bind(policy.as_str())
                .bind(player_id)
                .execute(&self.side)
                .await?;
            Ok(DB::rows_affected(&done) == 1)
        }

        async fn challenge_policy(&self, player_id: &str) -> Result<Option<Policy>, StoreError> {
            let row: Option<(String, String, bool, String)> = sqlx::query_as(PLAYER_POLICY)
                .bind(player_id)
                .fetch_optional(&self.side)
                .await?;
            row.map(|(_, _, _, policy)| {
                rows::parsed(Policy::parse(&policy), "challenge policy", &policy)
            })
            .transpose()
        }

        async fn create_challenge(
            &self,
            challenge: &ChallengeRecord,
            max_open: u32,
        ) -> Result<Result<ChallengeRecord, ChallengeRefused>, StoreError> {
            let mut tx = self.side.begin_with(DB::BEGIN_WRITE).await?;
            let challenger = challenge.challenger();
            // The challenger's row, locked: its concurrent challenges are counted one by one.
            let locked = format!("{}{}", PLAYER_POLICY, DB::LOCK_ROW);
            let _me: Option<(String, String, bool, String)> =
                sqlx::query_as(sqlx::AssertSqlSafe(locked))
                    .bind(challenger.id.as_str())
                    .fetch_optional(&mut *tx)
                    .await?;
            let (open,): (i64,) = sqlx::query_as(VISIBLE_CHALLENGES_BY)
                .bind(challenger.id.as_str())
                .bind(challenge.created_at)
                .fetch_one(&mut *tx)
                .await?;
            if open >= i64::from(max_open) {
                return Ok(Err(ChallengeRefused::TooMany { limit: max_open }));
            }
            let mut stored = challenge.clone();
            for (party, _) in stored.parties.iter_mut().skip(1) {
                let row: Option<(String, String, bool, String)> = sqlx::query_as(PLAYER_POLICY)
                    .bind(party.id.as_str())
                    .fetch_optional(&mut *tx)
                    .await?;
                let Some((id, display_name, is_bot, policy)) = row else {
                    return Ok(Err(ChallengeRefused::UnknownPlayer(party.id.clone())));
                };
                *party = PlayerInfo {
                    id,
                    display_name,
                    is_bot,
                };
                let policy = rows::parsed(Policy::parse(&policy), "challenge policy", &policy)?;
                if !policy.admits(challenger) {
                    return Ok(Err(ChallengeRefused::Refuses(party.clone())));
                }
                // A stranger to this player may not add to a crowd of strangers' challenges.
                let (known,): (i64,) = sqlx::query_as(KNOWS)
                    .bind(party.id.as_str())
                    .bind(challenger.id.as_str())
                    .fetch_one(&mut *tx)
                    .await?;
                if known == 0 {
                    let (crowd,): (i64,) = sqlx::query_as(FROM_STRANGERS)
                        .bind(party.id.as_str())
                        .bind(challenge.created_at)
                        .fetch_one(&mut *tx)
                        .await?;
                    if crowd >= i64::from(theboss_ladder::challenge::MAX_FROM_STRANGERS) {
                        return Ok(Err(ChallengeRefused::Crowded {
                            player: party.clone(),
                            limit: theboss_ladder::challenge::MAX_FROM_STRANGERS,
                        }));
                    }
                }
            }
            sqlx::query(INSERT_CHALLENGE)
                .bind(stored.id.as_str())
                .bind(challenger.id.as_str())
                .bind(i64::from(stored.players))
                .bind(stored.duplicate)
                .bind(stored.rated)
                .bind(stored.status.as_str())
                .bind(stored.created_at)
                .bind(stored.expires_at)
                .execute(&mut *tx)
                .await?;
            // The challenger knows whom it challenged from now on.
            for (party, _) in stored.parties.iter().skip(1) {
                sqlx::query(INSERT_CONTACT)
                    .bind(challenger.id.as_str())
                    .bind(party.id.as_str())
                    .execute(&mut *tx)
                    .await?;
            }
            let visible = stored.visible_until(stored.created_at);
            for (position, (party, answer)) in stored.parties.iter().enumerate() {
                sqlx::query(INSERT_PARTY)
                    .bind(stored.id.as_str())
                    .bind(party.id.as_str())
                    .bind(position as i64)
                    .bind(answer.as_str())
                    .bind(visible)
                    .execute(&mut *tx)
                    .await?;
            }
            tx.commit().await?;
            Ok(Ok(stored))
        }

        async fn challenge(
            &self,
            challenge_id: &str,
        ) -> Result<Option<ChallengeRecord>, StoreError> {
            let mut conn = self.side.acquire().await?;
            Self::read_challenge(&mut conn, challenge_id, "").await
        }

        async fn answer_challenge(
            &self,
            challenge_id: &str,
            player_id: &str,
            accept: bool,
            now: i64,
        ) -> Result<Option<Result<ChallengeRecord, AnswerRefused>>, StoreError> {
            let mut tx = self.side.begin_with(DB::BEGIN_WRITE).await?;
            let Some(challenge) = Self::read_challenge(&mut tx, challenge_id, DB::LOCK_ROW).await?
            else {
                return Ok(None);
            };
            let next = match theboss_ladder::challenge::answer(&challenge, player_id, accept, now) {
                Ok(next) => next,
                Err(refused) => return Ok(Some(Err(refused))),
            };
            if next != challenge {
                Self::write_challenge(&mut tx, &next, now).await?;
                tx.commit().await?;
            }
            Ok(Some(Ok(next)))
        }

        async fn challenges_of(
            &self,
            player_id: &str,
            now: i64,
        ) -> Result<Vec<ChallengeRecord>, StoreError> {
            let mut conn = self.side.acquire().await?;
            let rows: Vec<(String, Option<String>, i64, i64)> = sqlx::query_as(VISIBLE_CHALLENGES)
                .bind(player_id)
                .bind(now)
                .fetch_all(&mut *conn)
                .await?;
            let candidates = rows
                .into_iter()
                .filter_map(|(id, challenger, known, visible_until)| {
                    let challenger = challenger?;
                    Some(theboss_ladder::challenge::Shown {
                        known: known > 0 || challenger == player_id,
                        challenger,
                        id,
                        visible_until,
                    })
                })
                .collect();
            let mut found = Vec::new();
            for id in theboss_ladder::challenge::shown(candidates, player_id) {
                if let Some(challenge) = Self::read_challenge(&mut conn, &id, "").await? {
                    found.push(challenge);
                }
            }
            Ok(found)
        }

        async fn note_contacts(&self, players: &[String]) -> Result<(), StoreError> {
            // One statement for every pair: a game's end costs one round trip here, not one
            // per pair and two for a transaction.
            let pairs: Vec<(&str, &str)> = players
                .iter()
                .flat_map(|a| {
                    players
                        .iter()
                        .filter(move |b| *b != a)
                        .map(move |b| (a.as_str(), b.as_str()))
                })
                .collect();
            if pairs.is_empty() {
                return Ok(());
            }
            let mut sql =
                sqlx::QueryBuilder::<DB>::new("INSERT INTO contacts (player_id, contact_id) ");
            sql.push_values(pairs, |mut row, (a, b)| {
                row.push_bind(a).push_bind(b);
            });
            sql.push(" ON CONFLICT DO NOTHING");
            sql.build().execute(&self.side).await?;
            Ok(())
        }

        async fn seating_challenges(&self, now: i64) -> Result<Vec<ChallengeRecord>, StoreError> {
            let mut conn = self.side.acquire().await?;
            let ids: Vec<(String,)> = sqlx::query_as(SEATING_CHALLENGES)
                .bind(now)
                .fetch_all(&mut *conn)
                .await?;
            let mut found = Vec::with_capacity(ids.len());
            for (id,) in ids {
                if let Some(challenge) = Self::read_challenge(&mut conn, &id, "").await? {
                    found.push(challenge);
                }
            }
            found.sort_by_key(|c| c.created_at);
            Ok(found)
        }

        async fn start_challenge(
            &self,
            challenge_id: &str,
            game_ids: &[String],
            now: i64,
        ) -> Result<bool, StoreError> {
            let mut tx = self.side.begin_with(DB::BEGIN_WRITE).await?;
            let games = game_ids.join(",");
            let done = sqlx::query(START_CHALLENGE)
                .bind(games.as_str())
                .bind(challenge_id)
                .bind(now)
                .execute(&mut *tx)
                .await?;
            if DB::rows_affected(&done) == 0 {
                return Ok(false);
            }
            if let Some(started) = Self::read_challenge(&mut tx, challenge_id, "").await? {
                Self::write_challenge(&mut tx, &started, now).await?;
            }
            tx.commit().await?;
            Ok(true)
        }

        async fn expire_challenges(&self, now: i64, limit: u32) -> Result<Vec<String>, StoreError> {
            let ids: Vec<(String,)> = sqlx::query_as(EXPIRED_CHALLENGES)
                .bind(now)
                .bind(i64::from(limit))
                .fetch_all(&self.side)
                .await?;
            let mut expired = Vec::new();
            for (id,) in ids {
                let done = sqlx::query(EXPIRE_CHALLENGE)
                    .bind(id.as_str())
                    .execute(&self.side)
                    .await?;
                if DB::rows_affected(&done) > 0 {
                    expired.push(id);
                }
            }
            Ok(expired)
        }
    }
}
