//! Challenges and tournaments: their rows, read and written under a lock on the challenge
//! or tournament so that the rules of `crate::arranged`, applied in between, see what they
//! change; and the games they seated (`arranged_games`), written before the games.

use async_trait::async_trait;
use sqlx::{ColumnIndex, Decode, Encode, Executor, IntoArguments, Pool, Type};

use super::rows;
use super::{Backend, SqlStore};
use crate::domain::{GameStatus, PlayerInfo, SetTable};
use crate::store::{ArrangedStore, ArrangedTable, ChallengeRefused, LadderSeat, StoreError};
use theboss_ladder::challenge::{Answer, AnswerRefused, ChallengeRecord, ChallengeStatus, Policy};
use theboss_ladder::tournament::{
    Entrant, Format, TournamentRecord, TournamentRefused, TournamentStatus,
};

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
pub(in crate::store) const INSERT_ARRANGED: &str =
    "INSERT INTO arranged_games (game_id, arranged_by) VALUES ($1, $2)";
/// By the partial index `seats_live_by_player`, then each game, and whether it was arranged,
/// by its key.
pub(in crate::store) const ARRANGED_GAMES_OF: &str = "SELECT g.id, s.seat, g.players, \
     g.series_id, g.series_index, g.series_tables FROM seats s \
     JOIN games g ON g.id = s.game_id \
     WHERE s.player_id = $1 AND NOT s.game_over AND g.status IN ('open', 'running') \
     AND (SELECT a.arranged_by FROM arranged_games a WHERE a.game_id = g.id) IS NOT NULL \
     ORDER BY g.ord";
/// By the partial index `tournaments_unfinished_by_creator`.
pub(in crate::store) const UNFINISHED_TOURNAMENTS_OF: &str =
    "SELECT COUNT(*) FROM tournaments WHERE creator_id = $1 AND status <> 'finished'";
pub(in crate::store) const INSERT_TOURNAMENT: &str = "INSERT INTO tournaments (id, name, \
     creator_id, format, players, sets_per_pair, hero_id, max_entrants, rated, turn_secs, \
     status, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)";
const TOURNAMENT_COLUMNS: &str = "id, name, creator_id, format, players, sets_per_pair, hero_id, \
     max_entrants, rated, turn_secs, status, created_at, started_at, finished_at";
/// By the primary key.
pub(in crate::store) const TOURNAMENT_BY_ID: &str = "SELECT id, name, creator_id, format, players, \
     sets_per_pair, hero_id, max_entrants, rated, turn_secs, status, created_at, started_at, \
     finished_at FROM tournaments WHERE id = $1";
/// By the primary key of `tournament_entrants`, each player by its key (one by one).
pub(in crate::store) const ENTRANTS_OF: &str = "SELECT e.player_id, \
     (SELECT p.display_name FROM players p WHERE p.id = e.player_id), \
     (SELECT p.is_bot FROM players p WHERE p.id = e.player_id), \
     (SELECT p.description FROM players p WHERE p.id = e.player_id) \
     FROM tournament_entrants e WHERE e.tournament_id = $1 ORDER BY e.entered_at, e.player_id";
pub(in crate::store) const INSERT_ENTRANT: &str = "INSERT INTO tournament_entrants \
     (tournament_id, player_id, entered_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING";
/// By the primary key.
pub(in crate::store) const DELETE_ENTRANT: &str =
    "DELETE FROM tournament_entrants WHERE tournament_id = $1 AND player_id = $2";
/// By the primary key.
pub(in crate::store) const START_TOURNAMENT: &str =
    "UPDATE tournaments SET status = 'running', started_at = $1 WHERE id = $2";
/// By the primary key.
pub(in crate::store) const FINISH_TOURNAMENT: &str = "UPDATE tournaments SET status = 'finished', \
     finished_at = $1 WHERE id = $2 AND status = 'running'";
/// By the index `tournaments_running`.
pub(in crate::store) const RUNNING_TOURNAMENTS: &str =
    "SELECT id FROM tournaments WHERE status = 'running' ORDER BY created_at";
/// By the index `arranged_games_by_origin`, each game by its key.
pub(in crate::store) const TOURNAMENT_GAMES: &str = "SELECT g.id, g.series_id, g.series_index, \
     g.status, g.money, g.acted FROM arranged_games a JOIN games g ON g.id = a.game_id \
     WHERE a.arranged_by = $1 ORDER BY g.series_id, g.series_index";
/// A newest-first page of tournaments, of one status or all.
pub(in crate::store) fn list_sql(by_status: bool) -> String {
    if by_status {
        format!(
            "SELECT {TOURNAMENT_COLUMNS} FROM tournaments WHERE status = $1 \
             ORDER BY created_at DESC, id DESC LIMIT $2"
        )
    } else {
        format!(
            "SELECT {TOURNAMENT_COLUMNS} FROM tournaments ORDER BY created_at DESC, id DESC \
             LIMIT $1"
        )
    }
}

type ChallengeRow = (String, i64, bool, bool, String, i64, i64, String);
type PartyRow = (String, String, bool, String);
type TournamentRow = (
    String,
    String,
    String,
    String,
    i64,
    i64,
    Option<String>,
    i64,
    bool,
    i64,
    String,
    i64,
    Option<i64>,
    Option<i64>,
);

fn parse<T>(value: Option<T>, what: &str, text: &str) -> Result<T, StoreError> {
    value.ok_or_else(|| rows::corrupt(format!("{what} {text:?}")))
}

fn tournament_from_row(row: TournamentRow) -> Result<TournamentRecord, StoreError> {
    let (
        id,
        name,
        creator_id,
        format,
        players,
        sets_per_pair,
        hero_id,
        max_entrants,
        rated,
        turn_secs,
        status,
        created_at,
        started_at,
        finished_at,
    ) = row;
    Ok(TournamentRecord {
        id,
        name,
        creator_id,
        format: parse(Format::parse(&format), "tournament format", &format)?,
        players: rows::small(players, "tournament players")?,
        sets_per_pair: rows::small(sets_per_pair, "sets per pair")?,
        hero_id,
        max_entrants: rows::small(max_entrants, "max entrants")?,
        rated,
        turn_secs: u32::try_from(turn_secs).map_err(|_| rows::corrupt("turn seconds"))?,
        status: parse(
            TournamentStatus::parse(&status),
            "tournament status",
            &status,
        )?,
        created_at,
        started_at,
        finished_at,
        entrants: Vec::new(),
    })
}

/// Reads a challenge with its parties on `conn` (locked with `lock` appended).
async fn read_challenge<DB>(
    conn: &mut DB::Connection,
    challenge_id: &str,
    lock: &str,
) -> Result<Option<ChallengeRecord>, StoreError>
where
    DB: Backend,
    for<'x> &'x mut DB::Connection: Executor<'x, Database = DB>,
    DB::Arguments: IntoArguments<DB>,
    usize: ColumnIndex<DB::Row>,
    for<'q> &'q str: Type<DB> + Encode<'q, DB>,
    i64: Type<DB> + for<'r> Decode<'r, DB>,
    bool: Type<DB> + for<'r> Decode<'r, DB>,
    String: Type<DB> + for<'r> Decode<'r, DB>,
{
    let sql = format!("{CHALLENGE_BY_ID}{lock}");
    let row: Option<ChallengeRow> = sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(challenge_id)
        .fetch_optional(&mut *conn)
        .await?;
    let Some((id, players, duplicate, rated, status, created_at, expires_at, game_ids)) = row
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
                parse(Answer::parse(&answer), "challenge answer", &answer)?,
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
        status: parse(ChallengeStatus::parse(&status), "challenge status", &status)?,
        created_at,
        expires_at,
        game_ids: game_ids
            .split(',')
            .filter(|g| !g.is_empty())
            .map(str::to_string)
            .collect(),
    }))
}

/// Reads a tournament with its entrants on `conn` (locked with `lock` appended).
async fn read_tournament<DB>(
    conn: &mut DB::Connection,
    tournament_id: &str,
    lock: &str,
) -> Result<Option<TournamentRecord>, StoreError>
where
    DB: Backend,
    for<'x> &'x mut DB::Connection: Executor<'x, Database = DB>,
    DB::Arguments: IntoArguments<DB>,
    usize: ColumnIndex<DB::Row>,
    for<'q> &'q str: Type<DB> + Encode<'q, DB>,
    i64: Type<DB> + for<'r> Decode<'r, DB>,
    bool: Type<DB> + for<'r> Decode<'r, DB>,
    String: Type<DB> + for<'r> Decode<'r, DB>,
    Option<String>: Type<DB> + for<'r> Decode<'r, DB>,
    Option<i64>: Type<DB> + for<'r> Decode<'r, DB>,
{
    let sql = format!("{TOURNAMENT_BY_ID}{lock}");
    let row: Option<TournamentRow> = sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(tournament_id)
        .fetch_optional(&mut *conn)
        .await?;
    let Some(row) = row else {
        return Ok(None);
    };
    let mut tournament = tournament_from_row(row)?;
    tournament.entrants = entrants::<DB>(conn, tournament_id).await?;
    Ok(Some(tournament))
}

async fn entrants<DB>(
    conn: &mut DB::Connection,
    tournament_id: &str,
) -> Result<Vec<Entrant>, StoreError>
where
    DB: Backend,
    for<'x> &'x mut DB::Connection: Executor<'x, Database = DB>,
    DB::Arguments: IntoArguments<DB>,
    usize: ColumnIndex<DB::Row>,
    for<'q> &'q str: Type<DB> + Encode<'q, DB>,
    bool: Type<DB> + for<'r> Decode<'r, DB>,
    String: Type<DB> + for<'r> Decode<'r, DB>,
{
    let found: Vec<(String, String, bool, String)> = sqlx::query_as(ENTRANTS_OF)
        .bind(tournament_id)
        .fetch_all(&mut *conn)
        .await?;
    Ok(found
        .into_iter()
        .map(|(id, display_name, is_bot, description)| Entrant {
            player: PlayerInfo {
                id,
                display_name,
                is_bot,
            },
            description,
        })
        .collect())
}

/// Writes a challenge's status, games and parties' answers as `next` has them.
async fn write_challenge<DB>(
    conn: &mut DB::Connection,
    next: &ChallengeRecord,
    now: i64,
) -> Result<(), StoreError>
where
    DB: Backend,
    for<'x> &'x mut DB::Connection: Executor<'x, Database = DB>,
    DB::Arguments: IntoArguments<DB>,
    for<'q> &'q str: Type<DB> + Encode<'q, DB>,
    i64: Type<DB> + for<'q> Encode<'q, DB>,
{
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

#[async_trait]
impl<DB> ArrangedStore for SqlStore<DB>
where
    DB: Backend,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'c> &'c Pool<DB>: Executor<'c, Database = DB>,
    DB::Arguments: IntoArguments<DB>,
    usize: ColumnIndex<DB::Row>,
    for<'q> &'q str: Type<DB> + Encode<'q, DB>,
    for<'q> Option<&'q str>: Type<DB> + Encode<'q, DB>,
    i64: Type<DB> + for<'q> Encode<'q, DB> + for<'r> Decode<'r, DB>,
    i32: Type<DB> + for<'q> Encode<'q, DB> + for<'r> Decode<'r, DB>,
    f64: Type<DB> + for<'q> Encode<'q, DB> + for<'r> Decode<'r, DB>,
    bool: Type<DB> + for<'q> Encode<'q, DB> + for<'r> Decode<'r, DB>,
    String: Type<DB> + for<'q> Encode<'q, DB> + for<'r> Decode<'r, DB>,
    Option<String>: Type<DB> + for<'q> Encode<'q, DB> + for<'r> Decode<'r, DB>,
    Option<i64>: Type<DB> + for<'q> Encode<'q, DB> + for<'r> Decode<'r, DB>,
{
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
        row.map(|(_, _, _, policy)| parse(Policy::parse(&policy), "challenge policy", &policy))
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
            let policy = parse(Policy::parse(&policy), "challenge policy", &policy)?;
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

    async fn challenge(&self, challenge_id: &str) -> Result<Option<ChallengeRecord>, StoreError> {
        let mut conn = self.side.acquire().await?;
        read_challenge::<DB>(&mut conn, challenge_id, "").await
    }

    async fn answer_challenge(
        &self,
        challenge_id: &str,
        player_id: &str,
        accept: bool,
        now: i64,
    ) -> Result<Option<Result<ChallengeRecord, AnswerRefused>>, StoreError> {
        let mut tx = self.side.begin_with(DB::BEGIN_WRITE).await?;
        let Some(challenge) = read_challenge::<DB>(&mut tx, challenge_id, DB::LOCK_ROW).await?
        else {
            return Ok(None);
        };
        let next = match theboss_ladder::challenge::answer(&challenge, player_id, accept, now) {
            Ok(next) => next,
            Err(refused) => return Ok(Some(Err(refused))),
        };
        if next != challenge {
            write_challenge::<DB>(&mut tx, &next, now).await?;
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
            if let Some(challenge) = read_challenge::<DB>(&mut conn, &id, "").await? {
                found.push(challenge);
            }
        }
        Ok(found)
    }

    async fn note_contacts(&self, players: &[String]) -> Result<(), StoreError> {
        let mut tx = self.side.begin_with(DB::BEGIN_WRITE).await?;
        for a in players {
            for b in players.iter().filter(|b| *b != a) {
                sqlx::query(INSERT_CONTACT)
                    .bind(a.as_str())
                    .bind(b.as_str())
                    .execute(&mut *tx)
                    .await?;
            }
        }
        tx.commit().await?;
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
            if let Some(challenge) = read_challenge::<DB>(&mut conn, &id, "").await? {
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
        if let Some(started) = read_challenge::<DB>(&mut tx, challenge_id, "").await? {
            write_challenge::<DB>(&mut tx, &started, now).await?;
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

    async fn arrange_games(
        &self,
        arranged_by: &str,
        game_ids: &[String],
    ) -> Result<(), StoreError> {
        let mut tx = self.side.begin_with(DB::BEGIN_WRITE).await?;
        for game_id in game_ids {
            sqlx::query(INSERT_ARRANGED)
                .bind(game_id.as_str())
                .bind(arranged_by)
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    async fn arranged_games_of(&self, player_id: &str) -> Result<Vec<LadderSeat>, StoreError> {
        type Row = (String, i64, i64, Option<String>, Option<i64>, i64);
        let found: Vec<Row> = sqlx::query_as(ARRANGED_GAMES_OF)
            .bind(player_id)
            .fetch_all(&self.side)
            .await?;
        found
            .into_iter()
            .map(|(game_id, seat, players, series_id, index, tables)| {
                Ok(LadderSeat {
                    game_id,
                    seat: rows::seat_from(seat)?,
                    players: rows::small(players, "players")?,
                    series: super::queue::series(series_id, index, tables)?,
                })
            })
            .collect()
    }

    async fn create_tournament(
        &self,
        t: &TournamentRecord,
        max_unfinished: u32,
    ) -> Result<bool, StoreError> {
        let mut tx = self.side.begin_with(DB::BEGIN_WRITE).await?;
        let locked = format!("{}{}", PLAYER_POLICY, DB::LOCK_ROW);
        let _me: Option<(String, String, bool, String)> =
            sqlx::query_as(sqlx::AssertSqlSafe(locked))
                .bind(t.creator_id.as_str())
                .fetch_optional(&mut *tx)
                .await?;
        let (unfinished,): (i64,) = sqlx::query_as(UNFINISHED_TOURNAMENTS_OF)
            .bind(t.creator_id.as_str())
            .fetch_one(&mut *tx)
            .await?;
        if unfinished >= i64::from(max_unfinished) {
            return Ok(false);
        }
        sqlx::query(INSERT_TOURNAMENT)
            .bind(t.id.as_str())
            .bind(t.name.as_str())
            .bind(t.creator_id.as_str())
            .bind(t.format.as_str())
            .bind(i64::from(t.players))
            .bind(i64::from(t.sets_per_pair))
            .bind(t.hero_id.as_deref())
            .bind(i64::from(t.max_entrants))
            .bind(t.rated)
            .bind(i64::from(t.turn_secs))
            .bind(t.status.as_str())
            .bind(t.created_at)
            .execute(&mut *tx)
            .await?;
        for entrant in &t.entrants {
            sqlx::query(INSERT_ENTRANT)
                .bind(t.id.as_str())
                .bind(entrant.player.id.as_str())
                .bind(t.created_at)
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(true)
    }

    async fn tournament(
        &self,
        tournament_id: &str,
    ) -> Result<Option<TournamentRecord>, StoreError> {
        let mut conn = self.side.acquire().await?;
        read_tournament::<DB>(&mut conn, tournament_id, "").await
    }

    async fn enter_tournament(
        &self,
        tournament_id: &str,
        player_id: &str,
        entering: bool,
        now: i64,
    ) -> Result<Option<Result<TournamentRecord, TournamentRefused>>, StoreError> {
        let mut tx = self.side.begin_with(DB::BEGIN_WRITE).await?;
        let Some(t) = read_tournament::<DB>(&mut tx, tournament_id, DB::LOCK_ROW).await? else {
            return Ok(None);
        };
        let already = t.entrants.iter().any(|e| e.player.id == player_id);
        if already == entering {
            // Nothing to change, whatever the tournament's state.
            return Ok(Some(Ok(t)));
        }
        if let Err(refused) = theboss_ladder::tournament::check_entry(&t, entering) {
            return Ok(Some(Err(refused)));
        }
        let statement = if entering {
            INSERT_ENTRANT
        } else {
            DELETE_ENTRANT
        };
        let mut query = sqlx::query(statement).bind(tournament_id).bind(player_id);
        if entering {
            query = query.bind(now);
        }
        query.execute(&mut *tx).await?;
        let entrants = entrants::<DB>(&mut tx, tournament_id).await?;
        tx.commit().await?;
        Ok(Some(Ok(TournamentRecord { entrants, ..t })))
    }

    async fn start_tournament(
        &self,
        tournament_id: &str,
        player_id: &str,
        now: i64,
    ) -> Result<Option<Result<TournamentRecord, TournamentRefused>>, StoreError> {
        let mut tx = self.side.begin_with(DB::BEGIN_WRITE).await?;
        let Some(t) = read_tournament::<DB>(&mut tx, tournament_id, DB::LOCK_ROW).await? else {
            return Ok(None);
        };
        if let Err(refused) = theboss_ladder::tournament::check_start(&t, player_id) {
            return Ok(Some(Err(refused)));
        }
        sqlx::query(START_TOURNAMENT)
            .bind(now)
            .bind(tournament_id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(Some(Ok(TournamentRecord {
            status: TournamentStatus::Running,
            started_at: Some(now),
            ..t
        })))
    }

    async fn list_tournaments(
        &self,
        status: Option<TournamentStatus>,
        limit: u32,
    ) -> Result<Vec<TournamentRecord>, StoreError> {
        let mut conn = self.side.acquire().await?;
        let sql = list_sql(status.is_some());
        let mut query = sqlx::query_as(sqlx::AssertSqlSafe(sql));
        if let Some(status) = status {
            query = query.bind(status.as_str());
        }
        let found: Vec<TournamentRow> = query.bind(i64::from(limit)).fetch_all(&mut *conn).await?;
        let mut tournaments = Vec::with_capacity(found.len());
        for row in found {
            let mut t = tournament_from_row(row)?;
            t.entrants = entrants::<DB>(&mut conn, &t.id).await?;
            tournaments.push(t);
        }
        Ok(tournaments)
    }

    async fn running_tournaments(&self) -> Result<Vec<String>, StoreError> {
        let found: Vec<(String,)> = sqlx::query_as(RUNNING_TOURNAMENTS)
            .fetch_all(&self.side)
            .await?;
        Ok(found.into_iter().map(|(id,)| id).collect())
    }

    async fn tournament_tables(
        &self,
        tournament_id: &str,
    ) -> Result<Vec<ArrangedTable>, StoreError> {
        let mut conn = self.side.acquire().await?;
        type Row = (String, Option<String>, Option<i64>, String, String, String);
        let games: Vec<Row> = sqlx::query_as(TOURNAMENT_GAMES)
            .bind(tournament_id)
            .fetch_all(&mut *conn)
            .await?;
        let seats: Vec<(String, i64, String, String, bool)> = if games.is_empty() {
            Vec::new()
        } else {
            let ids: Vec<&str> = games.iter().map(|g| g.0.as_str()).collect();
            let mut sql = super::listing::seats_of::<DB>(&ids);
            sql.push(" ORDER BY s.game_id, s.seat");
            sql.build_query_as().fetch_all(&mut *conn).await?
        };
        let mut by_game: std::collections::HashMap<&str, Vec<String>> =
            std::collections::HashMap::new();
        for (game_id, _, player_id, ..) in &seats {
            by_game
                .entry(game_id.as_str())
                .or_default()
                .push(player_id.clone());
        }
        games
            .into_iter()
            .map(|(game_id, series_id, index, status, money, acted)| {
                Ok(ArrangedTable {
                    series_id,
                    series_index: rows::small(index.unwrap_or(0), "series index")?,
                    table: SetTable {
                        players: by_game.get(game_id.as_str()).cloned().unwrap_or_default(),
                        status: parse(GameStatus::parse(&status), "status", &status)?.into(),
                        money: rows::money_from_text(&money)?,
                        acted: rows::acted_from_text(&acted)?,
                        game_id,
                    },
                })
            })
            .collect()
    }

    async fn finish_tournament(&self, tournament_id: &str, now: i64) -> Result<(), StoreError> {
        sqlx::query(FINISH_TOURNAMENT)
            .bind(now)
            .bind(tournament_id)
            .execute(&self.side)
            .await?;
        Ok(())
    }
}
