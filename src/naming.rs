//! Rust identifiers from MCP names: definition names, property names, tool
//! names and enum values.
//!
//! One place decides how a wire name becomes a Rust name, so every
//! generator emits the same identifier for the same input: hyphens, dots,
//! slashes and spaces split words; leading digits get a prefix; Rust
//! keywords become raw identifiers (or get a suffix where raw identifiers
//! are not allowed); collisions within one scope are made unique.

use std::collections::BTreeSet;

use proc_macro2::{Ident, Span};

/// Rust keywords (strict and reserved, all editions).
const KEYWORDS: &[&str] = &[
    "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "crate",
    "do", "dyn", "else", "enum", "extern", "false", "final", "fn", "for", "gen", "if", "impl",
    "in", "let", "loop", "macro", "match", "mod", "move", "mut", "override", "priv", "pub", "ref",
    "return", "self", "Self", "static", "struct", "super", "trait", "true", "try", "type",
    "typeof", "union", "unsafe", "unsized", "use", "virtual", "where", "while", "yield",
];

/// Keywords that cannot be raw identifiers.
const NOT_RAW: &[&str] = &["self", "Self", "super", "crate", "_"];

/// Splits a wire name into lower-case words: `camelCase`, `snake_case`,
/// `kebab-case`, `dot.case`, `tools/call`, `HTTPServer` and spaces.
pub fn words(name: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut cur = String::new();
    let chars: Vec<char> = name.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_alphanumeric() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            continue;
        }
        if c.is_uppercase() && !cur.is_empty() {
            let prev = chars[i - 1];
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_lowercase());
            if prev.is_lowercase() || prev.is_ascii_digit() || (prev.is_uppercase() && next_lower) {
                out.push(std::mem::take(&mut cur));
            }
        }
        cur.extend(c.to_lowercase());
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// `snake_case` of a wire name, not yet checked for keywords.
pub fn snake(name: &str) -> String {
    let s = words(name).join("_");
    if s.is_empty() {
        "field".to_owned()
    } else if s.starts_with(|c: char| c.is_ascii_digit()) {
        format!("_{s}")
    } else {
        s
    }
}

/// `PascalCase` of a wire name. Leading digits get a `V` prefix.
pub fn pascal(name: &str) -> String {
    let mut s = String::new();
    for w in words(name) {
        let mut cs = w.chars();
        if let Some(first) = cs.next() {
            s.extend(first.to_uppercase());
            s.push_str(cs.as_str());
        }
    }
    if s.is_empty() {
        "Empty".to_owned()
    } else if s.starts_with(|c: char| c.is_ascii_digit()) {
        format!("V{s}")
    } else {
        s
    }
}

/// A type name as the schema spells it, when it is already a valid Rust
/// identifier (MCP definition names are: `JSONRPCRequest`, `CallToolResult`);
/// otherwise its `PascalCase`.
pub fn type_name(name: &str) -> String {
    let valid = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if valid && !is_keyword(name) {
        name.to_owned()
    } else {
        pascal(name)
    }
}

/// Whether `s` is a Rust keyword.
pub fn is_keyword(s: &str) -> bool {
    KEYWORDS.contains(&s)
}

/// A field or method identifier for a wire name: `snake_case`, with
/// keywords as raw identifiers (`r#type`) or, where that is not allowed,
/// with a trailing underscore (`self_`).
pub fn field_ident(name: &str) -> Ident {
    ident(&snake(name))
}

/// An identifier from an already-cased string, escaping keywords.
pub fn ident(s: &str) -> Ident {
    if NOT_RAW.contains(&s) {
        Ident::new(&format!("{s}_"), Span::call_site())
    } else if is_keyword(s) {
        Ident::new_raw(s, Span::call_site())
    } else {
        Ident::new(s, Span::call_site())
    }
}

/// Hands out names unique within one scope: a second `foo` becomes `foo_2`
/// (or `Foo2` for types).
#[derive(Debug, Default, Clone)]
pub struct Scope {
    taken: BTreeSet<String>,
}

impl Scope {
    /// An empty scope.
    pub fn new() -> Self {
        Self::default()
    }

    /// Marks a name as taken without handing it out.
    pub fn reserve(&mut self, name: &str) {
        self.taken.insert(name.to_owned());
    }

    /// Whether a name is already taken.
    pub fn contains(&self, name: &str) -> bool {
        self.taken.contains(name)
    }

    /// `name`, or the first of `name_2`, `name_3`, … (snake case) or
    /// `Name2`, `Name3`, … (other names) that is free.
    pub fn unique(&mut self, name: &str) -> String {
        if self.taken.insert(name.to_owned()) {
            return name.to_owned();
        }
        let snake = name.chars().next().is_some_and(|c| c.is_lowercase() || c == '_');
        for n in 2.. {
            let candidate = if snake { format!("{name}_{n}") } else { format!("{name}{n}") };
            if self.taken.insert(candidate.clone()) {
                return candidate;
            }
        }
        unreachable!("an unbounded range always yields a free name")
    }
}

/// Rust names of one tool: the `snake_case` method name used by the
/// server trait and the client, and the PascalCase base of its types
/// (`<base>Input`, `<base>Output`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolNames {
    /// Method identifier; never a keyword (`type` becomes `type_`).
    pub method: String,
    /// Type name base; `<base>Input` and `<base>Output` are the types.
    pub type_base: String,
}

/// Names for every tool of a manifest, in the order given. Each entry is
/// the wire name and an optional override (`x-mcpgen.rustName`).
///
/// Tools whose names map to the same identifier (`get-me`, `get_me`,
/// `getMe`) all get distinct names: the one with an override keeps it,
/// else the one whose wire name already is that identifier, else the one
/// whose wire name sorts first; the others get `_2`, `_3`, … in
/// wire-name order. The result depends only on the set of names, not
/// on their order in the manifest.
pub fn tool_names(tools: &[(&str, Option<&str>)]) -> Vec<ToolNames> {
    let natural: Vec<String> = tools
        .iter()
        .map(|(wire, over)| {
            let s = match over {
                Some(o) => snake(o),
                None => snake(wire),
            };
            if is_keyword(&s) || s == "_" {
                format!("{s}_")
            } else {
                s
            }
        })
        .collect();
    let mut order: Vec<usize> = (0..tools.len()).collect();
    order.sort_by(|&a, &b| {
        let key = |i: usize| (&natural[i], tools[i].1.is_none(), tools[i].0 != natural[i], tools[i].0);
        key(a).cmp(&key(b))
    });
    let mut methods = Scope::new();
    for n in &natural {
        methods.reserve(n);
    }
    let mut types = Scope::new();
    let mut out = vec![None; tools.len()];
    let mut last: Option<&str> = None;
    for &i in &order {
        let method = if last == Some(natural[i].as_str()) {
            methods.unique(&natural[i])
        } else {
            natural[i].clone()
        };
        last = Some(natural[i].as_str());
        let type_base = types.unique(&pascal(&method));
        out[i] = Some(ToolNames { method, type_base });
    }
    out.into_iter().flatten().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_words_of_every_wire_style() {
        assert_eq!(words("listChanged"), ["list", "changed"]);
        assert_eq!(words("get_me"), ["get", "me"]);
        assert_eq!(words("tools/call"), ["tools", "call"]);
        assert_eq!(words("list-issues.v2"), ["list", "issues", "v2"]);
        assert_eq!(words("JSONRPCRequest"), ["jsonrpc", "request"]);
        assert_eq!(words("HTTPServerName"), ["http", "server", "name"]);
        assert_eq!(words("in progress"), ["in", "progress"]);
    }

    #[test]
    fn cases_and_prefixes() {
        assert_eq!(snake("isError"), "is_error");
        assert_eq!(snake("_meta"), "meta");
        assert_eq!(snake("$schema"), "schema");
        assert_eq!(snake("2fa-code"), "_2fa_code");
        assert_eq!(pascal("resource_link"), "ResourceLink");
        assert_eq!(pascal("notifications/cancelled"), "NotificationsCancelled");
        assert_eq!(pascal("3d"), "V3d");
        assert_eq!(type_name("CallToolResult"), "CallToolResult");
        assert_eq!(type_name("JSONRPCMessage"), "JSONRPCMessage");
        assert_eq!(type_name("my-tool"), "MyTool");
    }

    #[test]
    fn keywords_are_escaped() {
        assert_eq!(field_ident("type").to_string(), "r#type");
        assert_eq!(field_ident("ref").to_string(), "r#ref");
        assert_eq!(field_ident("match").to_string(), "r#match");
        assert_eq!(field_ident("self").to_string(), "self_");
        assert_eq!(field_ident("Self").to_string(), "self_");
        assert_eq!(field_ident("text").to_string(), "text");
    }

    #[test]
    fn scopes_make_names_unique() {
        let mut s = Scope::new();
        assert_eq!(s.unique("name"), "name");
        assert_eq!(s.unique("name"), "name_2");
        assert_eq!(s.unique("Name"), "Name");
        assert_eq!(s.unique("Name"), "Name2");
    }

    #[test]
    fn tool_names_handle_case_keywords_digits_and_collisions() {
        let names = tool_names(&[
            ("get_me", None),
            ("get-me", None),
            ("getMe", None),
            ("type", None),
            ("self", None),
            ("match", None),
            ("3d.render", None),
            ("List.Issues", None),
            ("ref", Some("reference")),
        ]);
        let pairs: Vec<(&str, &str)> = names.iter().map(|n| (n.method.as_str(), n.type_base.as_str())).collect();
        assert_eq!(
            pairs,
            [
                ("get_me", "GetMe"),
                ("get_me_2", "GetMe2"),
                ("get_me_3", "GetMe3"),
                ("type_", "Type"),
                ("self_", "Self"),
                ("match_", "Match"),
                ("_3d_render", "V3dRender"),
                ("list_issues", "ListIssues"),
                ("reference", "Reference"),
            ]
        );
    }

    #[test]
    fn tool_names_do_not_depend_on_manifest_order() {
        let a = tool_names(&[("get-me", None), ("get_me", None), ("getMe", None)]);
        let b = tool_names(&[("getMe", None), ("get_me", None), ("get-me", None)]);
        assert_eq!(a[0], b[2]);
        assert_eq!(a[1], b[1]);
        assert_eq!(a[2], b[0]);
    }

    #[test]
    fn tool_name_overrides_win_collisions() {
        let n = tool_names(&[("a-b", None), ("zzz", Some("a_b"))]);
        assert_eq!(n[1].method, "a_b");
        assert_eq!(n[0].method, "a_b_2");
    }
}
