//! The Skills extension (`io.modelcontextprotocol/skills`, SEP-2640),
//! what both sides share (feature `skills`): the entry a server lists for
//! each skill, a `SKILL.md`'s frontmatter read as YAML 1.2, the
//! `sha256:` digests and the naming rules.
//!
//! A skill is a directory whose `SKILL.md` starts with a YAML frontmatter
//! (`name`, `description`, anything else); the server serves it as
//! `skill://<path>/SKILL.md` and every file beneath as a resource. The
//! server side is [`crate::server::Skills`]; the client side is
//! [`crate::client::Client::list_skills`] and
//! [`crate::client::Client::load_skill`], which verify what they read.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

/// The extension's identifier, the key of its capability.
pub const EXTENSION: &str = "io.modelcontextprotocol/skills";

/// The URI scheme of skill files.
pub const SCHEME: &str = "skill://";

/// The file that makes a directory a skill.
pub const SKILL_FILE: &str = "SKILL.md";

/// The media type of a `SKILL.md`.
pub const MARKDOWN: &str = "text/markdown";

/// The media type of a directory in `resources/directory/read`.
pub const DIRECTORY: &str = "inode/directory";

/// Most files a skill should hold, its `SKILL.md` included.
pub const MAX_FILES: usize = 512;

/// Most bytes a skill's files should hold together (16 MiB).
pub const MAX_BYTES: u64 = 16 * 1024 * 1024;

/// One skill as `skills/list` and `skills/get` describe it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SkillEntry {
    /// The URI of its `SKILL.md`, `skill://<path>/SKILL.md`.
    pub uri: String,
    /// Its `SKILL.md` frontmatter, as JSON.
    pub frontmatter: Map<String, Value>,
    /// Its files with their digests, or `"dynamic"` when the server does
    /// not list them.
    pub resources: SkillResources,
}

/// A skill's files as its entry lists them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum SkillResources {
    /// Every file of the skill, its `SKILL.md` among them.
    Listed(Vec<SkillFile>),
    /// `"dynamic"`: the server does not enumerate them.
    Dynamic(Dynamic),
}

/// The string `"dynamic"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Dynamic {
    /// `"dynamic"`.
    #[serde(rename = "dynamic")]
    Dynamic,
}

/// One file of a skill: where, and what its bytes must hash to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkillFile {
    /// Its URI, within the skill's directory.
    pub uri: String,
    /// `sha256:` and the lowercase hex SHA-256 of its bytes.
    pub digest: String,
    /// Its length in bytes.
    pub size: u64,
}

impl SkillEntry {
    /// The `name` of the frontmatter.
    pub fn name(&self) -> &str {
        self.frontmatter
            .get("name")
            .and_then(Value::as_str)
            .unwrap_or_default()
    }

    /// The `description` of the frontmatter.
    pub fn description(&self) -> &str {
        self.frontmatter
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or_default()
    }

    /// The skill's directory URI (`skill://<path>`, no trailing slash).
    pub fn directory(&self) -> &str {
        self.uri
            .strip_suffix(SKILL_FILE)
            .and_then(|d| d.strip_suffix('/'))
            .unwrap_or(&self.uri)
    }

    /// What the entry says of the file at `uri`, when it lists files.
    pub fn file(&self, uri: &str) -> Option<&SkillFile> {
        match &self.resources {
            SkillResources::Listed(files) => files.iter().find(|f| f.uri == uri),
            SkillResources::Dynamic(_) => None,
        }
    }
}

/// `sha256:` and the lowercase hex SHA-256 of `bytes`.
pub fn digest(bytes: &[u8]) -> String {
    let hash = Sha256::digest(bytes);
    let mut text = String::with_capacity(7 + 64);
    text.push_str("sha256:");
    for byte in hash {
        text.push(char::from(b"0123456789abcdef"[usize::from(byte >> 4)]));
        text.push(char::from(b"0123456789abcdef"[usize::from(byte & 15)]));
    }
    text
}

/// Whether `name` is a valid skill name: 1 to 64 lowercase letters,
/// digits and hyphens, no hyphen first, last or twice in a row.
pub fn valid_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    (1..=64).contains(&bytes.len())
        && bytes
            .iter()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || *b == b'-')
        && !name.starts_with('-')
        && !name.ends_with('-')
        && !name.contains("--")
}

/// The YAML between a `SKILL.md`'s opening `---` line and the next line
/// that is `---` (spaces or tabs may follow it), after an optional byte
/// order mark; `None` when the text does not start with a frontmatter.
pub fn frontmatter_block(text: &str) -> Option<&str> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let body = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))?;
    let mut from = 0;
    while let Some(found) = body[from..].find("\n---") {
        let newline = from + found;
        let rest = body[newline + 4..].trim_start_matches([' ', '\t']);
        if rest.is_empty() || rest.starts_with('\n') || rest.starts_with("\r\n") {
            let block = &body[..newline];
            return Some(block.strip_suffix('\r').unwrap_or(block));
        }
        from = newline + 1;
    }
    None
}

/// A `SKILL.md`'s frontmatter as JSON: a YAML 1.2 mapping whose `name`
/// and `description` are non-empty strings.
pub fn frontmatter(text: &str) -> Result<Map<String, Value>, String> {
    let block = frontmatter_block(text).ok_or(
        "SKILL.md does not start with a YAML frontmatter (a `---` line, the YAML, a `---` line)",
    )?;
    let Value::Object(map) = crate::yaml::document(block)? else {
        return Err("the SKILL.md frontmatter is not a YAML mapping".into());
    };
    for key in ["name", "description"] {
        match map.get(key) {
            Some(Value::String(s)) if !s.is_empty() => {}
            _ => {
                return Err(format!(
                    "the SKILL.md frontmatter needs a non-empty string `{key}`"
                ))
            }
        }
    }
    Ok(map)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_frontmatter_block_ends_at_a_closing_line() {
        let text = "---\nname: a\ndescription: b\n---\n\n# Body\n";
        assert_eq!(frontmatter_block(text), Some("name: a\ndescription: b"));
        let crlf = "\u{feff}---\r\nname: a\r\n---  \r\nbody";
        assert_eq!(frontmatter_block(crlf), Some("name: a"));
        assert_eq!(frontmatter_block("---\nname: a\n---"), Some("name: a"));
        // `---x` does not close it; a later line does.
        assert_eq!(
            frontmatter_block("---\na: 1\n---x\nb: 2\n---\n"),
            Some("a: 1\n---x\nb: 2")
        );
        assert_eq!(frontmatter_block("name: a\n---\n"), None);
        assert_eq!(frontmatter_block("---\nname: a\n"), None);
    }

    #[test]
    fn frontmatter_needs_a_name_and_a_description() {
        let map =
            frontmatter("---\nname: pdf\ndescription: Read PDFs\nversion: 1.10\n---\n").unwrap();
        assert_eq!(
            Value::Object(map),
            json!({"name": "pdf", "description": "Read PDFs", "version": 1.1})
        );
        assert!(frontmatter("---\nname: pdf\n---\n")
            .unwrap_err()
            .contains("`description`"));
        assert!(frontmatter("---\n- a\n---\n")
            .unwrap_err()
            .contains("not a YAML mapping"));
    }

    #[test]
    fn names_follow_the_rules() {
        for good in ["pdf", "pdf-processing", "a1", &"a".repeat(64)] {
            assert!(valid_name(good), "{good}");
        }
        for bad in ["", "-a", "a-", "a--b", "Pdf", "a_b", &"a".repeat(65)] {
            assert!(!valid_name(bad), "{bad}");
        }
    }

    #[test]
    fn digests_are_lowercase_sha256() {
        assert_eq!(
            digest(b"Supporting content.\n"),
            "sha256:8548b03927f40d7dc404fa49636c29e6b73df011d0764d69a6fc4f8ae06c6a12"
        );
    }

    #[test]
    fn entries_read_listed_and_dynamic_resources() {
        let listed: SkillEntry = serde_json::from_value(json!({
            "uri": "skill://a/SKILL.md", "frontmatter": {"name": "a", "description": "d"},
            "resources": [{"uri": "skill://a/SKILL.md", "digest": "sha256:00", "size": 3}]
        }))
        .unwrap();
        assert_eq!(listed.directory(), "skill://a");
        assert_eq!(listed.file("skill://a/SKILL.md").unwrap().size, 3);
        let dynamic: SkillEntry = serde_json::from_value(json!({
            "uri": "skill://a/SKILL.md", "frontmatter": {}, "resources": "dynamic"
        }))
        .unwrap();
        assert_eq!(dynamic.resources, SkillResources::Dynamic(Dynamic::Dynamic));
    }
}
