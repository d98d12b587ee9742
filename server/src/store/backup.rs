//! Backups the server makes itself: of an SQLite store, the embedded default (a PostgreSQL
//! store is backed up by PostgreSQL's own tools; docs/operations.md).

use thiserror::Error;

use super::{SqliteStore, StoreError};

/// Why a store cannot be backed up by the server itself.
#[derive(Debug, Error)]
pub enum BackupError {
    #[error(
        "a PostgreSQL store is backed up by PostgreSQL's own tools (pgBackRest, pg_dump): see docs/operations.md"
    )]
    Postgres,
    #[error("{0} exists already: a backup never overwrites a file")]
    Exists(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Backs up the SQLite store a URL names into a new file `out` (see
/// [`SqliteStore::back_up`]), safely while a server runs on it.
pub async fn back_up(url: &str, out: &std::path::Path) -> Result<(), BackupError> {
    if super::is_postgres(url) {
        return Err(BackupError::Postgres);
    }
    if !url.starts_with("sqlite:") {
        return Err(StoreError::UnsupportedUrl(super::redact_url(url)).into());
    }
    if out.exists() {
        return Err(BackupError::Exists(out.display().to_string()));
    }
    let store = SqliteStore::connect(url).await?;
    store.back_up(out).await?;
    store.pool.close().await;
    Ok(())
}
