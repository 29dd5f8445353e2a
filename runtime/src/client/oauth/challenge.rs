//! The `WWW-Authenticate` header of a `401` or `403` (RFC 6750 §3, RFC 9728
//! §5.1, RFC 9449 §7.1): the `Bearer` or `DPoP` challenge's
//! `resource_metadata`, `scope` and `error` parameters, and whether the
//! server offers DPoP.

/// What a `Bearer` or `DPoP` challenge says (the first value of each
/// parameter wins).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Challenge {
    /// `resource_metadata`: where the protected resource metadata is.
    pub resource_metadata: Option<String>,
    /// `scope`, split on spaces.
    pub scope: Option<Vec<String>>,
    /// `error` (`invalid_token`, `insufficient_scope`, ...).
    pub error: Option<String>,
    /// `error_description`.
    pub error_description: Option<String>,
    /// Whether a `DPoP` challenge was among them.
    pub dpop: bool,
}

impl Challenge {
    /// The `Bearer` and `DPoP` challenges among the values of
    /// `WWW-Authenticate` headers; an empty challenge when there is none.
    pub fn parse<'a>(headers: impl IntoIterator<Item = &'a str>) -> Self {
        let mut out = Self::default();
        for header in headers {
            let mut in_bearer = false;
            for (scheme, key, value) in params(header) {
                if let Some(scheme) = scheme {
                    let dpop = scheme.eq_ignore_ascii_case("dpop");
                    out.dpop |= dpop;
                    in_bearer = dpop || scheme.eq_ignore_ascii_case("bearer");
                }
                if !in_bearer {
                    continue;
                }
                let Some(key) = key else { continue };
                match key.to_ascii_lowercase().as_str() {
                    "resource_metadata" => {
                        out.resource_metadata.get_or_insert(value);
                    }
                    "scope" => {
                        out.scope.get_or_insert_with(|| {
                            value
                                .split(' ')
                                .filter(|s| !s.is_empty())
                                .map(str::to_owned)
                                .collect()
                        });
                    }
                    "error" => {
                        out.error.get_or_insert(value);
                    }
                    "error_description" => {
                        out.error_description.get_or_insert(value);
                    }
                    _ => {}
                }
            }
        }
        out
    }

    /// Whether the server asks for more scope (`403 insufficient_scope`).
    pub fn insufficient_scope(&self) -> bool {
        self.error.as_deref() == Some("insufficient_scope")
    }
}

/// The auth-params of a header value, each with the scheme that starts a
/// new challenge before it: `(Some(scheme), None, "")` for a scheme alone.
fn params(text: &str) -> Vec<(Option<String>, Option<String>, String)> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    let token_end = |mut i: usize| {
        while i < bytes.len() && !matches!(bytes[i], b' ' | b'\t' | b',' | b'=') {
            i += 1;
        }
        i
    };
    let skip = |mut i: usize| {
        while i < bytes.len() && matches!(bytes[i], b' ' | b'\t' | b',') {
            i += 1;
        }
        i
    };
    loop {
        i = skip(i);
        if i >= bytes.len() {
            break;
        }
        let end = token_end(i);
        let word = &text[i..end];
        let mut j = end;
        while j < bytes.len() && matches!(bytes[j], b' ' | b'\t') {
            j += 1;
        }
        if j < bytes.len() && bytes[j] == b'=' && !word.is_empty() {
            // key=value
            j += 1;
            while j < bytes.len() && matches!(bytes[j], b' ' | b'\t') {
                j += 1;
            }
            let mut value = String::new();
            if j < bytes.len() && bytes[j] == b'"' {
                j += 1;
                let mut chars = text[j..].char_indices();
                let mut consumed = text.len() - j;
                while let Some((k, c)) = chars.next() {
                    match c {
                        '\\' => {
                            if let Some((_, n)) = chars.next() {
                                value.push(n);
                            }
                        }
                        '"' => {
                            consumed = k + 1;
                            break;
                        }
                        c => value.push(c),
                    }
                }
                j += consumed;
            } else {
                let end = token_end(j);
                value.push_str(&text[j..end]);
                j = end;
            }
            out.push((None, Some(word.to_owned()), value));
            i = j;
        } else if word.is_empty() {
            i = end + 1; // a stray '='
        } else {
            out.push((Some(word.to_owned()), None, String::new()));
            i = end;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bearer_parameters_are_read_and_other_schemes_ignored() {
        let c = Challenge::parse([
            r#"Basic realm="x", Bearer error="insufficient_scope", scope="mcp:read mcp:write", resource_metadata="http://h/.well-known/oauth-protected-resource/mcp", error_description="needs \"write\"""#,
        ]);
        assert_eq!(c.error.as_deref(), Some("insufficient_scope"));
        assert_eq!(
            c.scope,
            Some(vec!["mcp:read".to_owned(), "mcp:write".to_owned()])
        );
        assert_eq!(
            c.resource_metadata.as_deref(),
            Some("http://h/.well-known/oauth-protected-resource/mcp")
        );
        assert_eq!(c.error_description.as_deref(), Some(r#"needs "write""#));
        assert!(c.insufficient_scope());
        let c = Challenge::parse([r#"Basic realm="r", scope="not-bearer""#, "Bearer"]);
        assert_eq!(c, Challenge::default());
        let c = Challenge::parse(["bearer error=invalid_token"]);
        assert_eq!(c.error.as_deref(), Some("invalid_token"));
    }

    #[test]
    fn dpop_challenges_are_read_and_the_first_value_wins() {
        let c = Challenge::parse([
            r#"DPoP error="use_dpop_nonce", resource_metadata="http://h/prm", algs="ES256""#,
        ]);
        assert!(c.dpop);
        assert_eq!(c.error.as_deref(), Some("use_dpop_nonce"));
        assert_eq!(c.resource_metadata.as_deref(), Some("http://h/prm"));
        let c = Challenge::parse([
            r#"Bearer resource_metadata="http://h/a", DPoP resource_metadata="http://h/b""#,
        ]);
        assert!(c.dpop);
        assert_eq!(c.resource_metadata.as_deref(), Some("http://h/a"));
        assert!(!Challenge::parse(["Bearer error=invalid_token"]).dpop);
    }
}
