//! Internationalized host names for the `hostname` and `idn-hostname`
//! formats: Punycode (RFC 3492) both ways, and the IDNA2008 rules for a
//! label (RFC 5891 section 5.4, RFC 5892, and the Bidi rule of RFC 5893).
//!
//! A code point is allowed when it is one of RFC 5892's PVALID exceptions,
//! or is a lower-case, other or modifier letter, a mark or a decimal digit
//! that NFKC leaves alone and is not a DISALLOWED exception; the
//! contextual ones (CONTEXTJ and CONTEXTO) only where their rule holds.
//! Categories and scripts come from regex-syntax's Unicode tables, combining
//! classes and NFKC from unicode-normalization, bidi classes from
//! unicode-bidi. One rule is approximated: a ZERO WIDTH NON-JOINER not after
//! a virama is allowed between two letters of the Arabic joining scripts
//! (bidi class AL), transparent marks between them skipped, where RFC 5892
//! reads Unicode's joining types.

use std::sync::OnceLock;

use unicode_bidi::BidiClass;
use unicode_normalization::UnicodeNormalization;

const BASE: u32 = 36;
const T_MIN: u32 = 1;
const T_MAX: u32 = 26;

fn adapt(delta: u32, points: u32, first: bool) -> u32 {
    let mut delta = if first { delta / 700 } else { delta / 2 };
    delta += delta / points;
    let mut k = 0;
    while delta > ((BASE - T_MIN) * T_MAX) / 2 {
        delta /= BASE - T_MIN;
        k += BASE;
    }
    k + (BASE - T_MIN + 1) * delta / (delta + 38)
}

fn threshold(k: u32, bias: u32) -> u32 {
    k.saturating_sub(bias).clamp(T_MIN, T_MAX)
}

fn digit_value(b: u8) -> Option<u32> {
    match b {
        b'a'..=b'z' => Some((b - b'a') as u32),
        b'A'..=b'Z' => Some((b - b'A') as u32),
        b'0'..=b'9' => Some((b - b'0') as u32 + 26),
        _ => None,
    }
}

fn digit_char(d: u32) -> char {
    if d < 26 {
        (b'a' + d as u8) as char
    } else {
        (b'0' + (d - 26) as u8) as char
    }
}

/// The code points Punycode `input` (without `xn--`) stands for.
pub(super) fn decode(input: &str) -> Option<Vec<char>> {
    let (basic, extended) = match input.rfind('-') {
        Some(at) => (&input[..at], &input[at + 1..]),
        None => ("", input),
    };
    if !basic.is_ascii() {
        return None;
    }
    let mut out: Vec<char> = basic.chars().collect();
    let (mut n, mut i, mut bias) = (128u32, 0u32, 72u32);
    let mut bytes = extended.bytes().peekable();
    while bytes.peek().is_some() {
        let old = i;
        let mut w = 1u32;
        let mut k = BASE;
        loop {
            let digit = digit_value(bytes.next()?)?;
            i = i.checked_add(digit.checked_mul(w)?)?;
            let t = threshold(k, bias);
            if digit < t {
                break;
            }
            w = w.checked_mul(BASE - t)?;
            k += BASE;
        }
        let len = out.len() as u32 + 1;
        bias = adapt(i - old, len, old == 0);
        n = n.checked_add(i / len)?;
        i %= len;
        out.insert(i as usize, char::from_u32(n)?);
        i += 1;
    }
    Some(out)
}

/// `label` in Punycode (without `xn--`).
pub(super) fn encode(label: &[char]) -> Option<String> {
    let mut out: String = label.iter().filter(|c| c.is_ascii()).collect();
    let basic = out.len() as u32;
    let mut handled = basic;
    if basic > 0 {
        out.push('-');
    }
    let (mut n, mut delta, mut bias) = (128u32, 0u32, 72u32);
    while (handled as usize) < label.len() {
        let m = label.iter().map(|c| *c as u32).filter(|c| *c >= n).min()?;
        delta = delta.checked_add((m - n).checked_mul(handled + 1)?)?;
        n = m;
        for c in label.iter().map(|c| *c as u32) {
            if c < n {
                delta = delta.checked_add(1)?;
            }
            if c == n {
                let mut q = delta;
                let mut k = BASE;
                loop {
                    let t = threshold(k, bias);
                    if q < t {
                        break;
                    }
                    out.push(digit_char(t + (q - t) % (BASE - t)));
                    q = (q - t) / (BASE - t);
                    k += BASE;
                }
                out.push(digit_char(q));
                bias = adapt(delta, handled + 1, handled == basic);
                delta = 0;
                handled += 1;
            }
        }
        delta += 1;
        n += 1;
    }
    Some(out)
}

/// Sorted code point ranges of some Unicode properties, built once.
struct Table(OnceLock<Vec<(char, char)>>, &'static [&'static str]);

impl Table {
    fn contains(&self, c: char) -> bool {
        let ranges = self.0.get_or_init(|| {
            let mut all: Vec<(char, char)> = self
                .1
                .iter()
                .flat_map(|name| super::pattern::property(false, name).unwrap_or_default())
                .collect();
            all.sort();
            all
        });
        ranges
            .binary_search_by(|(lo, hi)| {
                if *hi < c {
                    std::cmp::Ordering::Less
                } else if *lo > c {
                    std::cmp::Ordering::Greater
                } else {
                    std::cmp::Ordering::Equal
                }
            })
            .is_ok()
    }
}

static LETTERS_DIGITS_MARKS: Table = Table(OnceLock::new(), &["Ll", "Lo", "Lm", "Mn", "Mc", "Nd"]);
static MARKS: Table = Table(OnceLock::new(), &["M"]);
static GREEK: Table = Table(OnceLock::new(), &["Script=Greek"]);
static HEBREW: Table = Table(OnceLock::new(), &["Script=Hebrew"]);
static KANA_HAN: Table = Table(
    OnceLock::new(),
    &["Script=Hiragana", "Script=Katakana", "Script=Han"],
);

fn is_virama(c: char) -> bool {
    unicode_normalization::char::canonical_combining_class(c) == 9
}

/// Whether the ZERO WIDTH NON-JOINER at `at` sits in a joining context:
/// after a virama, or between two Arabic-script letters (marks skipped).
fn zwnj_context(label: &[char], at: usize) -> bool {
    if at > 0 && is_virama(label[at - 1]) {
        return true;
    }
    let joining = |c: &char| unicode_bidi::bidi_class(*c) == BidiClass::AL;
    let before = label[..at].iter().rev().find(|c| !MARKS.contains(**c));
    let after = label[at + 1..].iter().find(|c| !MARKS.contains(**c));
    before.is_some_and(joining) && after.is_some_and(joining)
}

/// Whether code point `i` of `label` may stand there (RFC 5892).
fn allowed(label: &[char], i: usize) -> bool {
    let c = label[i];
    let prev = i.checked_sub(1).map(|p| label[p]);
    let next = label.get(i + 1).copied();
    match c {
        'a'..='z' | '0'..='9' | '-' => true,
        // PVALID exceptions.
        '\u{DF}' | '\u{3C2}' | '\u{6FD}' | '\u{6FE}' | '\u{F0B}' | '\u{3007}' => true,
        // DISALLOWED exceptions.
        '\u{640}' | '\u{7FA}' | '\u{302E}' | '\u{302F}' | '\u{3031}'..='\u{3035}' | '\u{303B}' => {
            false
        }
        // CONTEXTJ.
        '\u{200D}' => prev.is_some_and(is_virama),
        '\u{200C}' => zwnj_context(label, i),
        // CONTEXTO.
        '\u{B7}' => prev == Some('l') && next == Some('l'),
        '\u{375}' => next.is_some_and(|n| GREEK.contains(n)),
        '\u{5F3}' | '\u{5F4}' => prev.is_some_and(|p| HEBREW.contains(p)),
        '\u{30FB}' => label
            .iter()
            .any(|c| *c != '\u{30FB}' && KANA_HAN.contains(*c)),
        '\u{660}'..='\u{669}' => !label.iter().any(|c| ('\u{6F0}'..='\u{6F9}').contains(c)),
        '\u{6F0}'..='\u{6F9}' => !label.iter().any(|c| ('\u{660}'..='\u{669}').contains(c)),
        c if c.is_ascii() => false,
        c => LETTERS_DIGITS_MARKS.contains(c) && std::iter::once(c).nfkc().eq(std::iter::once(c)),
    }
}

/// Whether `label` (lower-cased ASCII letters, or Unicode) is a valid
/// U-label: hyphens in place, no leading mark, every code point allowed.
pub(super) fn u_label(label: &[char]) -> bool {
    !label.is_empty()
        && label[0] != '-'
        && label[label.len() - 1] != '-'
        && !(label.len() >= 4 && label[2] == '-' && label[3] == '-')
        && !MARKS.contains(label[0])
        && (0..label.len()).all(|i| allowed(label, i))
}

/// The U-label an A-label (`xn--…`, any case) stands for, if it is a
/// valid one: canonical Punycode of a valid U-label that is not all ASCII.
pub(super) fn a_label(label: &str) -> Option<Vec<char>> {
    let payload = label.get(4..)?.to_ascii_lowercase();
    let decoded = decode(&payload)?;
    (!decoded.iter().all(char::is_ascii)
        && encode(&decoded).as_deref() == Some(payload.as_str())
        && u_label(&decoded))
    .then_some(decoded)
}

/// Whether the labels of a domain name meet the Bidi rule (RFC 5893
/// section 2), which applies once any label has right-to-left characters.
pub(super) fn bidi_ok(labels: &[Vec<char>]) -> bool {
    use BidiClass::*;
    let rtl = |c: &char| matches!(unicode_bidi::bidi_class(*c), R | AL | AN);
    if !labels.iter().flatten().any(rtl) {
        return true;
    }
    labels.iter().all(|label| {
        let classes: Vec<BidiClass> = label.iter().map(|c| unicode_bidi::bidi_class(*c)).collect();
        let last = classes.iter().rev().find(|c| **c != NSM);
        match classes.first() {
            Some(R | AL) => {
                classes
                    .iter()
                    .all(|c| matches!(c, R | AL | AN | EN | ES | CS | ET | ON | BN | NSM))
                    && matches!(last, Some(R | AL | EN | AN))
                    && !(classes.contains(&EN) && classes.contains(&AN))
            }
            Some(L) => {
                classes
                    .iter()
                    .all(|c| matches!(c, L | EN | ES | CS | ET | ON | BN | NSM))
                    && matches!(last, Some(L | EN))
            }
            _ => false,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn punycode_goes_both_ways() {
        for (unicode, puny) in [
            ("bücher", "bcher-kva"),
            ("실례", "9n2bp8q"),
            ("테스트", "9t4b11yi5a"),
            ("例え", "r8jz45g"),
        ] {
            let chars: Vec<char> = unicode.chars().collect();
            assert_eq!(encode(&chars).as_deref(), Some(puny), "{unicode}");
            assert_eq!(decode(puny), Some(chars), "{puny}");
        }
        assert_eq!(decode("X"), None);
    }

    #[test]
    fn labels_follow_idna_2008() {
        let ok = |s: &str| u_label(&s.chars().collect::<Vec<_>>());
        assert!(ok("bücher") && ok("l·l") && ok("α͵β") && ok("א׳ב") && ok("・ぁ"));
        assert!(!ok("a·l") && !ok("α͵") && !ok("׳ב") && !ok("def・abc") && !ok("ـ"));
        assert!(!ok("\u{301}a") && !ok("ab--c") && !ok("Bücher"));
        assert!(a_label("xn--bcher-kva").is_some());
        assert!(a_label("xn--example-").is_none() && a_label("xn---9uc").is_none());
    }
}
