//! Where official schema files come from: the pinned revisions of
//! `schema/versions.toml`, sha256 verification, the per-user cache, the
//! mirror directory and the HTTPS download.
//!
//! A revision resolves, in order, from an explicit file (`--schema FILE`,
//! allowed even when it is not a pinned revision), the cache
//! `<cache>/<revision>/schema.json`, the mirror
//! `$MCPGEN_SCHEMA_MIRROR/<revision>/schema.json`, and finally a download of
//! the pinned URL (cargo feature `download`; disabled by `MCPGEN_OFFLINE=1`).
//! The cache is per user, shared by the command line and every build
//! script ([`default_cache_dir`]): `$MCPGEN_SCHEMA_CACHE`, else
//! `$XDG_CACHE_HOME/mcpgen/schema`, else `%LOCALAPPDATA%\mcpgen\schema` on
//! Windows, else `$HOME/.cache/mcpgen/schema`; never a folder of crate
//! sources (for a user of the published crate those are in cargo's
//! registry, which a build must not write to).
//! Every byte is checked against the pinned sha256 before it is parsed or
//! cached; a mismatch is an error naming the file and both hashes, and
//! nothing is written.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde::Deserialize;
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::error::{stage, Error, ErrorKind, Result};

/// The text of `schema/versions.toml`, compiled into the binary.
const VERSIONS_TOML: &str =
    include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/schema/versions.toml"));

/// The revision used when none is named.
pub const DEFAULT_REVISION: &str = "2025-11-25";

/// One pinned official schema revision.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Pin {
    /// The revision, e.g. `2025-11-25`.
    pub name: String,
    /// The source URL at a fixed commit.
    pub url: String,
    /// Lower-case hex sha256 of the file at `url`.
    pub sha256: String,
    /// JSON Schema dialect: `draft-07` or `2020-12`.
    pub dialect: String,
}

/// Every pinned revision, oldest first.
pub fn pins() -> &'static [Pin] {
    static PINS: OnceLock<Vec<Pin>> = OnceLock::new();
    PINS.get_or_init(|| {
        // The file is part of the source tree and checked by the unit tests;
        // a malformed one is a build defect, not user input.
        read_pins(VERSIONS_TOML).unwrap_or_else(|e| panic!("schema/versions.toml: {e}"))
    })
}

/// The `[[revision]]` tables of `versions.toml`. The file keeps to a
/// subset of TOML that needs no TOML parser (which would weigh on every
/// build script using the generator): `#` comments, table headers, and
/// `key = "value"` lines whose values hold no quote or backslash.
fn read_pins(text: &str) -> std::result::Result<Vec<Pin>, String> {
    let mut tables: Vec<BTreeMap<&str, &str>> = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let at = |what: &str| format!("line {}: {what}", n + 1);
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if line == "[[revision]]" {
            tables.push(BTreeMap::new());
            continue;
        }
        let (key, value) = line
            .split_once('=')
            .ok_or_else(|| at("neither a table header nor `key = \"value\"`"))?;
        let value = value
            .trim()
            .strip_prefix('"')
            .and_then(|v| v.strip_suffix('"'));
        let value = value
            .filter(|v| !v.contains(['"', '\\']))
            .ok_or_else(|| at("the value is not a plain quoted string"))?;
        let table = tables
            .last_mut()
            .ok_or_else(|| at("a key before the first [[revision]]"))?;
        if table.insert(key.trim(), value).is_some() {
            return Err(at("a key given twice"));
        }
    }
    let field = |t: &BTreeMap<&str, &str>, key: &str| {
        t.get(key)
            .map(|v| (*v).to_owned())
            .ok_or_else(|| format!("a [[revision]] without `{key}`"))
    };
    tables
        .iter()
        .map(|t| {
            if let Some(extra) = t
                .keys()
                .find(|k| !["name", "url", "sha256", "dialect"].contains(k))
            {
                return Err(format!("a [[revision]] with the unknown key `{extra}`"));
            }
            Ok(Pin {
                name: field(t, "name")?,
                url: field(t, "url")?,
                sha256: field(t, "sha256")?,
                dialect: field(t, "dialect")?,
            })
        })
        .collect()
}

/// The commands that take a schema file with `--schema FILE` (for hints).
const SCHEMA_FILE_COMMANDS: &str = "`mcpgen generate` and `mcpgen manifest check`";

/// The names of the pinned revisions, oldest first.
pub fn known_revisions() -> Vec<&'static str> {
    pins().iter().map(|p| p.name.as_str()).collect()
}

/// The pin of `revision`, or an error listing the known revisions.
pub fn pin(revision: &str) -> Result<&'static Pin> {
    pins().iter().find(|p| p.name == revision).ok_or_else(|| {
        Error::new(format!("unknown protocol revision `{revision}`")).with_hint(format!(
            "known revisions: {}; {SCHEMA_FILE_COMMANDS} take any other schema file with --schema FILE",
            known_revisions().join(", ")
        ))
    })
}

/// Lower-case hex sha256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut out = String::with_capacity(64);
    for b in digest.iter() {
        out.push_str(&format!("{b:02x}"));
    }
    out
}

/// Where a resolved schema came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// `--schema FILE`.
    Explicit,
    /// The local cache.
    Cache,
    /// `$MCPGEN_SCHEMA_MIRROR`.
    Mirror,
    /// Downloaded from the pinned URL; `cached` says whether it was stored.
    Download {
        /// The URL fetched.
        url: String,
        /// True when the verified file was written to the cache.
        cached: bool,
    },
}

/// A schema file ready for `spec::Spec::from_json`.
#[derive(Debug, Clone)]
pub struct ResolvedSchema {
    /// The revision: the pinned revision the file matches, else the one asked for.
    pub revision: String,
    /// The file read (for a download that could not be cached, the URL).
    pub path: PathBuf,
    /// The parsed schema.
    pub json: Value,
    /// True when the file's sha256 is that of a pinned revision.
    pub pinned: bool,
    /// sha256 of the file.
    pub sha256: String,
    /// Where it came from.
    pub source: Source,
    /// For an explicit file: the revision asked for, when the file turned out
    /// to be a different pinned revision.
    pub requested: Option<String>,
}

impl ResolvedSchema {
    /// One line for the user: which revision, from where, pinned or not.
    pub fn describe(&self) -> String {
        let from = match &self.source {
            Source::Explicit => format!("file {}", self.path.display()),
            Source::Cache => format!("cache {}", self.path.display()),
            Source::Mirror => format!("mirror {}", self.path.display()),
            Source::Download { url, cached: true } => {
                format!("{url} (cached as {})", self.path.display())
            }
            Source::Download { url, cached: false } => format!("{url} (not cached)"),
        };
        let mut line = format!("schema {} from {from}", self.revision);
        if self.pinned {
            line.push_str(", sha256 verified");
        } else {
            line.push_str(&format!(", unpinned (sha256 {})", self.sha256));
        }
        if let Some(req) = &self.requested {
            line.push_str(&format!(
                "; note: the file is pinned revision {}, not {req}",
                self.revision
            ));
        }
        line
    }
}

impl fmt::Display for ResolvedSchema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.describe())
    }
}

/// Fetches the bytes at a URL.
pub type Fetcher = fn(&str) -> Result<Vec<u8>>;

/// Where schemas are looked up: cache directory, mirror, downloader.
///
/// [`Store::from_env`] is what the CLI and `Builder` use; tests build one
/// by hand with temporary directories and a fake fetcher.
#[derive(Debug, Clone)]
pub struct Store {
    /// Cache directory laid out `<revision>/schema.json`.
    pub cache_dir: PathBuf,
    /// Mirror directory laid out `<revision>/schema.json`.
    pub mirror: Option<PathBuf>,
    /// How to download, or `None` when offline.
    pub fetch: Option<Fetcher>,
}

/// The default cache directory, per user: `$MCPGEN_SCHEMA_CACHE`, else
/// `mcpgen/schema` in the user's cache directory (`$XDG_CACHE_HOME`, else
/// `%LOCALAPPDATA%` on Windows, else `$HOME/.cache`), else in the system's
/// temporary directory when none of them is set.
pub fn default_cache_dir() -> PathBuf {
    cache_dir_in(|name| std::env::var_os(name))
}

/// [`default_cache_dir`] with the environment read through `var`. Empty
/// and relative values of the user's directories are ignored (the XDG
/// rule), so the cache never lands in whatever directory a build runs in.
fn cache_dir_in(var: impl Fn(&str) -> Option<OsString>) -> PathBuf {
    if let Some(dir) = var("MCPGEN_SCHEMA_CACHE").filter(|d| !d.is_empty()) {
        return PathBuf::from(dir);
    }
    let dir = |name: &str| var(name).map(PathBuf::from).filter(|d| d.is_absolute());
    let user_cache = dir("XDG_CACHE_HOME")
        .or_else(|| {
            if cfg!(windows) {
                dir("LOCALAPPDATA")
            } else {
                None
            }
        })
        .or_else(|| dir("HOME").map(|home| home.join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    user_cache.join("mcpgen").join("schema")
}

impl Store {
    /// The store configured by the environment: `MCPGEN_SCHEMA_CACHE`,
    /// `MCPGEN_SCHEMA_MIRROR`, `MCPGEN_OFFLINE` (any value but `0` disables
    /// downloads).
    pub fn from_env() -> Self {
        let mirror = std::env::var_os("MCPGEN_SCHEMA_MIRROR")
            .filter(|m| !m.is_empty())
            .map(PathBuf::from);
        let offline = std::env::var("MCPGEN_OFFLINE").is_ok_and(|v| !v.is_empty() && v != "0");
        Self {
            cache_dir: default_cache_dir(),
            mirror,
            fetch: if offline { None } else { default_fetcher() },
        }
    }

    /// Uses `dir` as the mirror when none is configured and `dir` exists:
    /// a checkout's own copy of the official schemas, which the
    /// environment (`MCPGEN_SCHEMA_MIRROR`) still overrides.
    pub fn or_mirror(mut self, dir: impl Into<PathBuf>) -> Self {
        let dir = dir.into();
        if self.mirror.is_none() && dir.is_dir() {
            self.mirror = Some(dir);
        }
        self
    }

    /// The cache path of a revision.
    pub fn cache_path(&self, revision: &str) -> PathBuf {
        self.cache_dir.join(revision).join("schema.json")
    }

    /// The mirror path of a revision, when a mirror is configured.
    pub fn mirror_path(&self, revision: &str) -> Option<PathBuf> {
        self.mirror
            .as_ref()
            .map(|m| m.join(revision).join("schema.json"))
    }

    /// Resolves a revision to a verified, parsed schema (see the module docs
    /// for the order).
    /// Errors are of kind [`ErrorKind::Schema`], or [`ErrorKind::Io`] when
    /// a file could not be read.
    pub fn resolve(&self, revision: &str, explicit_file: Option<&Path>) -> Result<ResolvedSchema> {
        stage(
            self.resolve_unstaged(revision, explicit_file),
            ErrorKind::Schema,
        )
    }

    fn resolve_unstaged(
        &self,
        revision: &str,
        explicit_file: Option<&Path>,
    ) -> Result<ResolvedSchema> {
        if let Some(file) = explicit_file {
            return resolve_explicit(revision, file);
        }
        let pin = pin(revision)?;
        let cache = self.cache_path(revision);
        if cache.is_file() {
            let bytes = read(&cache)?;
            verify(&bytes, pin, &cache.display().to_string()).map_err(|e| {
                e.with_hint(format!(
                    "the cached file is corrupt or was edited; delete {} and run `mcpgen schema pull {revision}`",
                    cache.display()
                ))
            })?;
            return Ok(finish(pin, parse(&bytes, &cache)?, cache, Source::Cache));
        }
        if let Some(mirror) = self.mirror_path(revision) {
            if mirror.is_file() {
                let bytes = read(&mirror)?;
                verify(&bytes, pin, &mirror.display().to_string())?;
                return Ok(finish(pin, parse(&bytes, &mirror)?, mirror, Source::Mirror));
            }
        }
        let Some(fetch) = self.fetch else {
            return Err(self.not_found(pin));
        };
        let bytes = fetch(&pin.url).map_err(|mut e| {
            e.message = format!(
                "schema {revision} is not in the cache or a mirror, and downloading it failed: {}",
                e.message
            );
            e.hint = Some(self.what_to_do(pin));
            e
        })?;
        verify(&bytes, pin, &pin.url)?;
        // Parse before caching so a verified but unparsable file (impossible
        // for a correct pin) is never stored.
        let json = parse(&bytes, Path::new(&pin.url))?;
        let (path, cached) = match write_atomic(&cache, &bytes) {
            Ok(()) => (cache, true),
            Err(_) => (PathBuf::from(&pin.url), false),
        };
        Ok(finish(
            pin,
            json,
            path,
            Source::Download {
                url: pin.url.clone(),
                cached,
            },
        ))
    }

    fn not_found(&self, pin: &Pin) -> Error {
        let mut looked = vec![self.cache_path(&pin.name).display().to_string()];
        if let Some(m) = self.mirror_path(&pin.name) {
            looked.push(m.display().to_string());
        }
        let download = if self.fetch.is_some() {
            ""
        } else {
            " and no download was tried (MCPGEN_OFFLINE is set, or this mcpgen lacks its `download` feature: \
             give the build-dependency `features = [\"download\"]`)"
        };
        Error::new(format!(
            "schema {} is not available offline (looked in {}){download}",
            pin.name,
            looked.join(", ")
        ))
        .with_hint(self.what_to_do(pin))
    }

    /// The ways to get a pinned schema without a download at build time.
    fn what_to_do(&self, pin: &Pin) -> String {
        format!(
            "any one of: set MCPGEN_SCHEMA_MIRROR to a directory laid out <revision>/schema.json; \
             run `mcpgen schema pull --all` once with network access, which fills the cache {} \
             (this revision's file is {}); or commit the generated bindings instead of a build script: \
             `mcpgen generate --out DIR`, checked in CI with `mcpgen generate --check`. \
             {SCHEMA_FILE_COMMANDS} also take the file with --schema FILE",
            self.cache_dir.display(),
            pin.url
        )
    }

    /// Fetches a pinned revision from the mirror or the network (never from
    /// the cache itself), verifies it and writes it into the cache
    /// atomically. A cache entry that already verifies is left alone.
    pub fn pull_one(&self, revision: &str) -> Result<PullOutcome> {
        stage(self.pull_one_unstaged(revision), ErrorKind::Schema)
    }

    fn pull_one_unstaged(&self, revision: &str) -> Result<PullOutcome> {
        let pin = pin(revision)?;
        let cache = self.cache_path(revision);
        if cache.is_file() {
            if let Ok(bytes) = std::fs::read(&cache) {
                if sha256_hex(&bytes) == pin.sha256 {
                    return Ok(PullOutcome {
                        revision: pin.name.clone(),
                        path: cache,
                        action: PullAction::AlreadyCached,
                    });
                }
            }
        }
        let (bytes, from) = match self.mirror_path(revision).filter(|m| m.is_file()) {
            Some(mirror) => {
                let bytes = read(&mirror)?;
                verify(&bytes, pin, &mirror.display().to_string())?;
                (bytes, mirror.display().to_string())
            }
            None => {
                let Some(fetch) = self.fetch else {
                    return Err(self.not_found(pin));
                };
                let bytes = fetch(&pin.url).map_err(|mut e| {
                    e.message = format!("cannot download schema {revision}: {}", e.message);
                    e
                })?;
                verify(&bytes, pin, &pin.url)?;
                (bytes, pin.url.clone())
            }
        };
        parse(&bytes, Path::new(&from))?;
        write_atomic(&cache, &bytes)?;
        Ok(PullOutcome {
            revision: pin.name.clone(),
            path: cache,
            action: PullAction::Fetched { from },
        })
    }

    /// Pulls one revision, or all of them when `revision` is `None`.
    pub fn pull(&self, revision: Option<&str>) -> Result<Vec<PullOutcome>> {
        match revision {
            Some(rev) => Ok(vec![self.pull_one(rev)?]),
            None => pins().iter().map(|p| self.pull_one(&p.name)).collect(),
        }
    }

    /// The cache state of every pinned revision.
    pub fn list(&self) -> Vec<ListEntry> {
        pins()
            .iter()
            .map(|pin| {
                let cache = self.cache_path(&pin.name);
                let state = if !cache.exists() {
                    CacheState::Missing
                } else {
                    match std::fs::read(&cache) {
                        Ok(bytes) => {
                            let actual = sha256_hex(&bytes);
                            if actual == pin.sha256 {
                                CacheState::Verified
                            } else {
                                CacheState::Mismatch { actual }
                            }
                        }
                        Err(e) => CacheState::Unreadable(e.to_string()),
                    }
                };
                let mirror = self.mirror_path(&pin.name).filter(|m| m.is_file());
                ListEntry {
                    pin: pin.clone(),
                    cache_path: cache,
                    state,
                    mirror,
                }
            })
            .collect()
    }
}

/// What `pull` did for one revision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PullOutcome {
    /// The revision.
    pub revision: String,
    /// The cache file.
    pub path: PathBuf,
    /// Whether it was fetched or already there.
    pub action: PullAction,
}

/// See [`PullOutcome`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PullAction {
    /// The cache already held a verified copy.
    AlreadyCached,
    /// Fetched from a mirror path or URL.
    Fetched {
        /// Mirror path or URL.
        from: String,
    },
}

impl fmt::Display for PullOutcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.action {
            PullAction::AlreadyCached => {
                write!(
                    f,
                    "{}: already cached and verified at {}",
                    self.revision,
                    self.path.display()
                )
            }
            PullAction::Fetched { from } => {
                write!(
                    f,
                    "{}: verified and cached at {} (from {from})",
                    self.revision,
                    self.path.display()
                )
            }
        }
    }
}

/// One line of `mcpgen schema list`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListEntry {
    /// The pin.
    pub pin: Pin,
    /// Its cache path.
    pub cache_path: PathBuf,
    /// The state of the cache file.
    pub state: CacheState,
    /// The mirror file, when present.
    pub mirror: Option<PathBuf>,
}

/// State of a cache file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CacheState {
    /// Not cached.
    Missing,
    /// Cached, sha256 matches the pin.
    Verified,
    /// Cached, but the sha256 differs.
    Mismatch {
        /// The file's sha256.
        actual: String,
    },
    /// Present but cannot be read.
    Unreadable(String),
}

impl fmt::Display for ListEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = match &self.state {
            CacheState::Missing => "not cached".to_owned(),
            CacheState::Verified => "cached, verified".to_owned(),
            CacheState::Mismatch { actual } => {
                format!(
                    "cached, SHA256 MISMATCH (file {actual}, pinned {})",
                    self.pin.sha256
                )
            }
            CacheState::Unreadable(e) => format!("cached, unreadable: {e}"),
        };
        write!(f, "{}  {:<8}  {state}", self.pin.name, self.pin.dialect)?;
        if let Some(m) = &self.mirror {
            write!(f, "; mirror {}", m.display())?;
        }
        Ok(())
    }
}

/// `Store::from_env().resolve(..)`.
pub fn resolve(revision: &str, explicit_file: Option<&Path>) -> Result<ResolvedSchema> {
    Store::from_env().resolve(revision, explicit_file)
}

/// `Store::from_env().pull(..)`.
pub fn pull(revision: Option<&str>) -> Result<Vec<PullOutcome>> {
    Store::from_env().pull(revision)
}

/// `Store::from_env().list()`.
pub fn list() -> Vec<ListEntry> {
    Store::from_env().list()
}

fn resolve_explicit(revision: &str, file: &Path) -> Result<ResolvedSchema> {
    let bytes = read(file)?;
    let sha = sha256_hex(&bytes);
    let json = parse(&bytes, file)?;
    let matched = pins().iter().find(|p| p.sha256 == sha);
    let (rev, requested) = match matched {
        Some(p) if p.name != revision => (p.name.clone(), Some(revision.to_owned())),
        Some(p) => (p.name.clone(), None),
        None => (revision.to_owned(), None),
    };
    Ok(ResolvedSchema {
        revision: rev,
        path: file.to_path_buf(),
        json,
        pinned: matched.is_some(),
        sha256: sha,
        source: Source::Explicit,
        requested,
    })
}

fn finish(pin: &Pin, json: Value, path: PathBuf, source: Source) -> ResolvedSchema {
    ResolvedSchema {
        revision: pin.name.clone(),
        path,
        json,
        pinned: true,
        sha256: pin.sha256.clone(),
        source,
        requested: None,
    }
}

fn read(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path).map_err(|e| Error::io("read", path, e))
}

/// Checks `bytes` against the pin; the error names `what` and both hashes.
fn verify(bytes: &[u8], pin: &Pin, what: &str) -> Result<()> {
    let actual = sha256_hex(bytes);
    if actual == pin.sha256 {
        return Ok(());
    }
    Err(Error::new(format!(
        "sha256 mismatch for schema {} from {what}: expected {} (pinned in schema/versions.toml), found {actual}",
        pin.name, pin.sha256
    ))
    .with_hint("the file is not the pinned official schema; nothing was used or written. Replace it with the official file, or pass it with --schema FILE to use it unpinned"))
}

fn parse(bytes: &[u8], path: &Path) -> Result<Value> {
    serde_json::from_slice(bytes).map_err(|e| {
        Error::new(format!("schema is not valid JSON: {e}"))
            .in_file(path)
            .at_line_col(e.line(), e.column())
    })
}

/// Writes `bytes` to `path` through a temporary file in the same directory
/// and a rename, so a reader never sees a partial file.
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(|e| Error::io("create directory", dir, e))?;
    let (tmp, mut file) = crate::emit::create_unique(dir, ".mcpgen-tmp-", |p| {
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(p)
    })
    .map_err(|e| Error::io("create a temporary file in", dir, e))?;
    let written = file
        .write_all(bytes)
        .and_then(|()| file.sync_all())
        .map_err(|e| Error::io("write", &tmp, e))
        .and_then(|()| std::fs::rename(&tmp, path).map_err(|e| Error::io("write", path, e)));
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

#[cfg(feature = "download")]
fn default_fetcher() -> Option<Fetcher> {
    Some(download)
}

#[cfg(not(feature = "download"))]
fn default_fetcher() -> Option<Fetcher> {
    None
}

/// Downloads `url` over HTTPS.
#[cfg(feature = "download")]
pub fn download(url: &str) -> Result<Vec<u8>> {
    let mut response = ureq::get(url)
        .call()
        .map_err(|e| Error::new(format!("GET {url}: {e}")).with_source(e))?;
    response
        .body_mut()
        .with_config()
        .limit(64 * 1024 * 1024)
        .read_to_vec()
        .map_err(|e| Error::new(format!("GET {url}: reading the body: {e}")).with_source(e))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shared_mirror() -> PathBuf {
        crate::shared_data::mirror()
    }

    fn store(cache: &Path, mirror: Option<PathBuf>, fetch: Option<Fetcher>) -> Store {
        Store {
            cache_dir: cache.to_path_buf(),
            mirror,
            fetch,
        }
    }

    /// A fake downloader that serves the shared mirror by URL.
    fn fetch_from_mirror(url: &str) -> Result<Vec<u8>> {
        let pin = pins().iter().find(|p| p.url == url).expect("pinned url");
        Ok(std::fs::read(shared_mirror().join(&pin.name).join("schema.json")).unwrap())
    }

    fn fetch_corrupt(url: &str) -> Result<Vec<u8>> {
        let mut bytes = fetch_from_mirror(url)?;
        bytes.extend_from_slice(b"\n");
        Ok(bytes)
    }

    fn fetch_fails(_url: &str) -> Result<Vec<u8>> {
        Err(Error::new("network unreachable"))
    }

    #[test]
    fn versions_toml_pins_five_revisions_with_urls_at_one_commit() {
        let names = known_revisions();
        assert_eq!(
            names,
            [
                "2024-11-05",
                "2025-03-26",
                "2025-06-18",
                "2025-11-25",
                "2026-07-28"
            ]
        );
        for p in pins() {
            assert!(p.url.starts_with(
                "https://raw.githubusercontent.com/modelcontextprotocol/modelcontextprotocol/"
            ));
            assert!(
                p.url.ends_with(&format!("/schema/{}/schema.json", p.name)),
                "{}",
                p.url
            );
            assert_eq!(p.sha256.len(), 64);
            assert!(p.dialect == "draft-07" || p.dialect == "2020-12");
        }
        assert!(known_revisions().contains(&DEFAULT_REVISION));
    }

    #[test]
    fn the_pins_are_what_a_toml_parser_reads() {
        #[derive(Deserialize)]
        struct VersionsFile {
            revision: Vec<Pin>,
        }
        let parsed: VersionsFile = toml::from_str(VERSIONS_TOML).unwrap();
        assert_eq!(pins(), parsed.revision.as_slice());
        for (text, problem) in [
            (
                "name = \"x\"",
                "line 1: a key before the first [[revision]]",
            ),
            (
                "[[revision]]\nname = x",
                "line 2: the value is not a plain quoted string",
            ),
            (
                "[[revision]]\nname = \"a\\\"b\"",
                "line 2: the value is not a plain quoted string",
            ),
            (
                "[[revision]]\nname = \"a\"\nname = \"b\"",
                "line 3: a key given twice",
            ),
            (
                "[revision]",
                "line 1: neither a table header nor `key = \"value\"`",
            ),
            ("[[revision]]\nname = \"a\"", "a [[revision]] without `url`"),
        ] {
            assert_eq!(read_pins(text).unwrap_err(), problem, "{text}");
        }
    }

    #[test]
    fn pinned_hashes_match_the_shared_mirror() {
        for p in pins() {
            let bytes = std::fs::read(shared_mirror().join(&p.name).join("schema.json")).unwrap();
            assert_eq!(sha256_hex(&bytes), p.sha256, "{}", p.name);
        }
    }

    #[test]
    fn sha256_of_known_input() {
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn unknown_revision_lists_the_known_ones() {
        let tmp = tempfile::tempdir().unwrap();
        let err = store(tmp.path(), Some(shared_mirror()), None)
            .resolve("2099-01-01", None)
            .unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains("unknown protocol revision `2099-01-01`"),
            "{text}"
        );
        for rev in known_revisions() {
            assert!(text.contains(rev), "{text}");
        }
        assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
    }

    #[test]
    fn resolves_from_mirror_without_writing_the_cache() {
        let tmp = tempfile::tempdir().unwrap();
        let s = store(tmp.path(), Some(shared_mirror()), None);
        let r = s.resolve("2025-06-18", None).unwrap();
        assert_eq!(r.revision, "2025-06-18");
        assert_eq!(r.source, Source::Mirror);
        assert!(r.pinned);
        assert!(r.json.get("definitions").is_some());
        assert!(!s.cache_path("2025-06-18").exists());
        assert!(r.describe().contains("sha256 verified"));
    }

    #[test]
    fn cache_wins_over_mirror() {
        let tmp = tempfile::tempdir().unwrap();
        let s = store(tmp.path(), Some(shared_mirror()), None);
        s.pull_one("2025-11-25").unwrap();
        let r = s.resolve("2025-11-25", None).unwrap();
        assert_eq!(r.source, Source::Cache);
        assert_eq!(r.path, s.cache_path("2025-11-25"));
        assert!(r.json.get("$defs").is_some());
    }

    #[test]
    fn corrupt_cache_is_an_error_naming_file_and_hashes() {
        let tmp = tempfile::tempdir().unwrap();
        let s = store(tmp.path(), Some(shared_mirror()), None);
        let path = s.cache_path("2024-11-05");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, b"{}").unwrap();
        let text = s.resolve("2024-11-05", None).unwrap_err().to_string();
        assert!(text.contains(&path.display().to_string()), "{text}");
        assert!(text.contains(&pin("2024-11-05").unwrap().sha256), "{text}");
        assert!(text.contains(&sha256_hex(b"{}")), "{text}");
        assert!(text.contains("schema pull 2024-11-05"), "{text}");
        // list reports it; pull repairs it.
        let entry = s
            .list()
            .into_iter()
            .find(|e| e.pin.name == "2024-11-05")
            .unwrap();
        assert_eq!(
            entry.state,
            CacheState::Mismatch {
                actual: sha256_hex(b"{}")
            }
        );
        assert!(matches!(
            s.pull_one("2024-11-05").unwrap().action,
            PullAction::Fetched { .. }
        ));
        assert_eq!(s.resolve("2024-11-05", None).unwrap().source, Source::Cache);
    }

    #[test]
    fn corrupt_mirror_is_an_error_and_nothing_is_cached() {
        let tmp = tempfile::tempdir().unwrap();
        let mirror = tmp.path().join("mirror");
        std::fs::create_dir_all(mirror.join("2025-03-26")).unwrap();
        std::fs::write(mirror.join("2025-03-26/schema.json"), b"{\"x\": 1}").unwrap();
        let cache = tmp.path().join("cache");
        let s = store(&cache, Some(mirror.clone()), Some(fetch_from_mirror));
        for err in [
            s.resolve("2025-03-26", None).unwrap_err(),
            s.pull_one("2025-03-26").unwrap_err(),
        ] {
            let text = err.to_string();
            assert!(text.contains("sha256 mismatch"), "{text}");
            assert!(
                text.contains(&mirror.join("2025-03-26/schema.json").display().to_string()),
                "{text}"
            );
            assert!(text.contains(&pin("2025-03-26").unwrap().sha256), "{text}");
            assert!(text.contains(&sha256_hex(b"{\"x\": 1}")), "{text}");
        }
        assert!(!cache.exists());
    }

    #[test]
    fn download_is_verified_then_cached() {
        let tmp = tempfile::tempdir().unwrap();
        let s = store(tmp.path(), None, Some(fetch_from_mirror));
        let r = s.resolve("2026-07-28", None).unwrap();
        assert!(matches!(r.source, Source::Download { cached: true, .. }));
        assert_eq!(r.path, s.cache_path("2026-07-28"));
        let cached = std::fs::read(s.cache_path("2026-07-28")).unwrap();
        assert_eq!(sha256_hex(&cached), pin("2026-07-28").unwrap().sha256);
        // No temporary files left next to it.
        let leftovers: Vec<_> = std::fs::read_dir(tmp.path().join("2026-07-28"))
            .unwrap()
            .collect();
        assert_eq!(leftovers.len(), 1);
    }

    #[test]
    fn corrupt_download_writes_nothing() {
        let tmp = tempfile::tempdir().unwrap();
        let s = store(tmp.path(), None, Some(fetch_corrupt));
        for err in [
            s.resolve("2025-11-25", None).unwrap_err(),
            s.pull_one("2025-11-25").unwrap_err(),
        ] {
            let text = err.to_string();
            assert!(text.contains("sha256 mismatch"), "{text}");
            assert!(text.contains(&pin("2025-11-25").unwrap().url), "{text}");
        }
        assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0);
    }

    #[test]
    fn offline_without_mirror_says_what_to_do() {
        let tmp = tempfile::tempdir().unwrap();
        let text = store(tmp.path(), None, None)
            .resolve("2025-11-25", None)
            .unwrap_err()
            .to_string();
        assert!(text.contains("not available offline"), "{text}");
        assert!(text.contains("MCPGEN_SCHEMA_MIRROR"), "{text}");
        assert!(text.contains("no download was tried"), "{text}");
        let text = store(tmp.path(), None, Some(fetch_fails))
            .resolve("2025-11-25", None)
            .unwrap_err()
            .to_string();
        assert!(text.contains("network unreachable"), "{text}");
        assert!(text.contains("--schema FILE"), "{text}");
        // Both say every way out: a mirror, pulling ahead, committed bindings.
        for text in [
            store(tmp.path(), None, None)
                .resolve("2025-11-25", None)
                .unwrap_err()
                .to_string(),
            text,
        ] {
            for way in [
                "MCPGEN_SCHEMA_MIRROR",
                "`mcpgen schema pull --all`",
                "`mcpgen generate --check`",
            ] {
                assert!(text.contains(way), "{way}: {text}");
            }
            assert!(
                text.contains(&tmp.path().display().to_string()),
                "names the cache: {text}"
            );
        }
    }

    #[test]
    fn the_cache_is_per_user_and_never_relative() {
        let env = |vars: &'static [(&'static str, &'static str)]| {
            cache_dir_in(move |name| {
                vars.iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| OsString::from(v))
            })
        };
        let home = &[("HOME", "/home/u")];
        assert_eq!(env(home), Path::new("/home/u/.cache/mcpgen/schema"));
        let xdg = &[("HOME", "/home/u"), ("XDG_CACHE_HOME", "/var/cache/u")];
        assert_eq!(env(xdg), Path::new("/var/cache/u/mcpgen/schema"));
        let relative = &[("HOME", "/home/u"), ("XDG_CACHE_HOME", "cache")];
        assert_eq!(env(relative), Path::new("/home/u/.cache/mcpgen/schema"));
        let chosen = &[("HOME", "/home/u"), ("MCPGEN_SCHEMA_CACHE", "/tmp/c")];
        assert_eq!(env(chosen), Path::new("/tmp/c"));
        assert_eq!(env(&[]), std::env::temp_dir().join("mcpgen").join("schema"));
    }

    #[test]
    fn explicit_file_matching_a_pin_is_pinned() {
        let file = shared_mirror().join("2025-06-18/schema.json");
        let r = resolve_explicit("2025-06-18", &file).unwrap();
        assert!(r.pinned);
        assert_eq!(r.source, Source::Explicit);
        assert_eq!(r.requested, None);
        // Another revision's file: recognised, and the note says so.
        let r = resolve_explicit("2025-11-25", &file).unwrap();
        assert!(r.pinned);
        assert_eq!(r.revision, "2025-06-18");
        assert_eq!(r.requested.as_deref(), Some("2025-11-25"));
        assert!(
            r.describe()
                .contains("pinned revision 2025-06-18, not 2025-11-25"),
            "{}",
            r.describe()
        );
    }

    #[test]
    fn explicit_unpinned_file_is_allowed_and_reported() {
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("draft.json");
        std::fs::write(&file, br#"{"$defs": {}}"#).unwrap();
        let r = resolve_explicit("draft-x", &file).unwrap();
        assert!(!r.pinned);
        assert_eq!(r.revision, "draft-x");
        assert!(r.describe().contains("unpinned"), "{}", r.describe());
        // An unknown revision name is fine with an explicit file.
        let s = store(tmp.path(), None, None);
        assert!(!s.resolve("anything", Some(&file)).unwrap().pinned);
    }

    #[test]
    fn explicit_invalid_json_names_line_and_column() {
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("bad.json");
        std::fs::write(&file, b"{\n  \"a\": ,\n}").unwrap();
        let text = resolve_explicit("x", &file).unwrap_err().to_string();
        assert!(text.contains(&format!("{}:2:", file.display())), "{text}");
    }

    #[test]
    fn pull_all_then_list_reports_verified() {
        let tmp = tempfile::tempdir().unwrap();
        let s = store(tmp.path(), Some(shared_mirror()), None);
        assert!(s
            .list()
            .iter()
            .all(|e| e.state == CacheState::Missing && e.mirror.is_some()));
        let out = s.pull(None).unwrap();
        assert_eq!(out.len(), 5);
        assert!(out
            .iter()
            .all(|o| matches!(o.action, PullAction::Fetched { .. })));
        assert!(s.list().iter().all(|e| e.state == CacheState::Verified));
        let again = s.pull(Some("2025-11-25")).unwrap();
        assert_eq!(again[0].action, PullAction::AlreadyCached);
        assert!(s.list()[0].to_string().contains("cached, verified"));
    }

    #[test]
    fn pull_unknown_revision_is_an_error() {
        let tmp = tempfile::tempdir().unwrap();
        let s = store(tmp.path(), Some(shared_mirror()), None);
        let text = s.pull(Some("1999-01-01")).unwrap_err().to_string();
        assert!(text.contains("known revisions: 2024-11-05"), "{text}");
    }
}
