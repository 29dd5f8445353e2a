//! The OAuth scope lists a manifest declares (`x-mcpgen.scopes` of tools,
//! resources, templates and prompts): each one RFC 6749 scope token, none
//! listed twice.

use super::Manifest;
use crate::error::Error;

/// The `x-mcpgen.scopes` of an item at `pointer`: each an RFC 6749 scope
/// token (printable ASCII, no space, `"` or `\\`), none twice.
pub(super) fn check_scopes(m: &Manifest, scopes: &[String], pointer: &str, out: &mut Vec<Error>) {
    for (i, scope) in scopes.iter().enumerate() {
        let at = format!("{pointer}/{i}");
        let valid = !scope.is_empty()
            && scope
                .bytes()
                .all(|b| b == 0x21 || (0x23..=0x5B).contains(&b) || (0x5D..=0x7E).contains(&b));
        if !valid {
            out.push(m.error_at(&at, format!("{scope:?} is not an OAuth scope")).with_hint(
                "a scope is printable ASCII without spaces, quotes or backslashes (RFC 6749 §3.3), e.g. `notes:write`; list several scopes as several strings",
            ));
        } else if scopes[..i].contains(scope) {
            out.push(
                m.error_at(&at, format!("the scope {scope:?} is listed twice"))
                    .with_hint("list each scope once"),
            );
        }
    }
}
