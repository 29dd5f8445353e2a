//! The skills a server serves (the Skills extension, feature `skills`):
//! [`Skills`], read from a directory or given as files, checked once, and
//! the answers built from it: `skills/list`, `skills/get`, the `SKILL.md`
//! entries of `resources/list`, `resources/read` of any skill file and
//! `resources/directory/read` of any directory under `skill://`.
//!
//! Every directory holding a `SKILL.md` is a skill, named by its last
//! segment, which must equal the frontmatter's `name`; a skill's files are
//! every file beneath it (a nested skill's files are also its parent's).
//! Digests and sizes are computed once, from the bytes served.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use base64::Engine as _;
use serde_json::{json, Value};

use crate::jsonrpc::RpcError;
use crate::skills::{
    self, SkillEntry, SkillFile, SkillResources, DIRECTORY, MARKDOWN, MAX_BYTES, MAX_FILES, SCHEME,
    SKILL_FILE,
};

/// Why a set of skills was refused; says which file and what to change.
#[derive(Debug)]
pub struct SkillsError {
    /// The file or directory at fault (relative to the skills' root).
    pub path: String,
    /// What is wrong and what to do.
    pub message: String,
}

impl fmt::Display for SkillsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "skill file {}: {}", self.path, self.message)
    }
}

impl std::error::Error for SkillsError {}

fn refuse(path: &str, message: impl Into<String>) -> SkillsError {
    SkillsError {
        path: path.to_owned(),
        message: message.into(),
    }
}

/// One served file.
#[derive(Debug)]
struct File {
    mime: &'static str,
    bytes: Arc<[u8]>,
}

/// The skills a server serves, checked: give them to
/// [`crate::ServerBuilder::skills`].
#[derive(Debug, Default)]
pub struct Skills {
    /// Each skill's entry, by directory path (sorted: the listing order).
    entries: Vec<Value>,
    /// Each skill's `SKILL.md` URI, in the order of `entries`.
    uris: Vec<String>,
    /// Every file by URI.
    files: BTreeMap<String, File>,
    /// Every directory's direct children, by directory URI.
    directories: BTreeMap<String, Vec<Value>>,
    /// The `resources/list` entries of the `SKILL.md` files.
    listed: Vec<Value>,
}

impl Skills {
    /// Reads every file under `root`; each directory holding a `SKILL.md`
    /// is a skill. Symbolic links to directories are not followed.
    pub fn from_dir(root: impl AsRef<Path>) -> Result<Skills, SkillsError> {
        let root = root.as_ref();
        let mut files = Vec::new();
        walk(root, root, &mut files)?;
        if files.is_empty() {
            return Err(refuse(
                &root.display().to_string(),
                "no files here; put each skill in a directory of its own with a SKILL.md",
            ));
        }
        Skills::from_files(files)
    }

    /// Skills from `(path, bytes)` pairs, paths relative to the skills'
    /// root with `/` between segments (`pdf/SKILL.md`,
    /// `pdf/references/FORMS.md`), e.g. from `include_bytes!`.
    pub fn from_files<P, B>(files: impl IntoIterator<Item = (P, B)>) -> Result<Skills, SkillsError>
    where
        P: Into<String>,
        B: Into<Vec<u8>>,
    {
        let mut by_path: BTreeMap<String, Arc<[u8]>> = BTreeMap::new();
        for (path, bytes) in files {
            let path = path.into();
            check_path(&path)?;
            if by_path.insert(path.clone(), bytes.into().into()).is_some() {
                return Err(refuse(&path, "given twice"));
            }
        }
        let mut skills = Skills::default();
        let roots: Vec<String> = by_path
            .keys()
            .filter_map(|p| {
                (p == SKILL_FILE)
                    .then(String::new)
                    .or_else(|| p.strip_suffix(&format!("/{SKILL_FILE}")).map(str::to_owned))
            })
            .collect();
        for root in &roots {
            skills.add_skill(root, &by_path)?;
        }
        if skills.entries.is_empty() {
            return Err(refuse(
                "",
                "no SKILL.md among the files; each skill is a directory with a SKILL.md",
            ));
        }
        for (path, bytes) in &by_path {
            let uri = format!("{SCHEME}{path}");
            let mime = if path.ends_with(&format!("/{SKILL_FILE}")) {
                MARKDOWN
            } else {
                media_type(path)
            };
            skills.add_to_directories(path, mime, bytes.len());
            skills.files.insert(
                uri,
                File {
                    mime,
                    bytes: Arc::clone(bytes),
                },
            );
        }
        Ok(skills)
    }

    /// Checks and lists the skill in directory `dir`.
    fn add_skill(
        &mut self,
        dir: &str,
        by_path: &BTreeMap<String, Arc<[u8]>>,
    ) -> Result<(), SkillsError> {
        let skill_md = format!("{dir}/{SKILL_FILE}");
        if dir.is_empty() {
            return Err(refuse(
                SKILL_FILE,
                "a SKILL.md at the root has no name; put each skill in a directory named after it",
            ));
        }
        let text = std::str::from_utf8(&by_path[&skill_md])
            .map_err(|_| refuse(&skill_md, "is not UTF-8 text"))?;
        let frontmatter = skills::frontmatter(text).map_err(|m| refuse(&skill_md, m))?;
        let name = dir.rsplit('/').next().unwrap_or(dir);
        if !skills::valid_name(name) {
            return Err(refuse(
                dir,
                "a skill's directory name must be 1-64 lowercase letters, digits and single \
                 hyphens, not starting or ending with one",
            ));
        }
        if frontmatter.get("name").and_then(Value::as_str) != Some(name) {
            return Err(refuse(
                &skill_md,
                format!("the frontmatter's `name` must be `{name}`, the directory's name"),
            ));
        }
        // SKILL.md first, then the other files in path order.
        let prefix = format!("{dir}/");
        let mut files = vec![(&skill_md, &by_path[&skill_md])];
        files.extend(
            by_path
                .range(prefix.clone()..)
                .take_while(|(p, _)| p.starts_with(&prefix))
                .filter(|(p, _)| **p != skill_md),
        );
        if files.len() > MAX_FILES {
            return Err(refuse(
                dir,
                format!(
                    "{} files; a skill may hold at most {MAX_FILES}: split it",
                    files.len()
                ),
            ));
        }
        let total: u64 = files.iter().map(|(_, b)| b.len() as u64).sum();
        if total > MAX_BYTES {
            return Err(refuse(
                dir,
                format!("{total} bytes; a skill may hold at most {MAX_BYTES}: split it"),
            ));
        }
        let uri = format!("{SCHEME}{skill_md}");
        let resources = files
            .iter()
            .map(|(path, bytes)| SkillFile {
                uri: format!("{SCHEME}{path}"),
                digest: skills::digest(bytes),
                size: bytes.len() as u64,
            })
            .collect();
        let description = frontmatter.get("description").cloned();
        let entry = SkillEntry {
            uri: uri.clone(),
            frontmatter,
            resources: SkillResources::Listed(resources),
        };
        self.listed.push(json!({
            "uri": uri,
            "name": name,
            "description": description,
            "mimeType": MARKDOWN,
            "size": by_path[&skill_md].len(),
        }));
        self.entries
            .push(serde_json::to_value(entry).unwrap_or(Value::Null));
        self.uris.push(uri);
        Ok(())
    }

    /// Adds the file at `path` and every directory above it to the
    /// directory listings.
    fn add_to_directories(&mut self, path: &str, mime: &'static str, size: usize) {
        let mut child = json!({
            "uri": format!("{SCHEME}{path}"),
            "name": path.rsplit('/').next().unwrap_or(path),
            "mimeType": mime,
            "size": size,
        });
        let mut rest = path;
        while let Some((parent, _)) = rest.rsplit_once('/') {
            let uri = format!("{SCHEME}{parent}");
            let children = self.directories.entry(uri.clone()).or_default();
            let known = children.iter().any(|c| c["uri"] == child["uri"]);
            if !known {
                children.push(child);
            }
            if known {
                // Its parents list it already.
                return;
            }
            child = json!({
                "uri": uri,
                "name": parent.rsplit('/').next().unwrap_or(parent),
                "mimeType": DIRECTORY,
            });
            rest = parent;
        }
    }

    /// How many skills there are.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are none (never, once built).
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The skills' entries, in listing order.
    pub(crate) fn entries(&self) -> &[Value] {
        &self.entries
    }

    /// The `resources/list` entries of the `SKILL.md` files.
    pub(crate) fn listed(&self) -> &[Value] {
        &self.listed
    }

    /// Whether `uri` is a file or directory served here.
    pub(crate) fn holds(&self, uri: &str) -> bool {
        self.files.contains_key(uri) || self.directories.contains_key(uri)
    }

    /// Whether `uri` is a file served here.
    pub(crate) fn has_file(&self, uri: &str) -> bool {
        self.files.contains_key(uri)
    }

    /// `skills/get`: the entry of the skill whose `SKILL.md` is `uri`.
    pub(crate) fn get(&self, uri: &str) -> Result<Value, RpcError> {
        match self.uris.iter().position(|u| u == uri) {
            Some(i) => Ok(json!({ "skill": self.entries[i] })),
            None => Err(RpcError::invalid_params(format!(
                "Unknown skill: {uri}; skills/list names the skills this server has"
            ))
            .with_data(json!({ "uri": uri }))),
        }
    }

    /// `resources/read` of a skill file: its one content, as text when
    /// its bytes are UTF-8 and as base64 otherwise.
    pub(crate) fn read(&self, uri: &str) -> Option<Value> {
        let file = self.files.get(uri)?;
        let content = match std::str::from_utf8(&file.bytes) {
            Ok(text) => json!({ "uri": uri, "mimeType": file.mime, "text": text }),
            Err(_) => json!({
                "uri": uri,
                "mimeType": file.mime,
                "blob": base64::engine::general_purpose::STANDARD.encode(&file.bytes),
            }),
        };
        Some(json!({ "contents": [content] }))
    }

    /// The direct children of directory `uri`, or why there are none.
    pub(crate) fn directory(&self, uri: &str) -> Result<&[Value], RpcError> {
        if let Some(children) = self.directories.get(uri) {
            return Ok(children);
        }
        let message = if self.files.contains_key(uri) {
            format!("{uri} is a file, not a directory; read it with resources/read")
        } else {
            format!("Resource not found: no directory {uri} on this server")
        };
        Err(RpcError::invalid_params(message).with_data(json!({ "uri": uri })))
    }
}

/// Checks that `path` is relative, with URI-safe segments.
fn check_path(path: &str) -> Result<(), SkillsError> {
    let safe =
        |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_' | '~' | '+' | '@');
    for segment in path.split('/') {
        if segment.is_empty() || segment == "." || segment == ".." {
            return Err(refuse(
                path,
                "paths are relative, with no empty, `.` or `..` segment",
            ));
        }
        if !segment.chars().all(safe) {
            return Err(refuse(
                path,
                "file and directory names may hold only ASCII letters, digits and `-._~+@`; \
                 rename it",
            ));
        }
    }
    Ok(())
}

/// Collects every file under `dir` with its path relative to `root`.
fn walk(root: &Path, dir: &Path, files: &mut Vec<(String, Vec<u8>)>) -> Result<(), SkillsError> {
    let shown = |p: &Path| p.display().to_string();
    let entries = std::fs::read_dir(dir).map_err(|e| refuse(&shown(dir), e.to_string()))?;
    let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    for path in paths {
        let linked = std::fs::symlink_metadata(&path)
            .map(|m| m.file_type().is_symlink())
            .unwrap_or(false);
        if path.is_dir() {
            if !linked {
                walk(root, &path, files)?;
            }
            continue;
        }
        let relative = path
            .strip_prefix(root)
            .map_err(|_| refuse(&shown(&path), "outside the skills' directory"))?;
        let name = relative
            .components()
            .map(|c| c.as_os_str().to_str())
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| refuse(&shown(&path), "its name is not UTF-8; rename it"))?
            .join("/");
        let bytes = std::fs::read(&path).map_err(|e| refuse(&name, e.to_string()))?;
        files.push((name, bytes));
    }
    Ok(())
}

/// The media type a file is served with, from its extension.
fn media_type(path: &str) -> &'static str {
    let extension = path
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default();
    match extension.as_str() {
        "md" | "markdown" => MARKDOWN,
        "txt" => "text/plain",
        "json" => "application/json",
        "yaml" | "yml" => "application/yaml",
        "toml" => "application/toml",
        "py" => "text/x-python",
        "sh" => "application/x-sh",
        "js" | "mjs" => "text/javascript",
        "ts" => "text/typescript",
        "rs" => "text/x-rust",
        "html" | "htm" => "text/html",
        "css" => "text/css",
        "csv" => "text/csv",
        "xml" => "application/xml",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "pdf" => "application/pdf",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PDF: &str = "---\nname: pdf\ndescription: Read PDFs\n---\n\nUse it.\n";

    fn sample() -> Skills {
        Skills::from_files([
            ("pdf/SKILL.md", PDF.as_bytes().to_vec()),
            ("pdf/references/FORMS.md", b"Forms.\n".to_vec()),
            ("pdf/logo.png", vec![0x89, b'P', b'N', b'G', 0xff]),
        ])
        .unwrap()
    }

    #[test]
    fn entries_list_every_file_with_its_digest() {
        let skills = sample();
        let entry = &skills.entries()[0];
        assert_eq!(entry["uri"], "skill://pdf/SKILL.md");
        assert_eq!(entry["frontmatter"]["name"], "pdf");
        let resources = entry["resources"].as_array().unwrap();
        assert_eq!(resources[0]["uri"], "skill://pdf/SKILL.md");
        assert_eq!(resources[0]["size"], PDF.len());
        assert_eq!(resources[0]["digest"], skills::digest(PDF.as_bytes()));
        assert_eq!(resources.len(), 3);
        assert_eq!(skills.listed()[0]["description"], "Read PDFs");
        assert_eq!(skills.get("skill://pdf/SKILL.md").unwrap()["skill"], *entry);
        let unknown = skills.get("skill://nope/SKILL.md").unwrap_err();
        assert_eq!(unknown.code, -32602);
    }

    #[test]
    fn directories_list_their_direct_children() {
        let skills = sample();
        let root = skills.directory("skill://pdf").unwrap();
        let names: Vec<(&str, &str)> = root
            .iter()
            .map(|c| (c["name"].as_str().unwrap(), c["mimeType"].as_str().unwrap()))
            .collect();
        assert_eq!(
            names,
            [
                ("SKILL.md", MARKDOWN),
                ("logo.png", "image/png"),
                ("references", DIRECTORY)
            ]
        );
        assert_eq!(
            skills.directory("skill://pdf/references").unwrap()[0]["uri"],
            "skill://pdf/references/FORMS.md"
        );
        let file = skills.directory("skill://pdf/SKILL.md").unwrap_err();
        assert!(file.message.contains("is a file"), "{}", file.message);
        assert_eq!(
            skills.read("skill://pdf/logo.png").unwrap()["contents"][0]["blob"],
            "iVBOR/8="
        );
    }

    #[test]
    fn bad_skills_are_refused_with_the_file_at_fault() {
        let refused =
            |files: Vec<(&str, &[u8])>| Skills::from_files(files).unwrap_err().to_string();
        assert!(refused(vec![("pdf/SKILL.md", b"no frontmatter")]).contains("pdf/SKILL.md"));
        assert!(refused(vec![(
            "pdf/SKILL.md",
            b"---\nname: other\ndescription: d\n---\n"
        )])
        .contains("must be `pdf`"));
        assert!(refused(vec![(
            "Pdf/SKILL.md",
            b"---\nname: Pdf\ndescription: d\n---\n"
        )])
        .contains("lowercase"));
        assert!(refused(vec![("SKILL.md", PDF.as_bytes())]).contains("at the root"));
        assert!(refused(vec![("pdf/../x", b"")]).contains("`..`"));
        assert!(refused(vec![("pdf/a b.md", b"")]).contains("rename"));
        assert!(refused(vec![("pdf/notes.md", b"")]).contains("no SKILL.md"));
    }

    #[test]
    fn a_nested_skill_is_also_its_parents_file() {
        let nested = "---\nname: daily\ndescription: Daily\n---\n";
        let skills = Skills::from_files([
            (
                "reports/SKILL.md",
                "---\nname: reports\ndescription: R\n---\n",
            ),
            ("reports/daily/SKILL.md", nested),
        ])
        .unwrap();
        assert_eq!(skills.len(), 2);
        let parent = skills.entries()[0]["resources"].as_array().unwrap();
        assert_eq!(parent[1]["uri"], "skill://reports/daily/SKILL.md");
    }
}
