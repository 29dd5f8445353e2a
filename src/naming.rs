//! Rust identifiers from MCP names: definition names, property names, tool
//! names and enum values.
//!
//! One place decides how a wire name becomes a Rust name, so every
//! generator emits the same identifier for the same input: hyphens, dots,
//! slashes and spaces split words; leading digits get a prefix; Rust
//! keywords become raw identifiers (or get a suffix where raw identifiers
//! are not allowed); collisions within one scope are made unique.
//!
//! Identifiers are ASCII (other characters separate words, as punctuation
//! does), so no lint about confusable or uncommon characters can fire. A
//! name made from one wire name has at most [`MAX_NAME`] characters and
//! any identifier at most [`MAX_IDENT`]: a longer one keeps its start and
//! ends in a stable hash of the whole ([`bounded`]), so a 100,000-character
//! property name is a short field that serde renames back to the wire name.

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

/// Longest identifier made from one wire name (a field, a tool, a
/// definition, a title, an enum value).
pub const MAX_NAME: usize = 64;

/// Longest identifier in generated code (names composed of several wire
/// names, such as typify's `<Parent><Property>` types, included).
pub const MAX_IDENT: usize = 128;

/// Longest wire name (a property name, an enum value) that generated code
/// matches by name. serde's derives match names as byte-string patterns,
/// which cost rustc memory quadratic in their length (16,000 bytes take
/// 4 GB), so longer names are handled as data (a map key, a `String`).
pub const MAX_WIRE_NAME: usize = 256;

/// Splits a wire name into lower-case ASCII words: `camelCase`,
/// `snake_case`, `kebab-case`, `dot.case`, `tools/call`, `HTTPServer` and
/// spaces. Characters other than ASCII letters and digits separate words.
pub fn words(name: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut cur = String::new();
    let chars: Vec<char> = name.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_ascii_alphanumeric() {
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

/// The indefinite article a doc comment puts before a type name read
/// aloud: "an" before a vowel sound (`AddInput`, `Update`), "a" otherwise
/// (`Tool`, `UrlParams`, `User`).
pub fn article(name: &str) -> &'static str {
    let mut chars = name.chars();
    match (chars.next(), chars.next()) {
        (Some('A' | 'E' | 'I' | 'O' | 'a' | 'e' | 'i' | 'o'), _) => "An",
        // "Un…", "Up…", "Um…" start with a vowel sound; "Ur…", "Us…", "Uni…" do not.
        (Some('U' | 'u'), Some('n')) if !name[1..].starts_with("ni") => "An",
        (Some('U' | 'u'), Some('p' | 'm' | 'd' | 'g' | 'l')) => "An",
        _ => "A",
    }
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

/// `name` as typify spells a type name it is given (heck's PascalCase,
/// which keeps one capital per word: `PromptAB` becomes `PromptAb`). A
/// tool's type base is spelt so, or `<Base>Input` would name a type that
/// typify wrote as another.
pub fn typify_pascal(name: &str) -> String {
    heck::ToPascalCase::to_pascal_case(name)
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

/// A stable 32-bit hash (FNV-1a) of `text`, as 8 lower-case hex digits.
pub fn short_hash(text: &str) -> String {
    let mut h: u32 = 0x811c_9dc5;
    for b in text.bytes() {
        h ^= u32::from(b);
        h = h.wrapping_mul(0x0100_0193);
    }
    format!("{h:08x}")
}

/// `name` when it has at most `max` characters; otherwise its first
/// characters and a hash of `source` (the text it was made from), `max`
/// characters in all: `very_long_…_name_1a2b3c4d` for snake case,
/// `VeryLong…Name1a2b3c4d` for other names. `name` must be ASCII.
pub fn bounded(name: &str, max: usize, source: &str) -> String {
    if name.len() <= max {
        return name.to_owned();
    }
    let snake = !name.chars().any(|c| c.is_ascii_uppercase());
    let hash = short_hash(source);
    let keep = max.saturating_sub(hash.len() + usize::from(snake)).max(1);
    let mut out: String = name.chars().take(keep).collect();
    if snake {
        out.truncate(out.trim_end_matches('_').len().max(1));
        out.push('_');
    }
    out.push_str(&hash);
    out
}

/// A struct field name for a property, in the one form both mcpgen and
/// typify keep as it is: lower-case ASCII words joined by `_`, starting
/// with a letter (`2fa` → `x2fa`), keywords with a trailing `_` (`type_`),
/// at most [`MAX_NAME`] characters. Not yet unique: see [`field_names`].
pub fn field_name(wire: &str) -> String {
    let s = words(wire).join("_");
    let s = if s.is_empty() {
        "field".to_owned()
    } else if s.starts_with(|c: char| c.is_ascii_digit()) {
        format!("x{s}")
    } else {
        s
    };
    let s = bounded(&s, MAX_NAME - 1, wire);
    if is_keyword(&s) {
        format!("{s}_")
    } else {
        s
    }
}

/// Field names for the properties of one object, in the order given:
/// distinct, none in `reserved`, each from [`field_name`]. A property
/// whose wire name already is its field name keeps it; the others get
/// `_2`, `_3`, … on collision, in order of field name, then wire name, so
/// the result does not depend on the order of the properties.
pub fn field_names(wires: &[&str], reserved: &[&str]) -> Vec<String> {
    let natural: Vec<String> = wires.iter().map(|w| field_name(w)).collect();
    let mut scope = Scope::new();
    for r in reserved {
        scope.reserve(r);
    }
    let mut out: Vec<Option<String>> = vec![None; wires.len()];
    for (i, wire) in wires.iter().enumerate() {
        if natural[i] == *wire && !scope.contains(wire) {
            scope.reserve(wire);
            out[i] = Some(natural[i].clone());
        }
    }
    let mut rest: Vec<usize> = (0..wires.len()).filter(|&i| out[i].is_none()).collect();
    rest.sort_by(|&a, &b| (&natural[a], wires[a]).cmp(&(&natural[b], wires[b])));
    for i in rest {
        out[i] = Some(scope.unique(&natural[i]));
    }
    out.into_iter().flatten().collect()
}

/// A PascalCase part of a type name made from `text` (a title, a
/// definition name), at most [`MAX_NAME`] characters.
pub fn type_part(text: &str) -> String {
    bounded(&pascal(text), MAX_NAME, text)
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

    /// `name`, or the first of `name_2`, `name_3`, … (snake case;
    /// `type_2` for `type_`, never a double `_`) or `Name2`, `Name3`, …
    /// (other names) that is free.
    pub fn unique(&mut self, name: &str) -> String {
        if self.taken.insert(name.to_owned()) {
            return name.to_owned();
        }
        let snake = name
            .chars()
            .next()
            .is_some_and(|c| c.is_lowercase() || c == '_');
        let sep = if name.ends_with('_') { "" } else { "_" };
        for n in 2.. {
            let candidate = if snake {
                format!("{name}{sep}{n}")
            } else {
                format!("{name}{n}")
            };
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
    /// Method identifier: snake case, never a keyword (`type` becomes
    /// `type_tool`), never ending in `_`, so that names derived from it
    /// (`<method>_with`) stay snake case; at most [`MAX_NAME`] characters.
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
    let stems: Vec<String> = tools
        .iter()
        .map(|(wire, over)| {
            let source = over.unwrap_or(wire);
            let s = words(source).join("_");
            let s = if s.is_empty() {
                "tool".to_owned()
            } else if s.starts_with(|c: char| c.is_ascii_digit()) {
                format!("_{s}")
            } else {
                s
            };
            bounded(&s, MAX_NAME - "_tool".len(), source)
        })
        .collect();
    // Keywords get a word more as methods, none as type names.
    let natural: Vec<(String, String)> = stems
        .into_iter()
        .map(|s| {
            if is_keyword(&s) {
                (format!("{s}_tool"), s)
            } else {
                (s.clone(), s)
            }
        })
        .collect();
    let (natural, stems): (Vec<String>, Vec<String>) = natural.into_iter().unzip();
    let mut order: Vec<usize> = (0..tools.len()).collect();
    order.sort_by(|&a, &b| {
        let key = |i: usize| {
            (
                &natural[i],
                tools[i].1.is_none(),
                tools[i].0 != natural[i],
                tools[i].0,
            )
        };
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
        let type_source = if method == natural[i] {
            &stems[i]
        } else {
            &method
        };
        let type_base = types.unique(&typify_pascal(&pascal(type_source)));
        out[i] = Some(ToolNames { method, type_base });
    }
    out.into_iter().flatten().collect()
}

/// What [`surface_names`] names: one manifest's prompts, resource
/// templates and static resources, and the methods and types the tools
/// already use.
#[derive(Debug, Clone, Default)]
pub struct SurfaceRequest<'a> {
    /// Per prompt: its name and the arguments with completion (as field
    /// names of its `Args` struct).
    pub prompts: Vec<(&'a str, Vec<&'a str>)>,
    /// Per resource template: its name and the variables with completion
    /// (as field names of its `Params` struct).
    pub templates: Vec<(&'a str, Vec<&'a str>)>,
    /// Whether there are static resources.
    pub statics: bool,
    /// `Handler` methods already taken (the tools').
    pub server_taken: Vec<String>,
    /// `Client` methods already taken (helpers, tools, `<tool>_with`).
    pub client_taken: Vec<String>,
    /// Type names already taken in `tools.rs` (the tools' `Input` and
    /// `Output` types).
    pub types_taken: Vec<String>,
}

/// Rust names of one prompt or resource template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SurfaceItem {
    /// `snake_case` stem (from the name; unique within its section).
    pub stem: String,
    /// `<Prompt>Args` or `<Template>Params`.
    pub type_name: String,
    /// `Handler` method: `prompt_<stem>` or `read_<stem>`.
    pub server: String,
    /// `Client` method: `get_<stem>` or `read_<stem>`.
    pub client: String,
    /// Per completion, in the order given: `(Handler method, Client
    /// method)`, both `complete_<stem>_<field>`.
    pub completions: Vec<(String, String)>,
}

/// Every Rust name of the prompts, resource templates and static
/// resources of a manifest. See [`surface_names`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SurfaceNames {
    /// One per prompt, in order.
    pub prompts: Vec<SurfaceItem>,
    /// One per resource template, in order.
    pub templates: Vec<SurfaceItem>,
    /// The enum of static resources (`StaticResource`).
    pub static_enum: String,
    /// `(Handler method, Client method)` that reads a static resource
    /// (`read_resource`).
    pub read_resource: (String, String),
    /// Client methods listing every resource, template and prompt
    /// (`list_all_resources`, `list_all_resource_templates`,
    /// `list_all_prompts`).
    pub lists: [String; 3],
}

/// Names for the generated code of prompts, resource templates and static
/// resources that never clash with each other nor with what the tools
/// already use: the tools keep their names, and a name taken already gets
/// `_2`, `_3`, … (`Name2` for types). Fixed names (`read_resource`,
/// `list_all_*`, `StaticResource`) are handed out first, then the
/// prompts', then the templates', each in manifest order; every name made
/// from a wire name is at most [`MAX_NAME`] characters before its suffix.
pub fn surface_names(request: &SurfaceRequest<'_>) -> SurfaceNames {
    let mut server = Scope::new();
    let mut client = Scope::new();
    let mut types = Scope::new();
    for (scope, taken) in [
        (&mut server, &request.server_taken),
        (&mut client, &request.client_taken),
        (&mut types, &request.types_taken),
    ] {
        for name in taken {
            scope.reserve(name);
        }
    }
    let static_enum = if request.statics {
        types.unique("StaticResource")
    } else {
        "StaticResource".to_owned()
    };
    let read_resource = if request.statics {
        (
            server.unique("read_resource"),
            client.unique("read_resource"),
        )
    } else {
        ("read_resource".to_owned(), "read_resource".to_owned())
    };
    let any = request.statics || !request.prompts.is_empty() || !request.templates.is_empty();
    let lists = [
        "list_all_resources",
        "list_all_resource_templates",
        "list_all_prompts",
    ]
    .map(|l| if any { client.unique(l) } else { l.to_owned() });
    let mut section =
        |items: &[(&str, Vec<&str>)], kinds: (&str, &str, &str)| -> Vec<SurfaceItem> {
            let (suffix, server_prefix, client_prefix) = kinds;
            let mut stems = Scope::new();
            items
                .iter()
                .map(|(name, completes)| {
                    let stem = bounded(&snake(name), MAX_NAME - 9, name);
                    let stem = stems.unique(&stem);
                    let type_name = types.unique(&format!("{}{suffix}", pascal(&stem)));
                    // After a prefix, the `_` that keeps a leading digit out of
                    // the front (`_123`) would make a double one (`prompt__123`,
                    // not snake case).
                    let bare = stem.trim_start_matches('_');
                    let server_method = server.unique(&format!("{server_prefix}_{bare}"));
                    let client_method = client.unique(&format!("{client_prefix}_{bare}"));
                    let completions = completes
                        .iter()
                        .map(|field| {
                            let method = format!("complete_{bare}_{}", field.trim_matches('_'));
                            let method = bounded(&method, MAX_NAME, &method);
                            (server.unique(&method), client.unique(&method))
                        })
                        .collect();
                    SurfaceItem {
                        stem,
                        type_name,
                        server: server_method,
                        client: client_method,
                        completions,
                    }
                })
                .collect()
        };
    let prompts = section(&request.prompts, ("Args", "prompt", "get"));
    let templates = section(&request.templates, ("Params", "read", "read"));
    SurfaceNames {
        prompts,
        templates,
        static_enum,
        read_resource,
        lists,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn articles_follow_the_sound() {
        for (name, expected) in [
            ("AddInput", "An"),
            ("EchoOutput", "An"),
            ("UpdateInput", "An"),
            ("UnsubscribeRequest", "An"),
            ("UrlParams", "A"),
            ("UserInput", "A"),
            ("UnitInput", "A"),
            ("Tool", "A"),
            ("GetForecastInput", "A"),
        ] {
            assert_eq!(article(name), expected, "{name}");
        }
    }

    #[test]
    fn tool_type_names_are_spelt_as_typify_spells_them() {
        let names = [
            "prompt_a_b",
            "a_b_c",
            "x_1_y",
            "get_URL",
            "v2_api",
            "2fa",
            "A1B2",
            "get-x",
            "ÜBER_a",
            "type",
            "x",
        ];
        let requests: Vec<(&str, Option<&str>)> = names.iter().map(|n| (*n, None)).collect();
        for (name, t) in names.iter().zip(tool_names(&requests)) {
            for suffix in ["Input", "Output"] {
                let full = format!("{}{suffix}", t.type_base);
                assert_eq!(typify_pascal(&full), full, "tool {name}");
            }
        }
        assert_eq!(tool_names(&[("prompt_a_b", None)])[0].type_base, "PromptAb");
    }

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
        let pairs: Vec<(&str, &str)> = names
            .iter()
            .map(|n| (n.method.as_str(), n.type_base.as_str()))
            .collect();
        assert_eq!(
            pairs,
            [
                ("get_me", "GetMe"),
                ("get_me_2", "GetMe2"),
                ("get_me_3", "GetMe3"),
                ("type_tool", "Type"),
                ("self_tool", "Self"),
                ("match_tool", "Match"),
                ("_3d_render", "V3dRender"),
                ("list_issues", "ListIssues"),
                ("reference", "Reference"),
            ]
        );
    }

    #[test]
    fn field_names_are_unique_bounded_and_keep_plain_wire_names() {
        let long = "p".repeat(100_000);
        let wires = [
            "fooBar", "foo_bar", "self", "Self", "!", "@", "#", "2fa-code", "type", "città", &long,
            "extra",
        ];
        let names = field_names(&wires, &["extra"]);
        assert_eq!(
            names[..11],
            [
                "foo_bar_2",
                "foo_bar",
                "self_2",
                "self_",
                "field",
                "field_3",
                "field_2",
                "x2fa_code",
                "type_",
                "citt",
                &names[10]
            ]
        );
        assert_eq!(names[11], "extra_2");
        assert_eq!(names[10].len(), MAX_NAME - 1);
        assert!(
            names[10].starts_with("ppppp")
                && names[10].ends_with(&format!("_{}", short_hash(&long))),
            "{}",
            names[10]
        );
        // The same names whatever the order of the properties.
        let mut reversed = wires;
        reversed.reverse();
        let again = field_names(&reversed, &["extra"]);
        assert_eq!(
            again.iter().rev().collect::<Vec<_>>(),
            names.iter().collect::<Vec<_>>()
        );
    }

    #[test]
    fn long_names_keep_their_start_and_end_in_a_hash() {
        assert_eq!(bounded("short", 10, "short"), "short");
        let b = bounded("abcdefghijklmnop", 12, "src");
        assert_eq!(b, format!("abc_{}", short_hash("src")));
        let p = bounded("AbcdefghijklmnoP", 12, "src");
        assert_eq!(p, format!("Abcd{}", short_hash("src")));
        assert_eq!(type_part(&"x".repeat(500)).len(), MAX_NAME);
        let t = tool_names(&[(&"a".repeat(128), None)]);
        assert!(
            t[0].method.len() <= MAX_NAME && !t[0].method.ends_with('_'),
            "{:?}",
            t[0]
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

    #[test]
    fn surface_names_of_leading_digits_are_snake_case() {
        let request = SurfaceRequest {
            prompts: vec![("123", vec!["_9lives"])],
            templates: vec![("2fa", vec![])],
            statics: false,
            server_taken: vec![],
            client_taken: vec![],
            types_taken: vec![],
        };
        let n = surface_names(&request);
        let p = &n.prompts[0];
        assert_eq!(
            (p.server.as_str(), p.client.as_str(), p.type_name.as_str()),
            ("prompt_123", "get_123", "V123Args")
        );
        assert_eq!(
            p.completions,
            [(
                "complete_123_9lives".to_owned(),
                "complete_123_9lives".to_owned()
            )]
        );
        assert_eq!(n.templates[0].server, "read_2fa");
    }

    #[test]
    fn surface_names_never_clash_with_tools_or_each_other() {
        let request = SurfaceRequest {
            prompts: vec![
                ("greet", vec!["name"]),
                ("x", vec!["y_z"]),
                ("Greet", vec![]),
            ],
            templates: vec![
                ("resource", vec![]),
                ("x_y", vec!["z"]),
                ("type", vec!["type_"]),
            ],
            statics: true,
            server_taken: vec!["prompt_greet".into(), "read_resource".into()],
            client_taken: vec![
                "get_greet".into(),
                "get_greet_with".into(),
                "list_all_prompts".into(),
            ],
            types_taken: vec!["GreetArgs".into(), "StaticResource".into()],
        };
        let n = surface_names(&request);
        assert_eq!(n.static_enum, "StaticResource2");
        assert_eq!(
            n.read_resource,
            ("read_resource_2".to_owned(), "read_resource".to_owned())
        );
        assert_eq!(
            n.lists,
            [
                "list_all_resources",
                "list_all_resource_templates",
                "list_all_prompts_2"
            ]
        );
        let greet = &n.prompts[0];
        assert_eq!(
            (
                greet.server.as_str(),
                greet.client.as_str(),
                greet.type_name.as_str()
            ),
            ("prompt_greet_2", "get_greet_2", "GreetArgs2")
        );
        assert_eq!(
            greet.completions,
            [(
                "complete_greet_name".to_owned(),
                "complete_greet_name".to_owned()
            )]
        );
        // `Greet` and `greet` share a stem: the second is `greet_2`.
        assert_eq!(n.prompts[2].stem, "greet_2");
        assert_eq!(n.prompts[2].type_name, "Greet2Args");
        // A template called `resource` does not take the static resources' method.
        assert_eq!(n.templates[0].server, "read_resource_3");
        assert_eq!(n.templates[0].client, "read_resource_2");
        // `x` + `y_z` and `x_y` + `z` would both be `complete_x_y_z`.
        assert_eq!(n.prompts[1].completions[0].0, "complete_x_y_z");
        assert_eq!(n.templates[1].completions[0].0, "complete_x_y_z_2");
        // Keyword-derived names stay identifiers without a trailing `_`.
        assert_eq!(n.templates[2].server, "read_type");
        assert_eq!(n.templates[2].completions[0].0, "complete_type_type");
        assert_eq!(n.templates[2].type_name, "TypeParams");
        let all: Vec<&String> = n
            .prompts
            .iter()
            .chain(&n.templates)
            .flat_map(|i| [&i.server, &i.client])
            .collect();
        assert!(all.iter().all(|m| m.len() <= MAX_NAME), "{all:?}");
    }

    #[test]
    fn surface_names_of_long_names_are_bounded() {
        let long = "p".repeat(10_000);
        let request = SurfaceRequest {
            prompts: vec![(&long, vec!["a"])],
            ..SurfaceRequest::default()
        };
        let n = surface_names(&request);
        let p = &n.prompts[0];
        assert!(
            p.server.len() <= MAX_NAME
                && p.client.len() <= MAX_NAME
                && p.type_name.len() <= MAX_NAME + 4,
            "{p:?}"
        );
        assert!(p.completions[0].0.len() <= MAX_NAME, "{p:?}");
        assert!(
            syn::parse_str::<syn::Ident>(&p.server).is_ok()
                && syn::parse_str::<syn::Ident>(&p.type_name).is_ok()
        );
    }
}
