//! The generated tool types of the shared manifests (`github.json`, 117
//! tools; `stitch.json`, recursive `$ref`) and of the rule fixtures in
//! `manifests/`, each included as its own module exactly as a user crate
//! would include `tools.rs`. Compiling this crate with `deny(warnings)`
//! (and clippy with `-D warnings`) is the test that they compile cleanly.

#![deny(warnings)]

/// Tools of `../shared/manifests/github.json` (when it is there).
#[cfg(shared_manifests)]
pub mod github {
    include!(concat!(env!("OUT_DIR"), "/github/tools.rs"));
    include!(concat!(env!("OUT_DIR"), "/github/roundtrip.rs"));
}

/// Tools of `../shared/manifests/stitch.json` (when it is there).
#[cfg(shared_manifests)]
pub mod stitch {
    include!(concat!(env!("OUT_DIR"), "/stitch/tools.rs"));
    include!(concat!(env!("OUT_DIR"), "/stitch/roundtrip.rs"));
}

/// Tools of `manifests/rules.json`: one schema feature per tool.
pub mod rules {
    include!(concat!(env!("OUT_DIR"), "/rules/tools.rs"));
    include!(concat!(env!("OUT_DIR"), "/rules/roundtrip.rs"));
}

/// Tools of `manifests/rules.yaml`: the same manifest written in YAML.
pub mod rules_yaml {
    include!(concat!(env!("OUT_DIR"), "/rules_yaml/tools.rs"));
}

/// Tools of `manifests/fallbacks.json`: schemas typify cannot convert.
pub mod fallbacks {
    include!(concat!(env!("OUT_DIR"), "/fallbacks/tools.rs"));
    include!(concat!(env!("OUT_DIR"), "/fallbacks/roundtrip.rs"));
}

/// Tools of `manifests/refs.json`: every shape of local `$ref`.
pub mod refs {
    include!(concat!(env!("OUT_DIR"), "/refs/tools.rs"));
    include!(concat!(env!("OUT_DIR"), "/refs/roundtrip.rs"));
}

/// Tools of `manifests/hostile.json`: property names that collide once
/// cased, doc text with carriage returns and bidirectional controls,
/// integers beyond `i64`, a self-referential `$anchor`, keyword tool names.
pub mod hostile {
    include!(concat!(env!("OUT_DIR"), "/hostile/tools.rs"));
    include!(concat!(env!("OUT_DIR"), "/hostile/roundtrip.rs"));
}

/// Tools of `manifests/shapes.json`: the union and integer shapes real
/// servers' schemas use (const-tagged members, a string beside objects,
/// two string members, unbounded integers).
pub mod shapes {
    include!(concat!(env!("OUT_DIR"), "/shapes/tools.rs"));
    include!(concat!(env!("OUT_DIR"), "/shapes/roundtrip.rs"));
}

/// Tools of the example servers' manifests (`examples/`).
pub mod weather {
    include!(concat!(env!("OUT_DIR"), "/weather/tools.rs"));
    include!(concat!(env!("OUT_DIR"), "/weather/roundtrip.rs"));
}

/// Tools of `examples/notes-server/manifest.json`.
pub mod notes {
    include!(concat!(env!("OUT_DIR"), "/notes/tools.rs"));
    include!(concat!(env!("OUT_DIR"), "/notes/roundtrip.rs"));
}

/// Tools of `examples/conformance-server/tools.json`.
pub mod conformance {
    include!(concat!(env!("OUT_DIR"), "/conformance/tools.rs"));
    include!(concat!(env!("OUT_DIR"), "/conformance/roundtrip.rs"));
}

/// Tools whose properties are all optional, one of every shape the
/// generator types differently (made by `build.rs`).
pub mod optional {
    include!(concat!(env!("OUT_DIR"), "/optional/tools.rs"));
    include!(concat!(env!("OUT_DIR"), "/optional/roundtrip.rs"));
}

/// Tools of every real server's capture in `../shared/manifests/real/`,
/// one module per file, and `ALL`, the table of them.
pub mod real {
    include!(concat!(env!("OUT_DIR"), "/real.rs"));
}

/// `roundtrip(tool, output, value)` of one manifest's module.
pub type RoundTrip =
    fn(&str, bool, ::serde_json::Value) -> Option<Result<::serde_json::Value, String>>;

/// Decodes `value` as `T` the way a generated server decodes arguments
/// (`mcpgen_runtime::server::decode_arguments`) and encodes it back.
pub fn decode_encode<T: ::serde::de::DeserializeOwned + ::serde::Serialize>(
    value: ::serde_json::Value,
) -> Result<::serde_json::Value, String> {
    let decoded: T =
        mcpgen_runtime::server::decode_arguments(value).map_err(|e| format!("{e:?}"))?;
    ::serde_json::to_value(&decoded).map_err(|e| e.to_string())
}

/// Tools made by `build.rs`: 100,000-character names, 60-level nesting,
/// 200-link `$ref` chains.
pub mod hostile_big {
    include!(concat!(env!("OUT_DIR"), "/hostile_big/tools.rs"));
}

/// The binding report of each generated manifest: one line per tool
/// (`tool <wire> <method> <Input> <Output|->`) and per fallback warning.
pub mod reports {
    /// Report of `github.json`.
    #[cfg(shared_manifests)]
    pub const GITHUB: &str = include_str!(concat!(env!("OUT_DIR"), "/github/report.txt"));
    /// Report of `stitch.json`.
    #[cfg(shared_manifests)]
    pub const STITCH: &str = include_str!(concat!(env!("OUT_DIR"), "/stitch/report.txt"));
    /// Report of `rules.json`.
    pub const RULES: &str = include_str!(concat!(env!("OUT_DIR"), "/rules/report.txt"));
    /// Report of `rules.yaml`.
    pub const RULES_YAML: &str = include_str!(concat!(env!("OUT_DIR"), "/rules_yaml/report.txt"));
    /// Report of `refs.json`.
    pub const REFS: &str = include_str!(concat!(env!("OUT_DIR"), "/refs/report.txt"));
    /// Report of `fallbacks.json`.
    pub const FALLBACKS: &str = include_str!(concat!(env!("OUT_DIR"), "/fallbacks/report.txt"));
    /// Report of `hostile.json`.
    pub const HOSTILE: &str = include_str!(concat!(env!("OUT_DIR"), "/hostile/report.txt"));
    /// Report of `shapes.json`.
    pub const SHAPES: &str = include_str!(concat!(env!("OUT_DIR"), "/shapes/report.txt"));
    /// Report of the manifest `build.rs` makes.
    pub const HOSTILE_BIG: &str = include_str!(concat!(env!("OUT_DIR"), "/hostile_big/report.txt"));
}
