//! Names the importer makes: tool names valid for every client
//! (`^[A-Za-z0-9_-]{1,64}$`, unique, stable), argument names with the
//! clash rule, `$defs` names, the server's slug and the credential
//! variables' names.
//!
//! Tool names: the `operationId` with every character outside
//! `A-Za-z0-9_-` mapped to `_`; without one, the lower-case method and
//! the path's words joined by `_` (`get_pets_petId`). A name over 64
//! characters keeps its first 55 and gets `_` and 8 hex digits of a
//! stable hash (FNV-1a) of the whole id. Names are made for every
//! operation in document order, before any filter, and a name already
//! taken gets `_2`, `_3`, … (shortened to fit), so a name does not depend
//! on the filters.
//!
//! Argument clash rule: parameters claim property names in the order
//! path, query, header, cookie, then the body (`body`); the first claimant
//! keeps the name, a later one gets `<name>_<location>` (`path_query`),
//! and if that is taken too, `<name>_<location>_2`, `_3`, ….

use std::collections::HashSet;

/// Longest tool name every client accepts.
pub(crate) const MAX_TOOL_NAME: usize = 64;

/// FNV-1a, 64 bits: a hash that never changes between runs or builds.
pub(crate) fn stable_hash(text: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// `text` with every character outside `A-Za-z0-9_-` replaced by `_`.
pub(crate) fn sanitize(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The tool name of an operation before de-duplication.
pub(crate) fn tool_name(operation_id: Option<&str>, method: &str, path: &str) -> String {
    let (source, base) = match operation_id.filter(|id| !id.trim().is_empty()) {
        Some(id) => (id.to_owned(), sanitize(id)),
        None => {
            let words: Vec<&str> = path
                .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
                .filter(|w| !w.is_empty())
                .collect();
            let mut name = method.to_ascii_lowercase();
            for w in words {
                name.push('_');
                name.push_str(w);
            }
            (format!("{} {path}", method.to_ascii_uppercase()), name)
        }
    };
    shorten(&base, &source)
}

/// `base` cut to [`MAX_TOOL_NAME`] with a hash of `source` when longer.
fn shorten(base: &str, source: &str) -> String {
    if base.len() <= MAX_TOOL_NAME {
        return base.to_owned();
    }
    let suffix = format!("_{:08x}", stable_hash(source) as u32);
    let keep = MAX_TOOL_NAME - suffix.len();
    format!("{}{suffix}", &base[..keep])
}

/// Makes names unique in the order they are offered.
#[derive(Debug, Default)]
pub(crate) struct Unique {
    taken: HashSet<String>,
}

impl Unique {
    /// `name`, or `name_2`, `name_3`, … (shortened to `max` bytes), the
    /// first one not taken yet; marks it taken.
    pub(crate) fn claim(&mut self, name: &str, max: usize) -> String {
        if self.taken.insert(name.to_owned()) {
            return name.to_owned();
        }
        let mut n = 2usize;
        loop {
            let suffix = format!("_{n}");
            let keep = name.len().min(max.saturating_sub(suffix.len()));
            let mut cut = keep;
            while !name.is_char_boundary(cut) {
                cut -= 1;
            }
            let candidate = format!("{}{suffix}", &name[..cut]);
            if self.taken.insert(candidate.clone()) {
                return candidate;
            }
            n += 1;
        }
    }
}

/// Argument names of one tool, by the clash rule of this module.
#[derive(Debug, Default)]
pub(crate) struct Arguments {
    taken: HashSet<String>,
}

impl Arguments {
    /// The property name of a parameter (or the body, location `body`).
    pub(crate) fn claim(&mut self, name: &str, location: &str) -> String {
        if self.taken.insert(name.to_owned()) {
            return name.to_owned();
        }
        let base = format!("{name}_{location}");
        if self.taken.insert(base.clone()) {
            return base;
        }
        let mut n = 2usize;
        loop {
            let candidate = format!("{base}_{n}");
            if self.taken.insert(candidate.clone()) {
                return candidate;
            }
            n += 1;
        }
    }
}

/// A `$defs` name for the schema at a document pointer: the component's
/// name for `/components/schemas/X` and `/definitions/X`, else the
/// pointer's tokens joined by `_`; characters outside `A-Za-z0-9._-`
/// become `_`.
pub(crate) fn def_name(pointer: &str) -> String {
    let tokens: Vec<String> = pointer
        .split('/')
        .skip(1)
        .map(|t| t.replace("~1", "/").replace("~0", "~"))
        .collect();
    let raw = match tokens.as_slice() {
        [c, s, name] if c == "components" && s == "schemas" => name.clone(),
        [d, name] if d == "definitions" => name.clone(),
        _ => tokens.join("_"),
    };
    let clean: String = raw
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if clean.is_empty() {
        "schema".to_owned()
    } else {
        clean
    }
}

/// The server name from the API's title: lower case, words joined by `-`.
pub(crate) fn slug(title: &str) -> String {
    let mut out = String::new();
    for c in title.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.is_empty() && !out.ends_with('-') {
            out.push('-');
        }
    }
    let out = out.trim_end_matches('-').to_owned();
    if out.is_empty() {
        "openapi-server".to_owned()
    } else {
        out
    }
}

/// `MCP_UPSTREAM_AUTH_` and the scheme name in SCREAMING_SNAKE_CASE
/// (`petstore_auth` → `PETSTORE_AUTH`, `accountSid_authToken` →
/// `ACCOUNT_SID_AUTH_TOKEN`, `APIKey` → `API_KEY`).
pub(crate) fn credential_env(scheme: &str) -> String {
    let chars: Vec<char> = scheme.chars().collect();
    let mut out = String::from("MCP_UPSTREAM_AUTH_");
    let start = out.len();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_ascii_alphanumeric() {
            if out.len() > start && !out.ends_with('_') {
                out.push('_');
            }
            continue;
        }
        if c.is_ascii_uppercase() && i > 0 && out.len() > start && !out.ends_with('_') {
            let prev = chars[i - 1];
            let next_lower = chars.get(i + 1).is_some_and(char::is_ascii_lowercase);
            if prev.is_ascii_lowercase()
                || prev.is_ascii_digit()
                || (prev.is_ascii_uppercase() && next_lower)
            {
                out.push('_');
            }
        }
        out.push(c.to_ascii_uppercase());
    }
    let trimmed = out.trim_end_matches('_').to_owned();
    if trimmed.len() == start - 1 || trimmed.len() < start {
        return format!("MCP_UPSTREAM_AUTH_{:08X}", stable_hash(scheme) as u32);
    }
    trimmed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_names_are_valid_for_every_client_and_stable() {
        assert_eq!(tool_name(Some("files.get"), "GET", "/x"), "files_get");
        assert_eq!(tool_name(Some("a/b c"), "GET", "/x"), "a_b_c");
        assert_eq!(
            tool_name(None, "get", "/pets/{petId}/owner"),
            "get_pets_petId_owner"
        );
        let long = "x".repeat(100);
        let a = tool_name(Some(&long), "GET", "/");
        assert_eq!(a.len(), 64);
        assert_eq!(a, tool_name(Some(&long), "GET", "/"), "stable");
        let other = format!("{long}y");
        assert_ne!(
            a,
            tool_name(Some(&other), "GET", "/"),
            "hash keeps them apart"
        );
        let re = |s: &str| {
            (1..=64).contains(&s.len())
                && s.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        };
        assert!(re(&a));
        assert!(re(&tool_name(Some("\"; drop table x; --"), "GET", "/")));
        assert_eq!(tool_name(Some("  "), "DELETE", "/"), "delete");
    }

    #[test]
    fn duplicates_get_numbered_suffixes_within_the_limit() {
        let mut u = Unique::default();
        assert_eq!(u.claim("a_b", 64), "a_b");
        assert_eq!(u.claim("a_b", 64), "a_b_2");
        assert_eq!(u.claim("a_b", 64), "a_b_3");
        let long = "y".repeat(64);
        assert_eq!(u.claim(&long, 64), long);
        let second = u.claim(&long, 64);
        assert_eq!(second.len(), 64);
        assert!(second.ends_with("_2"));
    }

    #[test]
    fn argument_clashes_follow_the_location_order_rule() {
        let mut a = Arguments::default();
        assert_eq!(a.claim("path", "path"), "path");
        assert_eq!(a.claim("path", "query"), "path_query");
        assert_eq!(a.claim("path_query", "header"), "path_query_header");
        assert_eq!(a.claim("path", "query"), "path_query_2");
        assert_eq!(a.claim("body", "body"), "body");
        assert_eq!(a.claim("body", "body"), "body_body");
    }

    #[test]
    fn credential_variables_are_screaming_snake_case() {
        assert_eq!(
            credential_env("petstore_auth"),
            "MCP_UPSTREAM_AUTH_PETSTORE_AUTH"
        );
        assert_eq!(
            credential_env("accountSid_authToken"),
            "MCP_UPSTREAM_AUTH_ACCOUNT_SID_AUTH_TOKEN"
        );
        assert_eq!(credential_env("APIKey"), "MCP_UPSTREAM_AUTH_API_KEY");
        assert_eq!(
            credential_env("PersonalAccessToken"),
            "MCP_UPSTREAM_AUTH_PERSONAL_ACCESS_TOKEN"
        );
        assert_eq!(credential_env("api-key"), "MCP_UPSTREAM_AUTH_API_KEY");
        assert!(credential_env("!!").starts_with("MCP_UPSTREAM_AUTH_"));
    }

    #[test]
    fn def_names_come_from_component_names() {
        assert_eq!(def_name("/components/schemas/Pet"), "Pet");
        assert_eq!(def_name("/definitions/Foo«Bar»"), "Foo_Bar_");
        assert_eq!(
            def_name("/components/schemas/PetDetails/properties/id"),
            "components_schemas_PetDetails_properties_id"
        );
        assert_eq!(
            slug("Swagger Petstore - OpenAPI 3.1"),
            "swagger-petstore-openapi-3-1"
        );
    }
}
