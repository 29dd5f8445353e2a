//! The `format` values the drafts define, as checks on strings: dates and
//! times (RFC 3339), durations (ISO 8601 as RFC 3339 appendix A has them),
//! e-mail addresses and host names, IP addresses, URIs and IRIs, URI
//! templates (RFC 6570), UUIDs, JSON pointers and ECMA-262 patterns. A
//! format a dialect does not define is an annotation, as the drafts say.

use super::uri;
use super::Draft;

/// A format the validator asserts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Format {
    Date,
    DateTime,
    Time,
    Duration,
    Email,
    IdnEmail,
    /// RFC 1123 host names (drafts 4 and 6).
    Hostname1123,
    /// RFC 1123 with IDNA2008 A-labels (draft-07 on).
    Hostname,
    IdnHostname,
    Ipv4,
    Ipv6,
    Uri,
    UriReference,
    Iri,
    IriReference,
    UriTemplate,
    Uuid,
    JsonPointer,
    RelativeJsonPointer,
    Regex,
}

impl Format {
    /// The format `name` stands for in `draft`, if that draft defines it.
    pub(super) fn named(name: &str, draft: Draft) -> Option<Format> {
        use Draft::*;
        let since = |first: Draft, f: Format| (draft >= first).then_some(f);
        match name {
            "date" => Some(Format::Date),
            "date-time" => Some(Format::DateTime),
            "time" => Some(Format::Time),
            "duration" => since(Draft201909, Format::Duration),
            "email" => Some(Format::Email),
            "idn-email" => since(Draft7, Format::IdnEmail),
            "hostname" if draft <= Draft6 => Some(Format::Hostname1123),
            "hostname" => Some(Format::Hostname),
            "idn-hostname" => since(Draft7, Format::IdnHostname),
            "ipv4" => Some(Format::Ipv4),
            "ipv6" => Some(Format::Ipv6),
            "uri" => Some(Format::Uri),
            "uri-reference" => since(Draft6, Format::UriReference),
            "iri" => since(Draft7, Format::Iri),
            "iri-reference" => since(Draft7, Format::IriReference),
            "uri-template" => since(Draft6, Format::UriTemplate),
            "uuid" => since(Draft201909, Format::Uuid),
            "json-pointer" => since(Draft6, Format::JsonPointer),
            "relative-json-pointer" => since(Draft7, Format::RelativeJsonPointer),
            "regex" => Some(Format::Regex),
            _ => None,
        }
    }

    /// Whether `s` is in the format.
    pub(super) fn accepts(self, s: &str) -> bool {
        match self {
            Format::Date => date(s),
            Format::DateTime => s
                .split_once(['T', 't'])
                .is_some_and(|(d, t)| date(d) && time(t)),
            Format::Time => time(s),
            Format::Duration => duration(s),
            Format::Email => email(s, false),
            Format::IdnEmail => email(s, true),
            Format::Hostname1123 => !s.is_empty() && s.len() <= 253 && s.split('.').all(ldh),
            Format::Hostname => hostname(s, false),
            Format::IdnHostname => hostname(s, true),
            Format::Ipv4 => ipv4(s),
            Format::Ipv6 => s.parse::<std::net::Ipv6Addr>().is_ok(),
            Format::Uri => uri::is_valid(s, true, false),
            Format::UriReference => uri::is_valid(s, false, false),
            Format::Iri => uri::is_valid(s, true, true),
            Format::IriReference => uri::is_valid(s, false, true),
            Format::UriTemplate => uri_template(s),
            Format::Uuid => uuid(s),
            Format::JsonPointer => json_pointer(s),
            Format::RelativeJsonPointer => relative_json_pointer(s),
            Format::Regex => regress::Regex::new(s).is_ok(),
        }
    }
}

/// `n` ASCII digits at the start of `s`, as a number, and the rest.
fn digits(s: &str, n: usize) -> Option<(u32, &str)> {
    let head = s.get(..n)?;
    if !head.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((head.parse().ok()?, &s[n..]))
}

fn date(s: &str) -> bool {
    let parse = || -> Option<bool> {
        let (y, rest) = digits(s, 4)?;
        let (m, rest) = digits(rest.strip_prefix('-')?, 2)?;
        let (d, rest) = digits(rest.strip_prefix('-')?, 2)?;
        let leap = y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);
        let days = match m {
            1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
            4 | 6 | 9 | 11 => 30,
            2 if leap => 29,
            2 => 28,
            _ => return Some(false),
        };
        Some(rest.is_empty() && (1..=days).contains(&d))
    };
    parse() == Some(true)
}

fn time(s: &str) -> bool {
    let parse = || -> Option<bool> {
        let (h, rest) = digits(s, 2)?;
        let (m, rest) = digits(rest.strip_prefix(':')?, 2)?;
        let (sec, mut rest) = digits(rest.strip_prefix(':')?, 2)?;
        if let Some(frac) = rest.strip_prefix('.') {
            let n = frac.bytes().take_while(u8::is_ascii_digit).count();
            if n == 0 {
                return Some(false);
            }
            rest = &frac[n..];
        }
        let offset = match rest {
            "Z" | "z" => 0,
            _ => {
                let sign = match rest.as_bytes().first()? {
                    b'+' => 1,
                    b'-' => -1,
                    _ => return Some(false),
                };
                let (oh, r) = digits(&rest[1..], 2)?;
                let (om, r) = digits(r.strip_prefix(':')?, 2)?;
                if !r.is_empty() || oh > 23 || om > 59 {
                    return Some(false);
                }
                sign * (oh as i32 * 60 + om as i32)
            }
        };
        if h > 23 || m > 59 || sec > 60 {
            return Some(false);
        }
        // A leap second only at 23:59:60 UTC.
        let utc = (h as i32 * 60 + m as i32 - offset).rem_euclid(24 * 60);
        Some(sec < 60 || utc == 23 * 60 + 59)
    };
    parse() == Some(true)
}

/// An RFC 3339 appendix A duration: `P` then date units in order, each
/// following the one before (`P1Y2M`, not `P1Y2D`), and after `T` time
/// units likewise; or weeks alone.
fn duration(s: &str) -> bool {
    let Some(body) = s.strip_prefix('P') else {
        return false;
    };
    let (date, time) = match body.split_once('T') {
        Some((d, t)) => (d, Some(t)),
        None => (body, None),
    };
    // Components in order, each a number and its letter, with no unit
    // skipped between two of them; how many there are.
    let units = |part: &str, letters: &[u8]| -> Option<usize> {
        let mut last: Option<usize> = None;
        let mut count = 0;
        let mut rest = part.as_bytes();
        while !rest.is_empty() {
            let n = rest.iter().take_while(|b| b.is_ascii_digit()).count();
            let unit = *rest.get(n)?;
            let at = letters.iter().position(|l| *l == unit)?;
            if n == 0 || last.is_some_and(|l| at != l + 1) {
                return None;
            }
            last = Some(at);
            count += 1;
            rest = &rest[n + 1..];
        }
        Some(count)
    };
    if date.contains('W') {
        return time.is_none() && units(date, b"W") == Some(1);
    }
    let Some(d) = units(date, b"YMD") else {
        return false;
    };
    match time {
        None => d > 0,
        Some(t) => units(t, b"HMS").is_some_and(|n| n > 0),
    }
}

/// RFC 6570 syntax: literals and `{…}` expressions of an optional
/// operator and variables with an optional `:n` prefix or `*` modifier.
fn uri_template(s: &str) -> bool {
    let b = s.as_bytes();
    let pct = |i: usize| {
        b.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
            && b.get(i + 2).is_some_and(u8::is_ascii_hexdigit)
    };
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'{' => {
                let Some(len) = b[i + 1..].iter().position(|c| *c == b'}') else {
                    return false;
                };
                let body = &s[i + 1..i + 1 + len];
                let list = body
                    .strip_prefix(['+', '#', '.', '/', ';', '?', '&'])
                    .unwrap_or(body);
                if !list.split(',').all(varspec) {
                    return false;
                }
                i += len + 2;
            }
            b'%' if pct(i) => i += 3,
            0..=0x20 | 0x7F | b'"' | b'<' | b'>' | b'\\' | b'^' | b'`' | b'|' | b'}' | b'%' => {
                return false
            }
            _ => i += 1,
        }
    }
    true
}

/// One RFC 6570 variable: a name of `.`-separated runs of letters, digits,
/// `_` and `%XX`, then `*` or `:` and a length from 1 to 9999.
fn varspec(spec: &str) -> bool {
    let (name, modifier) = match spec.split_once(':') {
        Some((n, m)) => (n, Some(m)),
        None => (spec.strip_suffix('*').unwrap_or(spec), None),
    };
    let name_ok = !name.is_empty()
        && name.split('.').all(|run| {
            let b = run.as_bytes();
            let mut i = 0;
            while i < b.len() {
                match b[i] {
                    b'%' if b.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
                        && b.get(i + 2).is_some_and(u8::is_ascii_hexdigit) =>
                    {
                        i += 3
                    }
                    c if c.is_ascii_alphanumeric() || c == b'_' => i += 1,
                    _ => return false,
                }
            }
            !b.is_empty()
        });
    let modifier_ok = modifier.is_none_or(|m| {
        (1..=4).contains(&m.len()) && !m.starts_with('0') && m.bytes().all(|d| d.is_ascii_digit())
    });
    name_ok && modifier_ok
}

/// A host name: dot-separated labels of ASCII letters, digits and inner
/// hyphens (no trailing dot, as the test suite has it), 253 characters at
/// most; a label with `--` in third and fourth place must be a valid
/// IDNA2008 A-label (`xn--…`). With `idn`, labels may also be U-labels
/// (and `。`, `．`, `｡` separate them too), checked as IDNA2008 says.
fn hostname(s: &str, idn: bool) -> bool {
    if !idn {
        return !s.is_empty() && s.len() <= 253 && s.split('.').all(|l| ascii_label(l).is_some());
    }
    let mut ascii_len = 0;
    let mut labels = Vec::new();
    for (i, label) in s
        .split(['.', '\u{3002}', '\u{FF0E}', '\u{FF61}'])
        .enumerate()
    {
        ascii_len += usize::from(i > 0);
        let u_label = if label.is_ascii() {
            ascii_len += label.len();
            ascii_label(label)
        } else {
            let chars: Vec<char> = label.chars().map(|c| c.to_ascii_lowercase()).collect();
            let a_label = super::idna::encode(&chars);
            match a_label {
                Some(a) if a.len() + 4 <= 63 && super::idna::u_label(&chars) => {
                    ascii_len += a.len() + 4;
                    Some(chars)
                }
                _ => None,
            }
        };
        match u_label {
            Some(u) => labels.push(u),
            None => return false,
        }
    }
    ascii_len <= 253 && super::idna::bidi_ok(&labels)
}

/// Whether `label` is 1 to 63 ASCII letters, digits and inner hyphens.
fn ldh(label: &str) -> bool {
    let b = label.as_bytes();
    (1..=63).contains(&b.len())
        && b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'-')
        && b[0] != b'-'
        && b[b.len() - 1] != b'-'
}

/// An ASCII label's code points (an A-label's decoded), if it is valid.
fn ascii_label(label: &str) -> Option<Vec<char>> {
    if !ldh(label) {
        return None;
    }
    let b = label.as_bytes();
    if b.len() >= 4 && &b[2..4] == b"--" {
        return if b[..2].eq_ignore_ascii_case(b"xn") {
            super::idna::a_label(label)
        } else {
            None
        };
    }
    Some(label.to_ascii_lowercase().chars().collect())
}

fn email(s: &str, idn: bool) -> bool {
    let Some((local, domain)) = s.rsplit_once('@') else {
        return false;
    };
    let local_ok = if let Some(quoted) = local.strip_prefix('"').and_then(|l| l.strip_suffix('"')) {
        !quoted.contains(['"', '\\'])
    } else {
        let atext = |c: char| {
            c.is_ascii_alphanumeric() || "!#$%&'*+-/=?^_`{|}~".contains(c) || (idn && !c.is_ascii())
        };
        !local.is_empty()
            && local.len() <= 64
            && local
                .split('.')
                .all(|part| !part.is_empty() && part.chars().all(atext))
    };
    let domain_ok = match domain.strip_prefix('[').and_then(|d| d.strip_suffix(']')) {
        Some(literal) => match literal.strip_prefix("IPv6:") {
            Some(v6) => v6.parse::<std::net::Ipv6Addr>().is_ok(),
            None => ipv4(literal),
        },
        None => hostname(domain, idn),
    };
    local_ok && domain_ok
}

fn ipv4(s: &str) -> bool {
    let parts: Vec<&str> = s.split('.').collect();
    parts.len() == 4
        && parts.iter().all(|p| {
            !p.is_empty()
                && p.len() <= 3
                && p.bytes().all(|b| b.is_ascii_digit())
                && (p.len() == 1 || !p.starts_with('0'))
                && p.parse::<u16>().is_ok_and(|n| n <= 255)
        })
}

fn uuid(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, c)| {
            if matches!(i, 8 | 13 | 18 | 23) {
                *c == b'-'
            } else {
                c.is_ascii_hexdigit()
            }
        })
}

fn json_pointer(s: &str) -> bool {
    (s.is_empty() || s.starts_with('/')) && {
        let b = s.as_bytes();
        b.iter()
            .enumerate()
            .all(|(i, c)| *c != b'~' || matches!(b.get(i + 1), Some(b'0' | b'1')))
    }
}

fn relative_json_pointer(s: &str) -> bool {
    let n = s.bytes().take_while(u8::is_ascii_digit).count();
    if n == 0 || (n > 1 && s.starts_with('0')) {
        return false;
    }
    let rest = &s[n..];
    rest == "#" || json_pointer(rest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_accept_and_refuse() {
        let cases: &[(Format, &[&str], &[&str])] = &[
            (
                Format::Date,
                &["2024-02-29", "2025-12-31"],
                &["2025-02-29", "2025-13-01", "2025-1-01", "2025-01-01x"],
            ),
            (
                Format::DateTime,
                &[
                    "2025-01-01T00:00:00Z",
                    "1990-12-31t15:59:59.123-08:00",
                    "1998-12-31T23:59:60Z",
                ],
                &[
                    "2025-01-01 00:00:00Z",
                    "2025-01-01T00:00:00",
                    "2025-01-01T12:00:60Z",
                    "2025-01-01T24:00:00Z",
                ],
            ),
            (
                Format::Duration,
                &["P4DT12H30M5S", "P1W", "PT1M", "P1Y2M"],
                &["P", "PT", "P1D2H", "P1Y2W", "P2M1Y", "1D"],
            ),
            (
                Format::Email,
                &[
                    "a@b.example",
                    "first.last+tag@sub.example.com",
                    "\"john doe\"@example.com",
                    "a@[127.0.0.1]",
                ],
                &[
                    "plain",
                    "a@",
                    "@b.c",
                    "a..b@c.example",
                    ".a@c.example",
                    "a@-b.example",
                ],
            ),
            (
                Format::Hostname,
                &["example.com", "a-b.c", "localhost"],
                &["-a.com", "a_b.com", "", "a..b"],
            ),
            (
                Format::Ipv4,
                &["127.0.0.1", "255.255.255.255"],
                &["256.0.0.1", "1.2.3", "01.2.3.4", "1.2.3.4.5"],
            ),
            (
                Format::Ipv6,
                &["::1", "2001:db8::8a2e:370:7334", "::ffff:1.2.3.4"],
                &["12345::", "1:2:3", "::1%eth0"],
            ),
            (
                Format::Uuid,
                &["2eb8aa08-aa98-11ea-b4aa-73b441d16380"],
                &[
                    "2eb8aa08aa9811eab4aa73b441d16380",
                    "2eb8aa08-aa98-11ea-b4aa-73b441d1638g",
                ],
            ),
            (
                Format::JsonPointer,
                &["", "/a/b~0c~1", "/"],
                &["a", "/~2", "/a~"],
            ),
            (
                Format::RelativeJsonPointer,
                &["0", "1#", "2/a"],
                &["", "-1", "01", "#"],
            ),
            (
                Format::UriTemplate,
                &["http://example.com/{id}", "docs://{+path}"],
                &["http://example.com/{id"],
            ),
            (
                Format::Regex,
                &["^[a-z]+$", "(?<y>\\d{4})"],
                &["[a-", "(?<"],
            ),
        ];
        for (format, good, bad) in cases {
            for s in *good {
                assert!(format.accepts(s), "{format:?} refuses {s:?}");
            }
            for s in *bad {
                assert!(!format.accepts(s), "{format:?} accepts {s:?}");
            }
        }
    }

    #[test]
    fn formats_belong_to_their_drafts() {
        assert_eq!(Format::named("uuid", Draft::Draft7), None);
        assert_eq!(
            Format::named("uuid", Draft::Draft202012),
            Some(Format::Uuid)
        );
        assert_eq!(Format::named("iri", Draft::Draft6), None);
        assert_eq!(Format::named("x-custom", Draft::Draft202012), None);
    }
}
