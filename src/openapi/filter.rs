//! Which operations are imported: `--include`/`--exclude` filters, each
//! `tag:GLOB`, `op:GLOB` (the operationId, or `METHOD /path` without
//! one), `path:GLOB` or `method:NAME`. An operation is imported when no
//! include is given or any include matches, and no exclude matches. Globs
//! have `*` (any text) and `?` (one character); methods match in any case.

use crate::error::{Error, ErrorKind};

/// One filter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Filter {
    /// An operation tagged with a tag the glob matches.
    Tag(String),
    /// An operation whose id the glob matches.
    Op(String),
    /// An operation whose path template the glob matches.
    Path(String),
    /// An operation of this method.
    Method(String),
}

impl std::str::FromStr for Filter {
    type Err = Error;

    fn from_str(text: &str) -> Result<Self, Error> {
        let usage = || {
            Error::new(format!("`{text}` is not a filter"))
                .with_kind(ErrorKind::Usage)
                .with_hint("write tag:GLOB, op:GLOB, path:GLOB or method:NAME (e.g. tag:pets, op:list*, path:/v1/*, method:get)")
        };
        let (kind, value) = text.split_once(':').ok_or_else(usage)?;
        Ok(match kind {
            "tag" => Filter::Tag(value.to_owned()),
            "op" => Filter::Op(value.to_owned()),
            "path" => Filter::Path(value.to_owned()),
            "method" => Filter::Method(value.to_ascii_uppercase()),
            _ => return Err(usage()),
        })
    }
}

/// What filters look at in an operation.
#[derive(Debug)]
pub(crate) struct Facts<'a> {
    pub tags: Vec<&'a str>,
    pub id: &'a str,
    pub path: &'a str,
    pub method: &'a str,
}

impl Filter {
    /// Whether the filter matches an operation.
    pub(crate) fn matches(&self, f: &Facts) -> bool {
        match self {
            Filter::Tag(g) => f.tags.iter().any(|t| glob(g, t)),
            Filter::Op(g) => glob(g, f.id),
            Filter::Path(g) => glob(g, f.path),
            Filter::Method(m) => f.method.eq_ignore_ascii_case(m),
        }
    }
}

/// Whether `pattern` (`*`, `?`) matches all of `text`, in linear space and
/// at most quadratic time.
pub(crate) fn glob(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    let (mut pi, mut ti) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || p[pi] == t[ti]) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some((pi, ti));
            pi += 1;
        } else if let Some((sp, st)) = star {
            pi = sp + 1;
            ti = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|c| *c == '*')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_and_filters() {
        assert!(glob("list*", "listPets"));
        assert!(glob("/v1/*/x", "/v1/a/b/x"));
        assert!(glob("?et", "get"));
        assert!(!glob("list*", "getPets"));
        assert!(glob("*", ""));
        let facts = Facts {
            tags: vec!["pets"],
            id: "listPets",
            path: "/pets",
            method: "GET",
        };
        assert!("tag:pe*".parse::<Filter>().unwrap().matches(&facts));
        assert!("method:get".parse::<Filter>().unwrap().matches(&facts));
        assert!(!"path:/users*".parse::<Filter>().unwrap().matches(&facts));
        assert!("bogus".parse::<Filter>().is_err());
        assert!("size:1".parse::<Filter>().is_err());
    }
}
