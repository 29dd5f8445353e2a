//! URI references as RFC 3986 has them: splitting into components,
//! resolving a reference against a base (section 5.2) for `$id` and `$ref`,
//! and the syntax checks of the `uri`, `uri-reference`, `iri` and
//! `iri-reference` formats.

/// The five components of a URI reference (appendix B).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Parts<'a> {
    pub scheme: Option<&'a str>,
    pub authority: Option<&'a str>,
    pub path: &'a str,
    pub query: Option<&'a str>,
    pub fragment: Option<&'a str>,
}

pub(super) fn split(s: &str) -> Parts<'_> {
    let (rest, fragment) = match s.split_once('#') {
        Some((r, f)) => (r, Some(f)),
        None => (s, None),
    };
    let (rest, query) = match rest.split_once('?') {
        Some((r, q)) => (r, Some(q)),
        None => (rest, None),
    };
    let (scheme, rest) = match rest.find([':', '/']) {
        Some(at) if rest.as_bytes()[at] == b':' && at > 0 => (Some(&rest[..at]), &rest[at + 1..]),
        _ => (None, rest),
    };
    let (authority, path) = match rest.strip_prefix("//") {
        Some(after) => {
            let end = after.find('/').unwrap_or(after.len());
            (Some(&after[..end]), &after[end..])
        }
        None => (None, rest),
    };
    Parts {
        scheme,
        authority,
        path,
        query,
        fragment,
    }
}

fn join(p: &Parts<'_>, path: &str) -> String {
    let mut out = String::new();
    if let Some(s) = p.scheme {
        out.push_str(s);
        out.push(':');
    }
    if let Some(a) = p.authority {
        out.push_str("//");
        out.push_str(a);
    }
    out.push_str(path);
    if let Some(q) = p.query {
        out.push('?');
        out.push_str(q);
    }
    if let Some(f) = p.fragment {
        out.push('#');
        out.push_str(f);
    }
    out
}

/// `reference` resolved against the absolute `base`.
pub(super) fn resolve(base: &str, reference: &str) -> String {
    let r = split(reference);
    let b = split(base);
    let (scheme, authority, path, query);
    if r.scheme.is_some() {
        (scheme, authority, path, query) = (r.scheme, r.authority, remove_dots(r.path), r.query);
    } else if r.authority.is_some() {
        (scheme, authority, path, query) = (b.scheme, r.authority, remove_dots(r.path), r.query);
    } else if r.path.is_empty() {
        (scheme, authority, path, query) = (
            b.scheme,
            b.authority,
            b.path.to_owned(),
            r.query.or(b.query),
        );
    } else if r.path.starts_with('/') {
        (scheme, authority, path, query) = (b.scheme, b.authority, remove_dots(r.path), r.query);
    } else {
        let merged = if b.authority.is_some() && b.path.is_empty() {
            format!("/{}", r.path)
        } else {
            match b.path.rfind('/') {
                Some(at) => format!("{}{}", &b.path[..=at], r.path),
                None => r.path.to_owned(),
            }
        };
        (scheme, authority, path, query) = (b.scheme, b.authority, remove_dots(&merged), r.query);
    }
    join(
        &Parts {
            scheme,
            authority,
            path: "",
            query,
            fragment: r.fragment,
        },
        &path,
    )
}

fn remove_dots(path: &str) -> String {
    let mut out: Vec<&str> = Vec::new();
    let segments: Vec<&str> = path.split('/').collect();
    for (i, seg) in segments.iter().enumerate() {
        let last = i + 1 == segments.len();
        match *seg {
            "." => {
                if last {
                    out.push("");
                }
            }
            ".." => {
                if out.len() > 1 {
                    out.pop();
                }
                if last {
                    out.push("");
                }
            }
            s => out.push(s),
        }
    }
    out.join("/")
}

/// `s` without its fragment.
pub(super) fn strip_fragment(s: &str) -> &str {
    s.split_once('#').map_or(s, |(r, _)| r)
}

/// `%XX` escapes decoded (a JSON pointer inside a fragment).
pub(super) fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |at: usize| b.get(at).and_then(|c| (*c as char).to_digit(16));
        if let (b'%', Some(high), Some(low)) = (b[i], hex(i + 1), hex(i + 2)) {
            out.push((high * 16 + low) as u8);
            i += 3;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8(out).unwrap_or_else(|_| s.to_owned())
}

fn unreserved(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_' | '~')
}

fn sub_delim(c: char) -> bool {
    matches!(
        c,
        '!' | '$' | '&' | '\'' | '(' | ')' | '*' | '+' | ',' | ';' | '='
    )
}

/// Whether every character of `s` is one of `ok`, a non-ASCII character
/// when `iri`, or a well-formed `%XX`.
fn chars_ok(s: &str, iri: bool, ok: impl Fn(char) -> bool) -> bool {
    let b = s.as_bytes();
    let mut it = s.char_indices();
    while let Some((i, c)) = it.next() {
        if c == '%' {
            if !(i + 2 < b.len() && b[i + 1].is_ascii_hexdigit() && b[i + 2].is_ascii_hexdigit()) {
                return false;
            }
            it.next();
            it.next();
        } else if !ok(c) && (!iri || c.is_ascii() || c.is_control()) {
            return false;
        }
    }
    true
}

fn pchar(c: char) -> bool {
    unreserved(c) || sub_delim(c) || matches!(c, ':' | '@')
}

fn authority_ok(a: &str, iri: bool) -> bool {
    let (userinfo, hostport) = match a.rsplit_once('@') {
        Some((u, h)) => (Some(u), h),
        None => (None, a),
    };
    if userinfo.is_some_and(|u| !chars_ok(u, iri, |c| unreserved(c) || sub_delim(c) || c == ':')) {
        return false;
    }
    let (host, port) = if let Some(rest) = hostport.strip_prefix('[') {
        let Some((literal, after)) = rest.split_once(']') else {
            return false;
        };
        let literal_ok = literal.parse::<std::net::Ipv6Addr>().is_ok()
            || (literal.starts_with(['v', 'V']) && literal.len() > 3 && literal.contains('.'));
        if !literal_ok {
            return false;
        }
        match after {
            "" => ("", None),
            p => match p.strip_prefix(':') {
                Some(port) => ("", Some(port)),
                None => return false,
            },
        }
    } else {
        match hostport.rsplit_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (hostport, None),
        }
    };
    port.is_none_or(|p| p.bytes().all(|d| d.is_ascii_digit()))
        && chars_ok(host, iri, |c| unreserved(c) || sub_delim(c))
}

/// Whether `s` is a URI (`absolute`) or a URI reference; an IRI when `iri`.
pub(super) fn is_valid(s: &str, absolute: bool, iri: bool) -> bool {
    let p = split(s);
    match p.scheme {
        Some(scheme) => {
            let mut cs = scheme.chars();
            if !cs.next().is_some_and(|c| c.is_ascii_alphabetic())
                || !cs.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
            {
                return false;
            }
        }
        None if absolute => return false,
        // A relative path's first segment holds no ':' (it would be a scheme).
        None => {}
    }
    if p.authority.is_some_and(|a| !authority_ok(a, iri)) {
        return false;
    }
    if p.authority.is_none() && p.path.starts_with("//") {
        return false;
    }
    let tail = |t: Option<&str>| {
        t.is_none_or(|t| chars_ok(t, iri, |c| pchar(c) || matches!(c, '/' | '?')))
    };
    chars_ok(p.path, iri, |c| pchar(c) || c == '/') && tail(p.query) && tail(p.fragment)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_as_rfc_3986_section_5_4_says() {
        let base = "http://a/b/c/d;p?q";
        for (r, want) in [
            ("g", "http://a/b/c/g"),
            ("./g", "http://a/b/c/g"),
            ("g/", "http://a/b/c/g/"),
            ("/g", "http://a/g"),
            ("//g", "http://g"),
            ("?y", "http://a/b/c/d;p?y"),
            ("#s", "http://a/b/c/d;p?q#s"),
            ("", "http://a/b/c/d;p?q"),
            (".", "http://a/b/c/"),
            ("..", "http://a/b/"),
            ("../g", "http://a/b/g"),
            ("../../g", "http://a/g"),
            ("../../../g", "http://a/g"),
            ("g;x?y#s", "http://a/b/c/g;x?y#s"),
            ("urn:x:y", "urn:x:y"),
        ] {
            assert_eq!(resolve(base, r), want, "{r}");
        }
        assert_eq!(resolve("urn:uuid:1234", "#/a"), "urn:uuid:1234#/a");
    }

    #[test]
    fn checks_uri_syntax() {
        for ok in [
            "https://example.com/a?b=c#d",
            "docs://it's*/quoted(1)",
            "mailto:a@b.c",
            "urn:isbn:0451450523",
            "http://[::1]:80/",
        ] {
            assert!(is_valid(ok, true, false), "{ok}");
        }
        for bad in [
            "not a uri",
            "docs://\"quoted\"",
            "//host/only",
            "1http://x",
            "http://x/%zz",
            "http://[zz]/",
        ] {
            assert!(!is_valid(bad, true, false), "{bad}");
        }
        assert!(is_valid("../a/b", false, false));
        assert!(!is_valid("http://ü.example/", true, false));
        assert!(is_valid("http://ü.example/", true, true));
        assert_eq!(percent_decode("a%25b%7E"), "a%b~");
        // Never cut inside a character.
        assert_eq!(percent_decode("%aé%é%"), "%aé%é%");
    }
}
