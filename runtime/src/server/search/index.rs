//! The ranking behind `search_tools`: a BM25 index of a tool catalog.
//!
//! A tool's text is its name (split into words: `get_forecast`,
//! `getForecast` and `get-forecast` all give `get` and `forecast`), title,
//! description, and its parameters' names and descriptions. Words are
//! lower-cased, common English words left out, and plurals and verb endings
//! taken off ([`words`]), the same way for the catalog and for a query.
//! Fields count with weights (a word of the name counts three times, of the
//! title or a parameter name twice, of a description once), so a term's
//! frequency in a tool is the weighted count and a tool's length the sum
//! of its weights: BM25 (k1 = 1.2, b = 0.75) over those.
//!
//! The generator computes the index ([`SearchIndex::build`]) and compiles
//! it into the bindings as static data ([`SearchIndex::from_static`]); a
//! server built by hand computes it once when it is built. A query reads
//! the index without allocating: words are lower-cased into a buffer on
//! the stack, scores accumulate in a per-thread table reused between
//! queries, and only the answer (at most `limit` tools) is allocated.
//!
//! Written here rather than taken from a crate: the index must be
//! emitted as Rust static data by the generator and read without building
//! anything at start-up, which the BM25 crates (in-memory indexes built at
//! run time) do not offer.

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::BTreeMap;

use serde_json::Value;

/// BM25 term-frequency saturation.
const K1: f32 = 1.2;
/// BM25 length normalisation.
const B: f32 = 0.75;
/// Longest word kept, in bytes (longer words are cut, the same way for the
/// catalog and for queries).
const MAX_WORD: usize = 32;

/// Weights of the fields of a tool.
const NAME: u32 = 3;
const TITLE: u32 = 2;
const PARAMETER: u32 = 2;
const DESCRIPTION: u32 = 1;

/// Words too common to tell tools apart.
const STOP_WORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "by", "can", "do", "for", "from", "have", "i", "if",
    "in", "into", "is", "it", "its", "me", "my", "of", "on", "or", "so", "that", "the", "this",
    "to", "use", "was", "we", "what", "when", "which", "will", "with", "you", "your",
];

/// One tool's weighted count of one term: `[tool, weight]`, the tool's
/// position in the catalog and the term's weighted count in it (a pair,
/// so the generated tables stay short).
pub type Posting = [u32; 2];

/// A BM25 index of a tool catalog: sorted terms, each with the tools that
/// contain it; borrowed from static data or owned.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchIndex {
    /// The terms, sorted.
    terms: Cow<'static, [&'static str]>,
    /// Owned terms, when the index was built at run time (then `terms` is
    /// empty and these are read instead).
    owned_terms: Vec<String>,
    /// Term `i`'s postings are `postings[starts[i]..starts[i + 1]]`.
    starts: Cow<'static, [u32]>,
    /// Every term's postings, by term, each term's by tool.
    postings: Cow<'static, [Posting]>,
    /// Per tool, the sum of its terms' weights.
    lengths: Cow<'static, [u32]>,
}

/// Why an index does not fit the catalog it is given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexMismatch(pub String);

impl std::fmt::Display for IndexMismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl SearchIndex {
    /// The index of generated bindings: the four tables as
    /// [`build`](Self::build) computed them (see [`terms`](Self::terms) and
    /// the other readers).
    pub const fn from_static(
        terms: &'static [&'static str],
        starts: &'static [u32],
        postings: &'static [Posting],
        lengths: &'static [u32],
    ) -> Self {
        SearchIndex {
            terms: Cow::Borrowed(terms),
            owned_terms: Vec::new(),
            starts: Cow::Borrowed(starts),
            postings: Cow::Borrowed(postings),
            lengths: Cow::Borrowed(lengths),
        }
    }

    /// Indexes `tools` (`Tool` objects, in catalog order).
    pub fn build(tools: &[Value]) -> Self {
        let mut table: BTreeMap<String, BTreeMap<u32, u32>> = BTreeMap::new();
        let mut lengths = Vec::with_capacity(tools.len());
        for (at, tool) in tools.iter().enumerate() {
            let at = u32::try_from(at).unwrap_or(u32::MAX);
            let mut length = 0u32;
            let mut add = |text: &str, weight: u32| {
                words(text, |word| {
                    *table
                        .entry(word.to_owned())
                        .or_default()
                        .entry(at)
                        .or_default() += weight;
                    length += weight;
                });
            };
            let text = |key: &str| tool.get(key).and_then(Value::as_str);
            add(text("name").unwrap_or_default(), NAME);
            add(text("title").unwrap_or_default(), TITLE);
            add(text("description").unwrap_or_default(), DESCRIPTION);
            let properties = tool
                .pointer("/inputSchema/properties")
                .and_then(Value::as_object);
            for (name, schema) in properties.into_iter().flatten() {
                add(name, PARAMETER);
                for key in ["title", "description"] {
                    if let Some(text) = schema.get(key).and_then(Value::as_str) {
                        add(text, DESCRIPTION);
                    }
                }
            }
            lengths.push(length);
        }
        let mut starts = Vec::with_capacity(table.len() + 1);
        let mut postings = Vec::new();
        let mut owned_terms = Vec::with_capacity(table.len());
        for (term, tools) in table {
            starts.push(postings.len() as u32);
            postings.extend(tools.into_iter().map(|(tool, weight)| [tool, weight]));
            owned_terms.push(term);
        }
        starts.push(postings.len() as u32);
        SearchIndex {
            terms: Cow::Borrowed(&[]),
            owned_terms,
            starts: Cow::Owned(starts),
            postings: Cow::Owned(postings),
            lengths: Cow::Owned(lengths),
        }
    }

    /// The number of tools indexed.
    pub fn tools(&self) -> usize {
        self.lengths.len()
    }

    /// The terms, sorted (what [`from_static`](Self::from_static) takes first).
    pub fn terms(&self) -> Vec<&str> {
        (0..self.term_count()).map(|i| self.term(i)).collect()
    }

    /// Where each term's postings start, and their end.
    pub fn starts(&self) -> &[u32] {
        &self.starts
    }

    /// Every term's postings.
    pub fn postings(&self) -> &[Posting] {
        &self.postings
    }

    /// Per tool, its length (the sum of its terms' weights).
    pub fn lengths(&self) -> &[u32] {
        &self.lengths
    }

    fn term_count(&self) -> usize {
        if self.owned_terms.is_empty() {
            self.terms.len()
        } else {
            self.owned_terms.len()
        }
    }

    fn term(&self, i: usize) -> &str {
        if self.owned_terms.is_empty() {
            self.terms[i]
        } else {
            &self.owned_terms[i]
        }
    }

    /// Checks that the tables are whole and agree with a catalog of
    /// `tools` tools (an index generated from another manifest does not).
    pub fn check(&self, tools: usize) -> Result<(), IndexMismatch> {
        let bad = |what: String| Err(IndexMismatch(what));
        if self.tools() != tools {
            return bad(format!(
                "the search index covers {} tools, the catalog has {tools}; regenerate the bindings",
                self.tools()
            ));
        }
        let terms = self.term_count();
        if self.starts.len() != terms + 1
            || self.starts.last() != Some(&(self.postings.len() as u32))
        {
            return bad("the search index's term table is cut short".into());
        }
        if self.starts.windows(2).any(|w| w[0] > w[1]) {
            return bad("the search index's postings are out of order".into());
        }
        if (1..terms).any(|i| self.term(i - 1) >= self.term(i)) {
            return bad("the search index's terms are not sorted".into());
        }
        if self
            .postings
            .iter()
            .any(|&[tool, _]| tool as usize >= tools)
        {
            return bad("the search index names a tool the catalog lacks".into());
        }
        Ok(())
    }

    /// The tools that match `query` best, best first, at most `limit`:
    /// `(position in the catalog, score)`. Tools no word of the query
    /// matches are left out; `keep` decides, per tool, whether it may be
    /// answered at all (the caller's permissions). Equal scores keep
    /// catalog order.
    pub fn search(
        &self,
        query: &str,
        limit: usize,
        keep: impl Fn(usize) -> bool,
    ) -> Vec<(usize, f32)> {
        let count = self.tools();
        if count == 0 || limit == 0 {
            return Vec::new();
        }
        let average = self.lengths.iter().map(|&l| l as f32).sum::<f32>() / count as f32;
        let average = average.max(1.0);
        SCORES.with(|scores| {
            let mut scores = scores.borrow_mut();
            scores.clear();
            scores.resize(count, 0.0);
            words(query, |word| {
                let Some(term) = self.find(word) else {
                    return;
                };
                let postings =
                    &self.postings[self.starts[term] as usize..self.starts[term + 1] as usize];
                let df = postings.len() as f32;
                let idf = (1.0 + (count as f32 - df + 0.5) / (df + 0.5)).ln();
                for &[tool, weight] in postings {
                    let tf = weight as f32;
                    let length = self.lengths[tool as usize] as f32;
                    let norm = K1 * (1.0 - B + B * length / average);
                    scores[tool as usize] += idf * tf * (K1 + 1.0) / (tf + norm);
                }
            });
            let mut best: Vec<(usize, f32)> = Vec::with_capacity(limit.min(count));
            for (tool, &score) in scores.iter().enumerate() {
                if score <= 0.0 || (best.len() == limit && score <= best[limit - 1].1) {
                    continue;
                }
                if !keep(tool) {
                    continue;
                }
                let at = best.partition_point(|&(_, s)| s >= score);
                if best.len() == limit {
                    best.pop();
                }
                best.insert(at, (tool, score));
            }
            best
        })
    }

    /// The position of `word` among the terms.
    fn find(&self, word: &str) -> Option<usize> {
        let (mut low, mut high) = (0, self.term_count());
        while low < high {
            let mid = (low + high) / 2;
            match self.term(mid).cmp(word) {
                std::cmp::Ordering::Less => low = mid + 1,
                std::cmp::Ordering::Greater => high = mid,
                std::cmp::Ordering::Equal => return Some(mid),
            }
        }
        None
    }
}

thread_local! {
    /// Per-tool scores of the query being ranked, reused between queries.
    static SCORES: RefCell<Vec<f32>> = const { RefCell::new(Vec::new()) };
}

/// Calls `f` with each word of `text` as indexed: split at anything but
/// letters and digits, at lower-to-upper case changes (`getForecast`) and
/// between letters and digits; lower-cased; stop words left out; plurals
/// and `-ing`/`-ed` endings taken off. Chinese, Japanese and Korean text,
/// written without spaces between words, gives each pair of neighbouring
/// characters (a lone character alone), so `创建仓库` and `仓库` meet on
/// `仓库`. No allocation.
pub fn words(text: &str, mut f: impl FnMut(&str)) {
    let mut buffer = [0u8; MAX_WORD];
    let mut len = 0usize;
    let mut previous: Option<char> = None;
    // The run of CJK characters under way: its last character and length.
    let mut run: (Option<char>, usize) = (None, 0);
    for c in text.chars() {
        if is_cjk(c) {
            flush(&mut buffer, &mut len, &mut f);
            previous = None;
            if let (Some(p), _) = run {
                let mut pair = [0u8; 8];
                let first = p.encode_utf8(&mut pair).len();
                let second = c.encode_utf8(&mut pair[first..]).len();
                if let Ok(pair) = std::str::from_utf8(&pair[..first + second]) {
                    f(pair);
                }
            }
            run = (Some(c), run.1 + 1);
            continue;
        }
        end_run(&mut run, &mut f);
        if !c.is_alphanumeric() {
            flush(&mut buffer, &mut len, &mut f);
            previous = None;
            continue;
        }
        if let Some(p) = previous {
            let case_turn = p.is_lowercase() && c.is_uppercase();
            let digit_turn = p.is_ascii_digit() != c.is_ascii_digit();
            if case_turn || digit_turn {
                flush(&mut buffer, &mut len, &mut f);
            }
        }
        previous = Some(c);
        for lower in c.to_lowercase() {
            let mut bytes = [0u8; 4];
            let encoded = lower.encode_utf8(&mut bytes).as_bytes();
            if len + encoded.len() <= MAX_WORD {
                buffer[len..len + encoded.len()].copy_from_slice(encoded);
                len += encoded.len();
            }
        }
    }
    end_run(&mut run, &mut f);
    flush(&mut buffer, &mut len, &mut f);
}

/// Hands the word in `buffer` to `f` (unless a stop word), and empties it.
fn flush(buffer: &mut [u8; MAX_WORD], len: &mut usize, f: &mut impl FnMut(&str)) {
    if *len > 0 {
        // Only whole characters were written.
        if let Ok(word) = std::str::from_utf8(&buffer[..*len]) {
            if !STOP_WORDS.contains(&word) {
                f(stem(word));
            }
        }
        *len = 0;
    }
}

/// Ends a run of CJK characters: a run of one character is a word itself
/// (longer runs gave their pairs already).
fn end_run(run: &mut (Option<char>, usize), f: &mut impl FnMut(&str)) {
    if let (Some(c), 1) = *run {
        let mut one = [0u8; 4];
        f(c.encode_utf8(&mut one));
    }
    *run = (None, 0);
}

/// Han ideographs, kana and Hangul syllables: scripts written without
/// spaces between words (Korean is, but its syllable pairs serve too).
fn is_cjk(c: char) -> bool {
    matches!(c,
        '\u{3040}'..='\u{30FF}'     // Hiragana, Katakana
        | '\u{3400}'..='\u{4DBF}'   // Han, extension A
        | '\u{4E00}'..='\u{9FFF}'   // Han
        | '\u{AC00}'..='\u{D7AF}'   // Hangul syllables
        | '\u{F900}'..='\u{FAFF}'   // Han compatibility
        | '\u{20000}'..='\u{2A6DF}' // Han, extension B
    )
}

/// Takes English inflections off a lower-case word, keeping at least three
/// letters: a plural (`alerts` → `alert`, `queries` and `query` → `quer`,
/// `boxes` → `box`), then `-ing` or `-ed`, then a final `e`, so `create`,
/// `creates`, `created` and `creating` all give `creat`. Conservative by
/// design (an S-stemmer with the commonest verb endings): a word and its
/// inflections meet; unrelated words stay apart.
fn stem(word: &str) -> &str {
    let word = plural(word);
    let word = ["ing", "ed"]
        .iter()
        .find_map(|ending| word.strip_suffix(ending).filter(|s| long_enough(s)))
        .unwrap_or(word);
    word.strip_suffix('e')
        .filter(|s| long_enough(s))
        .unwrap_or(word)
}

/// A word without its plural ending, or a final `y` (so `query` meets
/// `queries`).
fn plural(word: &str) -> &str {
    if let Some(stem) = word.strip_suffix("ies").filter(|s| long_enough(s)) {
        return stem;
    }
    if let Some(stem) = word.strip_suffix('y').filter(|s| long_enough(s)) {
        if !stem.ends_with(['a', 'e', 'o', 'u']) {
            return stem;
        }
    }
    for ending in ["sses", "xes", "ches", "shes", "zes"] {
        if word.ends_with(ending) {
            return &word[..word.len() - 2];
        }
    }
    match word.strip_suffix('s').filter(|s| long_enough(s)) {
        Some(stem) if !stem.ends_with(['s', 'u', 'i']) => stem,
        _ => word,
    }
}

fn long_enough(stem: &str) -> bool {
    stem.chars().count() >= 3
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn all_words(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        words(text, |w| out.push(w.to_owned()));
        out
    }

    #[test]
    fn names_split_into_words_in_every_spelling() {
        for name in ["get_forecast", "getForecast", "get-forecast", "GetForecast"] {
            assert_eq!(all_words(name), ["get", "forecast"], "{name}");
        }
        assert_eq!(all_words("listV2Items"), ["list", "v", "2", "item"]);
        assert_eq!(all_words("Ärger über Größe"), ["ärger", "über", "größ"]);
        assert_eq!(all_words("创建仓库"), ["创建", "建仓", "仓库"]);
        assert_eq!(all_words("在 CNB 上新建"), ["在", "cnb", "上新", "新建"]);
        assert_eq!(all_words("仓库list"), ["仓库", "list"]);
    }

    #[test]
    fn inflections_meet_and_stop_words_go() {
        assert_eq!(all_words("the alerts"), all_words("alert"));
        assert_eq!(all_words("queries"), all_words("query"));
        assert_eq!(all_words("boxes"), all_words("box"));
        assert_eq!(all_words("forecasting"), all_words("forecast"));
        assert_eq!(all_words("issues"), all_words("issue"));
        for form in ["creates", "created", "creating"] {
            assert_eq!(all_words(form), all_words("create"), "{form}");
        }
        assert_eq!(all_words("states"), all_words("state"));
        assert_eq!(all_words("addresses"), all_words("address"));
        assert_eq!(all_words("status"), ["status"]);
        assert_eq!(all_words("day"), ["day"]);
        assert!(all_words("what is the").is_empty());
    }

    #[test]
    fn a_word_longer_than_the_buffer_is_cut_the_same_way_everywhere() {
        let long = "a".repeat(100);
        let cut = all_words(&long);
        assert_eq!(cut, ["a".repeat(MAX_WORD)]);
        // A multi-byte character never straddles the cut.
        let accents = "é".repeat(40);
        assert_eq!(all_words(&accents), ["é".repeat(MAX_WORD / 2)]);
    }

    fn catalog() -> Vec<Value> {
        vec![
            json!({"name": "get_forecast", "description": "Weather forecast for a place.",
                   "inputSchema": {"type": "object", "properties": {
                       "latitude": {"type": "number"}, "longitude": {"type": "number"}}}}),
            json!({"name": "get_alerts", "title": "Weather alerts",
                   "description": "Active weather alerts for a US state.",
                   "inputSchema": {"type": "object", "properties": {
                       "state": {"type": "string", "description": "Two-letter state code"}}}}),
            json!({"name": "send_email", "description": "Sends an email message.",
                   "inputSchema": {"type": "object", "properties": {
                       "to": {"type": "string"}, "subject": {"type": "string"}}}}),
            json!({"name": "create_issue", "description": "Opens an issue in a repository.",
                   "inputSchema": {"type": "object", "properties": {
                       "email_address": {"type": "string", "description": "Who is told"}}}}),
        ]
    }

    #[test]
    fn the_best_match_comes_first_and_unmatched_tools_stay_out() {
        let index = SearchIndex::build(&catalog());
        index.check(4).unwrap();
        let found = index.search("weather alerts for Texas", 10, |_| true);
        let order: Vec<usize> = found.iter().map(|&(t, _)| t).collect();
        assert_eq!(order, [1, 0], "{found:?}");
        assert!(found[0].1 > found[1].1);
        // A parameter name is searched too; the name weighs more.
        let order: Vec<usize> = index
            .search("email", 10, |_| true)
            .iter()
            .map(|&(t, _)| t)
            .collect();
        assert_eq!(order, [2, 3]);
        assert!(index.search("zebra", 10, |_| true).is_empty());
        assert!(index.search("", 10, |_| true).is_empty());
    }

    #[test]
    fn the_limit_and_the_permission_filter_hold() {
        let index = SearchIndex::build(&catalog());
        let found = index.search("weather alerts email", 1, |_| true);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].0, 1);
        let found = index.search("weather alerts", 5, |tool| tool != 1);
        assert_eq!(found.iter().map(|f| f.0).collect::<Vec<_>>(), [0]);
    }

    #[test]
    fn a_static_copy_answers_as_the_built_index_does() {
        let built = SearchIndex::build(&catalog());
        let terms: Vec<&'static str> = built
            .terms()
            .into_iter()
            .map(|t| &*Box::leak(t.to_owned().into_boxed_str()))
            .collect();
        let copy = SearchIndex::from_static(
            Box::leak(terms.into_boxed_slice()),
            Box::leak(built.starts().to_vec().into_boxed_slice()),
            Box::leak(built.postings().to_vec().into_boxed_slice()),
            Box::leak(built.lengths().to_vec().into_boxed_slice()),
        );
        copy.check(4).unwrap();
        for query in [
            "weather",
            "email address",
            "open issue repository",
            "forecast",
        ] {
            assert_eq!(
                copy.search(query, 3, |_| true),
                built.search(query, 3, |_| true),
                "{query}"
            );
        }
        assert!(copy.check(5).unwrap_err().0.contains("regenerate"));
    }
}
