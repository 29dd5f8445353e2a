//! Where each tool type comes from: the tools and the JSON pointers of the
//! schemas it stands for, said in its doc comment.
//!
//! typify carries a schema's `description` into the doc comment of the
//! type it makes of it, and of the field or variant that holds it; nothing
//! else of the schema reaches the output. So [`super::prepare`] appends a
//! marker to the description of every subschema it rewrites (a number
//! between two U+0001, which no description keeps: [`clean`]); `dedupe`
//! gathers the markers of every copy it merges; and the last pass
//! ([`super::polish`]) turns the markers of a type into its last doc
//! paragraph (`` Schema `/inputSchema/properties/filter` of the `find`
//! tool.``) and removes them from every other doc comment.

use std::collections::BTreeMap;

use syn::Attribute;

/// The character around a marker.
const FENCE: char = '\u{1}';

/// How many tools one pointer lists before "and N more".
const MAX_TOOLS: usize = 6;

/// How many pointers a doc comment lists before "and N more".
const MAX_POINTERS: usize = 6;

/// Every place a marker stands for, by number.
#[derive(Debug, Default, Clone)]
pub(crate) struct Sources {
    places: Vec<(String, String)>,
}

impl Sources {
    /// A marker for the schema at `pointer` (from the tool's definition:
    /// `/inputSchema/properties/x`) of the tool `tool`.
    pub(crate) fn mark(&mut self, tool: &str, pointer: String) -> String {
        self.places.push((tool.to_owned(), pointer));
        marker(self.places.len() - 1)
    }

    /// The doc paragraph naming the places of `marks`; `None` without any.
    pub(crate) fn paragraph(&self, marks: &[usize]) -> Option<String> {
        // Tools by pointer, each in order of first mention.
        let mut by_pointer: Vec<(&str, Vec<&str>)> = Vec::new();
        let mut at: BTreeMap<&str, usize> = BTreeMap::new();
        for (tool, pointer) in marks.iter().filter_map(|&m| self.places.get(m)) {
            let slot = *at.entry(pointer).or_insert_with(|| {
                by_pointer.push((pointer, Vec::new()));
                by_pointer.len() - 1
            });
            let tools = &mut by_pointer[slot].1;
            if !tools.contains(&tool.as_str()) {
                tools.push(tool);
            }
        }
        if by_pointer.is_empty() {
            return None;
        }
        let parts: Vec<String> = by_pointer
            .iter()
            .map(|(pointer, tools)| {
                let names: Vec<String> = tools.iter().map(|t| code(t)).collect();
                let noun = if tools.len() == 1 { "tool" } else { "tools" };
                format!(
                    "{} of the {} {noun}",
                    code(pointer),
                    listed(names, MAX_TOOLS, ", ")
                )
            })
            .collect();
        let noun = if by_pointer.len() == 1 {
            "Schema"
        } else {
            "Schemas"
        };
        Some(format!(" {noun}: {}.", listed(parts, MAX_POINTERS, "; ")))
    }
}

/// The marker of the place numbered `n`.
pub(crate) fn marker(n: usize) -> String {
    format!("{FENCE}{n}{FENCE}")
}

/// `items` joined by `between`, the last one by "and"; beyond `shown`
/// items, the rest is counted ("a, b and 3 more").
fn listed(mut items: Vec<String>, shown: usize, between: &str) -> String {
    if items.len() > shown {
        let rest = items.len() - shown;
        items.truncate(shown);
        items.push(format!("{rest} more"));
    }
    match items.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(between)),
        None => String::new(),
    }
}

/// `text` as inline code, fenced so that its own backquotes stay in it.
fn code(text: &str) -> String {
    if text.contains('`') {
        format!("`` {text} ``")
    } else {
        format!("`{text}`")
    }
}

/// `text` without its markers (and the blank space they leave at its end),
/// and the numbers of the markers, in order.
pub(crate) fn split(text: &str) -> (String, Vec<usize>) {
    if !text.contains(FENCE) {
        return (text.to_owned(), Vec::new());
    }
    let mut kept = String::with_capacity(text.len());
    let mut marks = Vec::new();
    for (i, part) in text.split(FENCE).enumerate() {
        // Odd parts lie between two fences.
        match (i % 2 == 1).then(|| part.parse::<usize>().ok()).flatten() {
            Some(n) => marks.push(n),
            None => kept.push_str(part),
        }
    }
    let end = kept.trim_end().len();
    kept.truncate(end);
    (kept, marks)
}

/// Removes the markers from the doc comments among `attrs` (and the doc
/// lines left empty by that); their numbers, in order.
pub(crate) fn take(attrs: &mut Vec<Attribute>) -> Vec<usize> {
    let mut marks = Vec::new();
    attrs.retain_mut(|a| {
        let syn::Meta::NameValue(nv) = &mut a.meta else {
            return true;
        };
        let syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(s),
            ..
        }) = &mut nv.value
        else {
            return true;
        };
        if !nv.path.is_ident("doc") {
            return true;
        }
        let (kept, mut found) = split(&s.value());
        if found.is_empty() {
            return true;
        }
        marks.append(&mut found);
        if kept.trim().is_empty() {
            return false;
        }
        *s = syn::LitStr::new(&kept, s.span());
        true
    });
    marks
}

/// The text of a `#[doc = "…"]` attribute.
pub(crate) fn doc_of(a: &Attribute) -> Option<String> {
    match &a.meta {
        syn::Meta::NameValue(nv) if nv.path.is_ident("doc") => match &nv.value {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => Some(s.value()),
            _ => None,
        },
        _ => None,
    }
}

/// A description with every fence character removed, so that only
/// [`Sources::mark`] writes markers.
pub(crate) fn clean(text: &str) -> String {
    text.replace(FENCE, "")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_come_out_of_a_description_with_their_numbers() {
        let mut s = Sources::default();
        let a = s.mark("find", "/inputSchema/properties/filter".into());
        let b = s.mark("count", "/inputSchema/properties/filter".into());
        let (text, marks) = split(&format!("Which documents.{a}{b}"));
        assert_eq!(text, "Which documents.");
        assert_eq!(marks, [0, 1]);
        assert_eq!(
            s.paragraph(&marks).as_deref(),
            Some(" Schema: `/inputSchema/properties/filter` of the `find` and `count` tools.")
        );
    }

    #[test]
    fn places_are_grouped_by_pointer_and_bounded() {
        let mut s = Sources::default();
        let mut marks = Vec::new();
        for i in 0..9 {
            let text = s.mark(
                &format!("t{i}"),
                format!("/inputSchema/properties/p{}", i % 8),
            );
            marks.extend(split(&text).1);
        }
        let p = s.paragraph(&marks).unwrap();
        assert!(
            p.starts_with(" Schemas: `/inputSchema/properties/p0` of the `t0` and `t8` tools; "),
            "{p}"
        );
        assert!(
            p.ends_with("`/inputSchema/properties/p5` of the `t5` tool and 2 more."),
            "{p}"
        );
    }

    #[test]
    fn a_description_cannot_forge_a_marker() {
        let forged = clean("Looks like \u{1}3\u{1} a marker.");
        assert_eq!(
            split(&forged),
            ("Looks like 3 a marker.".to_owned(), Vec::new())
        );
        assert_eq!(code("a`b"), "`` a`b ``");
    }
}
