//! The client side of the Skills extension (feature `skills`): list a
//! server's skills, load one, read its other files, each checked against
//! what the skill's entry promised before anything is handed out.
//!
//! Listing reads no file (a host builds its registry from the entries
//! alone). Loading reads the `SKILL.md` and checks, in this order, its
//! size, its `sha256:` digest and its frontmatter against the entry,
//! field by field; any mismatch is [`ClientError::Unverified`] and the
//! text is dropped. A supporting file is read only on request, and checked
//! the same way.

use base64::Engine as _;
use serde_json::{json, Map, Value};

use crate::revision::method::Method;
use crate::skills::{self, SkillEntry, SkillResources, EXTENSION};

use super::engine::Shared;
use super::{tools, CallOptions, ClientError};

/// A skill whose `SKILL.md` matched its entry.
#[derive(Debug, Clone)]
pub struct LoadedSkill {
    /// The entry it was loaded from.
    pub entry: SkillEntry,
    /// The `SKILL.md`, frontmatter included.
    pub text: String,
}

impl LoadedSkill {
    /// The `SKILL.md` without its frontmatter: the instructions.
    pub fn body(&self) -> &str {
        let text = self.text.strip_prefix('\u{feff}').unwrap_or(&self.text);
        let Some(block) = skills::frontmatter_block(text) else {
            return text;
        };
        // The block sits inside `text`; the body starts after its closing line.
        let end = block.as_ptr() as usize - text.as_ptr() as usize + block.len();
        let rest = &text[end..];
        let rest = rest.trim_start_matches('\r').trim_start_matches('\n');
        let rest = rest.strip_prefix("---").unwrap_or(rest);
        match rest.find('\n') {
            Some(i) => &rest[i + 1..],
            None => "",
        }
    }
}

/// Whether the server declares the Skills extension, and with it
/// `resources/directory/read` (`directoryRead: true`).
pub(super) fn declared(shared: &Shared) -> (bool, bool) {
    let declared = shared
        .session
        .get()
        .and_then(|s| s.capabilities.pointer("/extensions"))
        .and_then(|e| e.get(EXTENSION));
    let directory = declared
        .and_then(|d| d.get("directoryRead"))
        .and_then(Value::as_bool)
        == Some(true);
    (declared.is_some_and(Value::is_object), directory)
}

/// Every skill the server lists (`skills/list`, all pages). Reads no
/// skill file.
pub(super) async fn list(shared: &Shared) -> Result<Vec<SkillEntry>, ClientError> {
    let options = CallOptions::new();
    let items = tools::list_all(shared, Method::SkillsList.name(), "skills", &options).await?;
    items
        .into_iter()
        .enumerate()
        .map(|(i, item)| {
            serde_json::from_value(item).map_err(|e| {
                ClientError::unexpected(format!("skills/list: skill {i} is malformed: {e}"))
            })
        })
        .collect()
}

/// One skill's entry by its `SKILL.md` URI (`skills/get`).
pub(super) async fn get(shared: &Shared, uri: &str) -> Result<SkillEntry, ClientError> {
    let options = CallOptions::new();
    let mut result = shared
        .request(
            Method::SkillsGet.name(),
            Some(json!({ "uri": uri })),
            &options,
        )
        .await?;
    let skill = result.get_mut("skill").map(Value::take).ok_or_else(|| {
        ClientError::unexpected(format!("skills/get of {uri}: the result has no `skill`"))
    })?;
    let entry: SkillEntry = serde_json::from_value(skill).map_err(|e| {
        ClientError::unexpected(format!("skills/get of {uri}: the skill is malformed: {e}"))
    })?;
    if entry.uri != uri {
        return Err(ClientError::unexpected(format!(
            "skills/get of {uri} answered with the skill {}",
            entry.uri
        )));
    }
    Ok(entry)
}

/// Loads a skill: reads its `SKILL.md` and checks size, digest and
/// frontmatter against `entry`. Nothing of a file that fails is
/// returned.
pub(super) async fn load(shared: &Shared, entry: &SkillEntry) -> Result<LoadedSkill, ClientError> {
    let bytes = read_file(shared, entry, &entry.uri).await?;
    let unverified = |reason: String| ClientError::Unverified {
        uri: entry.uri.clone(),
        reason,
    };
    let text = String::from_utf8(bytes)
        .map_err(|_| unverified("the SKILL.md is not UTF-8 text".into()))?;
    let frontmatter = skills::frontmatter(&text).map_err(unverified)?;
    if let Some(key) = differing_key(&frontmatter, &entry.frontmatter) {
        return Err(unverified(format!(
            "its frontmatter's `{key}` differs from the skill's entry"
        )));
    }
    Ok(LoadedSkill {
        entry: entry.clone(),
        text,
    })
}

/// Reads one file of a skill (its `SKILL.md` or any other) and, when
/// the entry lists the skill's files, checks its size and digest. A
/// URI outside the skill's directory is refused without a request.
pub(super) async fn read_file(
    shared: &Shared,
    entry: &SkillEntry,
    uri: &str,
) -> Result<Vec<u8>, ClientError> {
    let unverified = |reason: String| ClientError::Unverified {
        uri: uri.to_owned(),
        reason,
    };
    let inside = uri == entry.uri
        || uri
            .strip_prefix(entry.directory())
            .is_some_and(|rest| rest.starts_with('/'));
    if !inside || uri.split('/').any(|s| s == "..") {
        return Err(unverified(format!(
            "it is not within the skill {}",
            entry.directory()
        )));
    }
    let listed = match &entry.resources {
        SkillResources::Listed(files) => Some(
            files
                .iter()
                .find(|f| f.uri == uri)
                .ok_or_else(|| unverified("the skill's entry does not list it".into()))?,
        ),
        SkillResources::Dynamic(_) => None,
    };
    let options = CallOptions::new();
    let result = shared
        .request(
            Method::ResourcesRead.name(),
            Some(json!({ "uri": uri })),
            &options,
        )
        .await?;
    let bytes = content_bytes(&result, uri).map_err(unverified)?;
    if let Some(file) = listed {
        if bytes.len() as u64 != file.size {
            return Err(unverified(format!(
                "{} bytes, the entry says {}",
                bytes.len(),
                file.size
            )));
        }
        let digest = skills::digest(&bytes);
        if digest != file.digest {
            return Err(unverified(format!(
                "its digest is {digest}, the entry says {}",
                file.digest
            )));
        }
    }
    Ok(bytes)
}

/// The direct children of a directory under `skill://`
/// (`resources/directory/read`, all pages). Refused without a request
/// when the server does not declare `directoryRead`.
pub(super) async fn read_directory(shared: &Shared, uri: &str) -> Result<Vec<Value>, ClientError> {
    if !declared(shared).1 {
        return Err(ClientError::unexpected(format!(
            "the server does not declare `directoryRead` for skills; cannot list {uri}"
        )));
    }
    let mut children = Vec::new();
    let mut cursor: Option<String> = None;
    let options = CallOptions::new();
    for _ in 0..shared.options.max_list_pages {
        let mut params = json!({ "uri": uri });
        if let Some(c) = &cursor {
            params["cursor"] = json!(c);
        }
        let mut page = shared
            .request(Method::DirectoryRead.name(), Some(params), &options)
            .await?;
        match page.get_mut("resources").map(Value::take) {
            Some(Value::Array(items)) => children.extend(items),
            _ => {
                return Err(ClientError::unexpected(format!(
                    "resources/directory/read of {uri}: the result has no `resources` array"
                )))
            }
        }
        cursor = page
            .get("nextCursor")
            .and_then(Value::as_str)
            .filter(|c| !c.is_empty())
            .map(str::to_owned);
        if cursor.is_none() {
            return Ok(children);
        }
    }
    Err(ClientError::unexpected(format!(
        "resources/directory/read of {uri} did not end within {} pages",
        shared.options.max_list_pages
    )))
}

/// The bytes of the first content of a `resources/read` result for `uri`.
fn content_bytes(result: &Value, uri: &str) -> Result<Vec<u8>, String> {
    let content = result
        .get("contents")
        .and_then(Value::as_array)
        .and_then(|c| c.first())
        .ok_or("the read returned no contents")?;
    if content.get("uri").and_then(Value::as_str) != Some(uri) {
        return Err("the read returned another resource's contents".into());
    }
    if let Some(text) = content.get("text").and_then(Value::as_str) {
        return Ok(text.as_bytes().to_vec());
    }
    if let Some(blob) = content.get("blob").and_then(Value::as_str) {
        return base64::engine::general_purpose::STANDARD
            .decode(blob)
            .map_err(|e| format!("its blob is not base64: {e}"));
    }
    Err("its content has neither text nor blob".into())
}

/// The first key (in order) whose value differs between the file's
/// frontmatter and the entry's; a key one side lacks counts as `null`.
fn differing_key(file: &Map<String, Value>, entry: &Map<String, Value>) -> Option<String> {
    let keys = file
        .keys()
        .chain(entry.keys().filter(|k| !file.contains_key(*k)));
    for key in keys {
        let (a, b) = (file.get(key), entry.get(key));
        if !same(a.unwrap_or(&Value::Null), b.unwrap_or(&Value::Null)) {
            return Some(key.clone());
        }
    }
    None
}

/// JSON equality where numbers compare by value (`1.0` equals `1`).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x == y || x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frontmatters_compare_field_by_field() {
        let map = |v: Value| v.as_object().unwrap().clone();
        let file = map(json!({"name": "a", "description": "d", "version": 1.0}));
        assert_eq!(
            differing_key(
                &file,
                &map(json!({"name": "a", "description": "d", "version": 1}))
            ),
            None
        );
        assert_eq!(
            differing_key(
                &file,
                &map(json!({"name": "a", "description": "e", "version": 1}))
            ),
            Some("description".into())
        );
        assert_eq!(
            differing_key(&file, &map(json!({"name": "a", "description": "d"}))),
            Some("version".into())
        );
        let extra = map(json!({"name": "a", "description": "d", "version": 1, "x": null}));
        assert_eq!(differing_key(&file, &extra), None);
    }

    #[test]
    fn content_is_text_or_base64() {
        let text = json!({"contents": [{"uri": "skill://a/x", "text": "hi"}]});
        assert_eq!(content_bytes(&text, "skill://a/x").unwrap(), b"hi");
        let blob = json!({"contents": [{"uri": "skill://a/x", "blob": "aGk="}]});
        assert_eq!(content_bytes(&blob, "skill://a/x").unwrap(), b"hi");
        assert!(content_bytes(&text, "skill://a/y").is_err());
        assert!(content_bytes(&json!({}), "skill://a/x").is_err());
    }

    #[test]
    fn the_body_follows_the_frontmatter() {
        let entry: SkillEntry = serde_json::from_value(json!({
            "uri": "skill://a/SKILL.md", "frontmatter": {}, "resources": "dynamic"
        }))
        .unwrap();
        let loaded = LoadedSkill {
            entry,
            text: "---\nname: a\ndescription: d\n---\n\n# Body\n".into(),
        };
        assert_eq!(loaded.body(), "\n# Body\n");
    }
}
