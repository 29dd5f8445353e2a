//! The meta-schemas of the five drafts, built in: a schema that refers to
//! one (`"$ref": "http://json-schema.org/draft-07/schema#"`, or a 2020-12
//! schema extending `https://json-schema.org/draft/2020-12/meta/core`)
//! compiles without fetching anything. The documents come from the
//! `referencing` crate (the resolver of the `jsonschema` crate), which
//! ships the official texts; they are parsed on first use only.

use serde_json::Value;

/// The built-in document with URI `uri` (no fragment), if there is one.
pub(super) fn document(uri: &str) -> Option<&'static Value> {
    use referencing::meta::*;
    let (old, uri) = match uri.strip_prefix("http://json-schema.org/") {
        Some(rest) => (true, rest),
        None => (false, uri.strip_prefix("https://json-schema.org/")?),
    };
    let doc = match (old, uri) {
        (true, "draft-04/schema") => &DRAFT4,
        (true, "draft-06/schema") => &DRAFT6,
        (true, "draft-07/schema") => &DRAFT7,
        (false, "draft/2019-09/schema") => &DRAFT201909,
        (false, "draft/2019-09/meta/core") => &DRAFT201909_CORE,
        (false, "draft/2019-09/meta/applicator") => &DRAFT201909_APPLICATOR,
        (false, "draft/2019-09/meta/validation") => &DRAFT201909_VALIDATION,
        (false, "draft/2019-09/meta/meta-data") => &DRAFT201909_META_DATA,
        (false, "draft/2019-09/meta/format") => &DRAFT201909_FORMAT,
        (false, "draft/2019-09/meta/content") => &DRAFT201909_CONTENT,
        (false, "draft/2020-12/schema") => &DRAFT202012,
        (false, "draft/2020-12/meta/core") => &DRAFT202012_CORE,
        (false, "draft/2020-12/meta/applicator") => &DRAFT202012_APPLICATOR,
        (false, "draft/2020-12/meta/unevaluated") => &DRAFT202012_UNEVALUATED,
        (false, "draft/2020-12/meta/validation") => &DRAFT202012_VALIDATION,
        (false, "draft/2020-12/meta/meta-data") => &DRAFT202012_META_DATA,
        (false, "draft/2020-12/meta/format-annotation") => &DRAFT202012_FORMAT_ANNOTATION,
        (false, "draft/2020-12/meta/format-assertion") => &DRAFT202012_FORMAT_ASSERTION,
        (false, "draft/2020-12/meta/content") => &DRAFT202012_CONTENT,
        _ => return None,
    };
    Some(&***doc)
}
