//! Where a client keeps what authorization gave it, per MCP endpoint: the
//! authorization server it used, the client registration there, the
//! tokens. [`MemoryTokenStore`] for one process; [`FileTokenStore`] for command-line
//! tools (a JSON file created with mode 0600). Secrets never appear in
//! `Debug` output or logs.

use std::collections::HashMap;
use std::fmt;
use std::path::PathBuf;
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

use super::registration::ClientCredentials;
use super::AuthError;

/// What authorization left for one MCP endpoint.
#[derive(Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct StoredAuth {
    /// The issuer of the authorization server the tokens come from.
    pub issuer: String,
    /// The client's identity at that server.
    pub client: Option<ClientCredentials>,
    /// The access token.
    pub access_token: Option<String>,
    /// The refresh token.
    pub refresh_token: Option<String>,
    /// When the access token expires (seconds since the Unix epoch).
    pub expires_at: Option<u64>,
    /// The scopes requested so far (their union).
    #[serde(default)]
    pub scopes: Vec<String>,
    /// The access token is DPoP-bound (`token_type` `DPoP`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub dpop_bound: bool,
    /// The private key the tokens are bound to (base64url P-256 scalar),
    /// when DPoP is used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dpop_key: Option<String>,
}

impl fmt::Debug for StoredAuth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let hidden = |s: &Option<String>| s.as_ref().map(|_| "<redacted>");
        f.debug_struct("StoredAuth")
            .field("issuer", &self.issuer)
            .field("client", &self.client)
            .field("access_token", &hidden(&self.access_token))
            .field("refresh_token", &hidden(&self.refresh_token))
            .field("expires_at", &self.expires_at)
            .field("scopes", &self.scopes)
            .field("dpop_bound", &self.dpop_bound)
            .field("dpop_key", &hidden(&self.dpop_key))
            .finish()
    }
}

/// Keeps [`StoredAuth`] per MCP endpoint URL.
pub trait TokenStore: Send + Sync {
    /// What is stored for `resource`.
    fn load(&self, resource: &str) -> Result<Option<StoredAuth>, AuthError>;
    /// Replaces what is stored for `resource`.
    fn save(&self, resource: &str, auth: &StoredAuth) -> Result<(), AuthError>;
}

/// Tokens in memory, gone with the process.
#[derive(Default)]
pub struct MemoryTokenStore {
    entries: Mutex<HashMap<String, StoredAuth>>,
}

impl MemoryTokenStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }
}

impl fmt::Debug for MemoryTokenStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let n = self.entries.lock().map(|e| e.len()).unwrap_or(0);
        f.debug_struct("MemoryTokenStore")
            .field("entries", &n)
            .finish()
    }
}

impl TokenStore for MemoryTokenStore {
    fn load(&self, resource: &str) -> Result<Option<StoredAuth>, AuthError> {
        Ok(self
            .entries
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(resource)
            .cloned())
    }

    fn save(&self, resource: &str, auth: &StoredAuth) -> Result<(), AuthError> {
        self.entries
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(resource.to_owned(), auth.clone());
        Ok(())
    }
}

/// Tokens in a JSON file (an object keyed by endpoint URL), created with
/// mode 0600 and replaced atomically.
#[derive(Debug)]
pub struct FileTokenStore {
    path: PathBuf,
    lock: Mutex<()>,
}

impl FileTokenStore {
    /// A store in the file at `path` (created on first save, with its
    /// directory).
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Self {
            path: path.into(),
            lock: Mutex::new(()),
        }
    }

    /// The file's path.
    pub fn path(&self) -> &std::path::Path {
        &self.path
    }

    fn read_all(&self) -> Result<HashMap<String, StoredAuth>, AuthError> {
        match std::fs::read(&self.path) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| {
                AuthError::new(format!(
                    "the token file {} is not valid ({e}); delete it to log in again",
                    self.path.display()
                ))
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(HashMap::new()),
            Err(e) => Err(AuthError::new(format!(
                "cannot read the token file {}: {e}",
                self.path.display()
            ))),
        }
    }
}

impl TokenStore for FileTokenStore {
    fn load(&self, resource: &str) -> Result<Option<StoredAuth>, AuthError> {
        let _guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        Ok(self.read_all()?.remove(resource))
    }

    fn save(&self, resource: &str, auth: &StoredAuth) -> Result<(), AuthError> {
        let _guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        let mut all = self.read_all()?;
        all.insert(resource.to_owned(), auth.clone());
        let text = serde_json::to_vec_pretty(&all).map_err(|e| AuthError::new(e.to_string()))?;
        let fail = |e: std::io::Error| {
            AuthError::new(format!(
                "cannot write the token file {}: {e}",
                self.path.display()
            ))
        };
        if let Some(dir) = self.path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(fail)?;
        }
        let tmp = self
            .path
            .with_extension(format!("tmp{}", std::process::id()));
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create(true).truncate(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.mode(0o600);
        }
        {
            use std::io::Write;
            let mut file = options.open(&tmp).map_err(fail)?;
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                file.set_permissions(std::fs::Permissions::from_mode(0o600))
                    .map_err(fail)?;
            }
            file.write_all(&text).map_err(fail)?;
            file.sync_all().map_err(fail)?;
        }
        std::fs::rename(&tmp, &self.path).map_err(fail)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> StoredAuth {
        StoredAuth {
            issuer: "http://localhost:1".into(),
            client: Some(ClientCredentials::new("id").secret("very-secret")),
            access_token: Some("the-access-token".into()),
            refresh_token: Some("the-refresh-token".into()),
            expires_at: Some(10),
            scopes: vec!["a".into()],
            dpop_bound: true,
            dpop_key: Some("the-dpop-key".into()),
        }
    }

    #[test]
    fn debug_output_hides_every_secret() {
        let shown = format!("{:?}", sample());
        for secret in [
            "the-access-token",
            "the-refresh-token",
            "very-secret",
            "the-dpop-key",
        ] {
            assert!(!shown.contains(secret), "{shown}");
        }
        assert!(shown.contains("http://localhost:1"));
    }

    #[test]
    fn the_file_store_round_trips_with_mode_0600() {
        let dir = std::env::temp_dir().join(format!("mcpgen-filestore-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let store = FileTokenStore::new(dir.join("sub/tokens.json"));
        assert_eq!(store.load("http://h/mcp").unwrap(), None);
        store.save("http://h/mcp", &sample()).unwrap();
        store
            .save("http://other/mcp", &StoredAuth::default())
            .unwrap();
        assert_eq!(store.load("http://h/mcp").unwrap(), Some(sample()));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(store.path())
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        std::fs::write(store.path(), "not json").unwrap();
        assert!(store
            .load("http://h/mcp")
            .unwrap_err()
            .message()
            .contains("delete it"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
