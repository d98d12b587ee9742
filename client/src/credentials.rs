//! The API token a player got from `Register`, saved per server in a small JSON file so the
//! same identity is used next time (mode 0600 on Unix: the token is a secret).

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Credentials {
    pub player_id: String,
    pub api_token: String,
    pub display_name: String,
}

impl Credentials {
    /// `<config dir>/theboss/bot-credentials.json`.
    pub fn default_path() -> Option<PathBuf> {
        Credentials::path_in_config_dir("bot-credentials.json")
    }

    /// `<config dir>/theboss/<file>` (e.g. `~/.config/theboss/…` on Linux).
    pub fn path_in_config_dir(file: &str) -> Option<PathBuf> {
        Some(dirs::config_dir()?.join("theboss").join(file))
    }

    /// The credentials saved for `server`, if any.
    pub fn load(path: &Path, server: &str) -> io::Result<Option<Credentials>> {
        Ok(read_all(path)?.remove(server))
    }

    /// Saves the credentials for `server`, keeping those of other servers.
    pub fn save(&self, path: &Path, server: &str) -> io::Result<()> {
        let mut all = read_all(path)?;
        all.insert(server.to_string(), self.clone());
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let json = serde_json::to_string_pretty(&all).map_err(io::Error::other)?;
        // Write then rename, so a crash never leaves half a file.
        let tmp = path.with_extension("json.tmp");
        std::fs::write(&tmp, json)?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o600))?;
        }
        std::fs::rename(tmp, path)
    }
}

fn read_all(path: &Path) -> io::Result<BTreeMap<String, Credentials>> {
    match std::fs::read_to_string(path) {
        Ok(text) => serde_json::from_str(&text).map_err(|e| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("{}: {e}", path.display()),
            )
        }),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(BTreeMap::new()),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn saves_per_server_and_loads_back() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub").join("creds.json");
        assert_eq!(Credentials::load(&path, "a").unwrap(), None);
        let a = Credentials {
            player_id: "p1".into(),
            api_token: "tb_1".into(),
            display_name: "A".into(),
        };
        let b = Credentials {
            player_id: "p2".into(),
            ..a.clone()
        };
        a.save(&path, "http://a").unwrap();
        b.save(&path, "http://b").unwrap();
        assert_eq!(Credentials::load(&path, "http://a").unwrap(), Some(a));
        assert_eq!(Credentials::load(&path, "http://b").unwrap(), Some(b));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
    }
}
