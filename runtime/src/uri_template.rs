//! URI templates (RFC 6570, levels 1 to 3; level-4 modifiers are parsed
//! and matched as plain values): parsing with positions for error
//! messages, expansion (what a client sends for a resource template's
//! parameters) and matching (which template a `resources/read` URI
//! belongs to, and its variables).
//!
//! Matching is expansion read backwards: an expression matches the text
//! its expansion could have produced, with backtracking over where each
//! expression ends, bounded by a step budget so that no URI can make it
//! run long.

use serde_json::{Map, Value};

/// The longest URI [`UriTemplate::matches`] looks at.
pub const MAX_URI_LEN: usize = 8 * 1024;
/// Backtracking steps one match may take before giving up.
const STEP_BUDGET: usize = 10_000;

/// An expression operator (RFC 6570 §2.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operator {
    /// `{var}`: simple string expansion.
    Simple,
    /// `{+var}`: reserved expansion.
    Reserved,
    /// `{#var}`: fragment expansion.
    Fragment,
    /// `{.var}`: label expansion.
    Label,
    /// `{/var}`: path segments.
    Path,
    /// `{;var}`: path-style parameters.
    PathParam,
    /// `{?var}`: form-style query.
    Query,
    /// `{&var}`: form-style query continuation.
    QueryContinuation,
}

impl Operator {
    fn from_char(c: char) -> Option<Self> {
        Some(match c {
            '+' => Operator::Reserved,
            '#' => Operator::Fragment,
            '.' => Operator::Label,
            '/' => Operator::Path,
            ';' => Operator::PathParam,
            '?' => Operator::Query,
            '&' => Operator::QueryContinuation,
            _ => return None,
        })
    }

    /// What the expansion starts with, when it is not empty.
    fn prefix(self) -> &'static str {
        match self {
            Operator::Simple | Operator::Reserved => "",
            Operator::Fragment => "#",
            Operator::Label => ".",
            Operator::Path => "/",
            Operator::PathParam => ";",
            Operator::Query => "?",
            Operator::QueryContinuation => "&",
        }
    }

    /// What separates the values of one expression.
    fn separator(self) -> char {
        match self {
            Operator::Simple | Operator::Reserved | Operator::Fragment => ',',
            Operator::Label => '.',
            Operator::Path => '/',
            Operator::PathParam => ';',
            Operator::Query | Operator::QueryContinuation => '&',
        }
    }

    /// Whether values are written `name=value`.
    fn named(self) -> bool {
        matches!(
            self,
            Operator::PathParam | Operator::Query | Operator::QueryContinuation
        )
    }

    /// Whether reserved characters stay as they are in values.
    fn allows_reserved(self) -> bool {
        matches!(self, Operator::Reserved | Operator::Fragment)
    }

    /// Whether a URI may leave this expression's variables out: only
    /// the simple, reserved, label and path operators always write
    /// their value.
    pub fn optional(self) -> bool {
        matches!(
            self,
            Operator::Fragment
                | Operator::PathParam
                | Operator::Query
                | Operator::QueryContinuation
        )
    }
}

/// One variable of an expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Variable {
    /// The variable name.
    pub name: String,
    /// The operator of its expression.
    pub operator: Operator,
    /// A level-4 prefix length (`{var:3}`).
    pub prefix: Option<usize>,
    /// A level-4 explode modifier (`{var*}`).
    pub explode: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Literal(String),
    Expression {
        operator: Operator,
        variables: Vec<Variable>,
    },
}

/// A parsed URI template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UriTemplate {
    text: String,
    parts: Vec<Part>,
}

/// Why a template is not valid RFC 6570.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemplateError {
    /// Byte offset in the template where the problem is.
    pub offset: usize,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for TemplateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} (at byte {})", self.message, self.offset)
    }
}

impl std::error::Error for TemplateError {}

fn is_unreserved(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_' | '~')
}

fn is_reserved(c: char) -> bool {
    matches!(
        c,
        ':' | '/'
            | '?'
            | '#'
            | '['
            | ']'
            | '@'
            | '!'
            | '$'
            | '&'
            | '\''
            | '('
            | ')'
            | '*'
            | '+'
            | ','
            | ';'
            | '='
    )
}

/// Whether `s` starts with `%XX`.
fn pct_at(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() >= 3 && b[0] == b'%' && b[1].is_ascii_hexdigit() && b[2].is_ascii_hexdigit()
}

impl UriTemplate {
    /// Parses `text`.
    pub fn parse(text: &str) -> Result<Self, TemplateError> {
        let err = |offset: usize, message: String| TemplateError { offset, message };
        let mut parts = Vec::new();
        let mut literal = String::new();
        let mut names = std::collections::HashSet::new();
        let mut i = 0;
        while i < text.len() {
            let rest = &text[i..];
            let c = rest.chars().next().unwrap_or('\0');
            match c {
                '{' => {
                    let Some(close) = rest.find('}') else {
                        return Err(err(i, "unclosed expression: `{` without `}`".into()));
                    };
                    let body = &rest[1..close];
                    if !literal.is_empty() {
                        parts.push(Part::Literal(std::mem::take(&mut literal)));
                    }
                    let (operator, list, list_at) = match body.chars().next() {
                        None => return Err(err(i, "empty expression `{}`".into())),
                        Some(op @ ('=' | ',' | '!' | '@' | '|')) => {
                            return Err(err(
                                i + 1,
                                format!("operator `{op}` is reserved for future extensions"),
                            ))
                        }
                        Some(op) => match Operator::from_char(op) {
                            Some(operator) => (operator, &body[1..], i + 2),
                            None => (Operator::Simple, body, i + 1),
                        },
                    };
                    let mut variables = Vec::new();
                    let mut at = list_at;
                    for spec in list.split(',') {
                        let variable = parse_varspec(spec, operator).map_err(|m| err(at, m))?;
                        if !names.insert(variable.name.clone()) {
                            return Err(err(
                                at,
                                format!("variable `{}` appears twice", variable.name),
                            ));
                        }
                        variables.push(variable);
                        at += spec.len() + 1;
                    }
                    parts.push(Part::Expression {
                        operator,
                        variables,
                    });
                    i += close + 1;
                }
                '}' => return Err(err(i, "`}` outside an expression".into())),
                '%' if !pct_at(rest) => {
                    return Err(err(i, "`%` not followed by two hex digits".into()))
                }
                c if c.is_control()
                    || matches!(c, ' ' | '"' | '\'' | '<' | '>' | '\\' | '^' | '`' | '|') =>
                {
                    return Err(err(
                        i,
                        format!("character {c:?} is not allowed in a URI template literal"),
                    ))
                }
                c => {
                    literal.push(c);
                    i += c.len_utf8();
                }
            }
        }
        if !literal.is_empty() {
            parts.push(Part::Literal(literal));
        }
        Ok(Self {
            text: text.to_owned(),
            parts,
        })
    }

    /// The template text.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Every variable, in order.
    pub fn variables(&self) -> impl Iterator<Item = &Variable> {
        self.parts.iter().flat_map(|p| match p {
            Part::Expression { variables, .. } => variables.as_slice(),
            Part::Literal(_) => &[],
        })
    }

    /// Whether the template has no expressions (one fixed URI).
    pub fn is_fixed(&self) -> bool {
        self.variables().next().is_none()
    }

    /// Expands the template with string values from `values` (other
    /// values are written as their JSON text; `null` and missing ones
    /// are undefined).
    pub fn expand(&self, values: &Map<String, Value>) -> String {
        let mut out = String::with_capacity(self.text.len() + 16);
        for part in &self.parts {
            match part {
                Part::Literal(text) => out.push_str(text),
                Part::Expression {
                    operator,
                    variables,
                } => {
                    let mut first = true;
                    for variable in variables {
                        let value = match values.get(&variable.name) {
                            None | Some(Value::Null) => continue,
                            Some(Value::String(s)) => s.clone(),
                            Some(other) => other.to_string(),
                        };
                        let value: String = match variable.prefix {
                            Some(n) => value.chars().take(n).collect(),
                            None => value,
                        };
                        out.push_str(if first { operator.prefix() } else { "" });
                        if !first {
                            out.push(operator.separator());
                        }
                        first = false;
                        if operator.named() {
                            out.push_str(&variable.name);
                            if value.is_empty() && *operator == Operator::PathParam {
                                continue;
                            }
                            out.push('=');
                        }
                        encode_into(&mut out, &value, operator.allows_reserved());
                    }
                }
            }
        }
        out
    }

    /// The variables of `uri` when it is an expansion of this template,
    /// percent-decoded; `None` when it is not (or too long to look at).
    pub fn matches(&self, uri: &str) -> Option<Map<String, Value>> {
        if uri.len() > MAX_URI_LEN {
            return None;
        }
        let mut values = Map::new();
        let mut steps = 0;
        self.match_from(0, uri, &mut values, &mut steps)
            .then_some(values)
    }

    fn match_from(
        &self,
        part: usize,
        rest: &str,
        values: &mut Map<String, Value>,
        steps: &mut usize,
    ) -> bool {
        *steps += 1;
        if *steps > STEP_BUDGET {
            return false;
        }
        let Some(current) = self.parts.get(part) else {
            return rest.is_empty();
        };
        match current {
            Part::Literal(text) => rest
                .strip_prefix(text.as_str())
                .is_some_and(|r| self.match_from(part + 1, r, values, steps)),
            Part::Expression {
                operator,
                variables,
            } => {
                // Longest first: a value runs as far as the rest allows.
                // Only ends where what follows can match are tried.
                let next = self.parts.get(part + 1);
                for end in (0..=rest.len()).rev() {
                    let fits = match next {
                        None => end == rest.len(),
                        Some(Part::Literal(text)) => {
                            rest.is_char_boundary(end) && rest[end..].starts_with(text.as_str())
                        }
                        Some(Part::Expression { .. }) => rest.is_char_boundary(end),
                    };
                    if !fits {
                        continue;
                    }
                    *steps += 1;
                    if *steps > STEP_BUDGET {
                        return false;
                    }
                    let Some(found) = read_expression(*operator, variables, &rest[..end]) else {
                        continue;
                    };
                    let added: Vec<String> = found.keys().cloned().collect();
                    values.extend(found);
                    if self.match_from(part + 1, &rest[end..], values, steps) {
                        return true;
                    }
                    for key in added {
                        values.remove(&key);
                    }
                }
                false
            }
        }
    }
}

impl std::fmt::Display for UriTemplate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

fn parse_varspec(spec: &str, operator: Operator) -> Result<Variable, String> {
    let (name, prefix, explode) = if let Some(name) = spec.strip_suffix('*') {
        (name, None, true)
    } else if let Some((name, len)) = spec.split_once(':') {
        let ok = !len.is_empty()
            && len.len() <= 4
            && !len.starts_with('0')
            && len.bytes().all(|b| b.is_ascii_digit());
        let n = len.parse::<usize>().ok().filter(|_| ok).ok_or_else(|| {
            format!("prefix length `{len}` of `{name}` must be a number from 1 to 9999")
        })?;
        (name, Some(n), false)
    } else {
        (spec, None, false)
    };
    if name.is_empty() {
        return Err("an expression needs a variable name".into());
    }
    let mut i = 0;
    let mut after_dot = true;
    while i < name.len() {
        let rest = &name[i..];
        if pct_at(rest) {
            i += 3;
            after_dot = false;
            continue;
        }
        let c = rest.chars().next().unwrap_or('\0');
        if c == '.' && !after_dot {
            after_dot = true;
        } else if c.is_ascii_alphanumeric() || c == '_' {
            after_dot = false;
        } else {
            return Err(format!(
                "`{name}` is not a variable name (letters, digits, `_`, `%XX`, inner dots)"
            ));
        }
        i += c.len_utf8();
    }
    if after_dot {
        return Err(format!("variable name `{name}` must not end with a dot"));
    }
    Ok(Variable {
        name: name.to_owned(),
        operator,
        prefix,
        explode,
    })
}

/// Percent-encodes `value` for an expansion.
fn encode_into(out: &mut String, value: &str, allow_reserved: bool) {
    let mut i = 0;
    while i < value.len() {
        let rest = &value[i..];
        let c = rest.chars().next().unwrap_or('\0');
        if allow_reserved && pct_at(rest) {
            out.push_str(&rest[..3]);
            i += 3;
            continue;
        }
        if is_unreserved(c) || (allow_reserved && is_reserved(c)) {
            out.push(c);
        } else {
            let mut buf = [0u8; 4];
            for b in c.encode_utf8(&mut buf).bytes() {
                out.push_str(&format!("%{b:02X}"));
            }
        }
        i += c.len_utf8();
    }
}

/// Decodes `%XX` sequences; `None` when the result is not UTF-8 or the
/// text holds characters an expansion of `operator` never writes.
fn decode(text: &str, allow_reserved: bool) -> Option<String> {
    let mut bytes = Vec::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        let rest = &text[i..];
        if pct_at(rest) {
            bytes.push(u8::from_str_radix(&rest[1..3], 16).ok()?);
            i += 3;
            continue;
        }
        let c = rest.chars().next()?;
        if !(is_unreserved(c) || (allow_reserved && is_reserved(c))) {
            return None;
        }
        let mut buf = [0u8; 4];
        bytes.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
        i += c.len_utf8();
    }
    String::from_utf8(bytes).ok()
}

/// The variables one expression's expansion `text` holds.
fn read_expression(
    operator: Operator,
    variables: &[Variable],
    text: &str,
) -> Option<Map<String, Value>> {
    let mut found = Map::new();
    if text.is_empty() {
        // Every variable undefined: allowed where values are optional.
        return operator.optional().then_some(found);
    }
    let body = text.strip_prefix(operator.prefix())?;
    let reserved = operator.allows_reserved();
    if operator.named() {
        for piece in body.split(operator.separator()) {
            let (name, value) = match piece.split_once('=') {
                Some((name, value)) => (name, value),
                None if operator == Operator::PathParam => (piece, ""),
                None => return None,
            };
            let variable = variables.iter().find(|v| v.name == name)?;
            if found.contains_key(name) {
                return None;
            }
            let value = decode(value, reserved)?;
            if variable.prefix.is_some_and(|n| value.chars().count() > n) {
                return None;
            }
            found.insert(name.to_owned(), Value::String(value));
        }
        return Some(found);
    }
    let pieces: Vec<&str> = body.splitn(variables.len(), operator.separator()).collect();
    for (variable, piece) in variables.iter().zip(pieces) {
        let value = decode(piece, reserved)?;
        if value.is_empty() && !operator.optional() {
            return None;
        }
        if variable.prefix.is_some_and(|n| value.chars().count() > n) {
            return None;
        }
        found.insert(variable.name.clone(), Value::String(value));
    }
    // Path-like expressions write every defined value; all must be there.
    (operator.optional() || found.len() == variables.len()).then_some(found)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn vars(value: Value) -> Map<String, Value> {
        value.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn simple_templates_match_and_expand() {
        let t = UriTemplate::parse("test://template/{id}/data").unwrap();
        assert_eq!(
            t.matches("test://template/123/data"),
            Some(vars(json!({"id": "123"})))
        );
        assert_eq!(t.matches("test://template//data"), None);
        assert_eq!(
            t.matches("test://template/1/2/data"),
            None,
            "a simple value holds no slash"
        );
        assert_eq!(t.matches("test://other/123/data"), None);
        assert_eq!(
            t.expand(&vars(json!({"id": "a b/c"}))),
            "test://template/a%20b%2Fc/data"
        );
        assert_eq!(
            t.matches("test://template/a%20b%2Fc/data"),
            Some(vars(json!({"id": "a b/c"})))
        );
    }

    #[test]
    fn level_two_and_three_operators() {
        let t = UriTemplate::parse("file://{+path}").unwrap();
        assert_eq!(
            t.matches("file:///etc/hosts"),
            Some(vars(json!({"path": "/etc/hosts"})))
        );
        let t = UriTemplate::parse("repo://{owner}/{repo}{/path}{?ref,depth}").unwrap();
        let got = t.matches("repo://o/r/src?ref=main&depth=2").unwrap();
        assert_eq!(
            got,
            vars(json!({"owner": "o", "repo": "r", "path": "src", "ref": "main", "depth": "2"}))
        );
        let got = t.matches("repo://o/r/src").unwrap();
        assert_eq!(got, vars(json!({"owner": "o", "repo": "r", "path": "src"})));
        assert_eq!(t.expand(&got), "repo://o/r/src");
        let full = vars(json!({"owner": "o", "repo": "r", "path": "a", "ref": "x y"}));
        assert_eq!(t.expand(&full), "repo://o/r/a?ref=x%20y");
        assert_eq!(t.matches(&t.expand(&full)), Some(full));
        let t = UriTemplate::parse("x:{;a,b}{#frag}").unwrap();
        assert_eq!(
            t.matches("x:;a=1;b#top"),
            Some(vars(json!({"a": "1", "b": "", "frag": "top"})))
        );
        let t = UriTemplate::parse("img:{name}{.ext}").unwrap();
        assert_eq!(
            t.matches("img:cat.png"),
            Some(vars(json!({"name": "cat", "ext": "png"})))
        );
    }

    #[test]
    fn invalid_templates_are_reported_with_offsets() {
        for (text, offset) in [
            ("a{b", 1),
            ("a}b", 1),
            ("a{}", 1),
            ("x{=y}", 2),
            ("x{a-b}", 2),
            ("x{a,a}", 4),
            ("x {a}", 1),
            ("x{a:0}", 2),
            ("x%zz", 1),
        ] {
            let e = UriTemplate::parse(text).unwrap_err();
            assert_eq!(e.offset, offset, "{text}: {e}");
        }
        assert!(UriTemplate::parse("x{a:10}{/b*}").is_ok());
    }

    #[test]
    fn hostile_uris_end_quickly_without_a_match() {
        let t = UriTemplate::parse("{a}{b}{c}{d}{e}{f}x").unwrap();
        let uri = "a".repeat(4000);
        assert_eq!(t.matches(&uri), None);
        assert_eq!(t.matches(&"a".repeat(MAX_URI_LEN + 1)), None);
    }
}
