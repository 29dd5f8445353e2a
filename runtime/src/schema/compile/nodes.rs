//! The compiled graph: one [`Node`] per subschema, each a list of [`Kw`]
//! keyword checks in evaluation order, and the tables evaluation reads
//! beside it (reference targets, dynamic scopes, object members).

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{Number, Value};

use crate::schema::format::Format;
use crate::schema::json::same;
use crate::schema::pattern::Pattern;
use crate::schema::Draft;

/// A compiled document.
#[derive(Debug)]
pub(crate) struct Compiled {
    pub nodes: Vec<Node>,
    pub root: usize,
    /// Every compiled subschema of the document by its JSON pointer.
    pub at: HashMap<String, usize>,
    /// The target node of each `Kw::Ref` and `Kw::DynamicRef`.
    pub refs: Vec<usize>,
    pub draft: Draft,
    /// What `$dynamicRef` and `$recursiveRef` need at evaluation; `None`
    /// when the schema has neither (then evaluation tracks no scope).
    pub dynamic: Option<Box<Dynamic>>,
}

impl Compiled {
    /// Whether 1.0 is an integer (every draft but 4).
    pub(crate) fn integral_floats(&self) -> bool {
        self.draft != Draft::Draft4
    }
}

/// The tables of dynamic references: each node's schema resource (the
/// dynamic scope is the list of resources evaluation went through), and
/// where each resource's dynamic anchors are.
#[derive(Debug, Default)]
pub(crate) struct Dynamic {
    /// The schema resource of each node.
    pub resource_of: Vec<u32>,
    /// `$dynamicAnchor` name to the node it marks in each resource.
    pub anchors: HashMap<String, HashMap<u32, usize>>,
    /// Resources whose root has `"$recursiveAnchor": true`, to that root.
    pub recursive: HashMap<u32, usize>,
    /// The references whose target moves with the dynamic scope, by slot.
    pub lookups: HashMap<usize, Lookup>,
}

/// How a dynamic reference finds its target in the dynamic scope.
#[derive(Debug)]
pub(crate) enum Lookup {
    /// The outermost resource with a `$dynamicAnchor` of this name.
    Anchor(String),
    /// The outermost resource whose root has `"$recursiveAnchor": true`.
    Recursive,
}

/// A subschema that is only a `$ref` leading, through other such
/// subschemas, back to itself (`"x": {"$ref": "#/$defs/x"}`) constrains
/// nothing: it becomes `true`, as other validators read it, rather than
/// failing at the depth limit whatever the instance.
pub(super) fn loosen_reference_loops(nodes: &mut [Node], refs: &[usize]) {
    for start in 0..nodes.len() {
        let mut seen = vec![start];
        let mut at = start;
        while let [Kw::Ref(slot)] = nodes[at].kw.as_slice() {
            at = refs[*slot];
            if seen.contains(&at) {
                for n in seen {
                    nodes[n].kw.clear();
                }
                break;
            }
            seen.push(at);
        }
    }
}

/// The checks of one subschema, in evaluation order.
#[derive(Debug, Default)]
pub(crate) struct Node {
    pub kw: Vec<Kw>,
}

impl Node {
    /// Whether this is the `false` schema (nothing is valid).
    pub(crate) fn is_false(&self) -> bool {
        matches!(self.kw.as_slice(), [Kw::False])
    }
}

/// What an object's members must be.
#[derive(Debug, Default)]
pub(crate) struct Members {
    /// Every name `properties` or `required` mentions, sorted.
    pub named: Vec<Named>,
    /// How many of them are required.
    pub required: usize,
    pub patterns: Vec<(Arc<Pattern>, usize)>,
    /// `additionalProperties`: members neither named nor matched.
    pub additional: Option<usize>,
}

/// One member name of [`Members`].
#[derive(Debug)]
pub(crate) struct Named {
    pub name: String,
    /// Its `properties` schema.
    pub node: Option<usize>,
    pub required: bool,
}

impl Members {
    /// The entry of member `key` (a scan for a few names, else a binary search).
    pub(crate) fn find(&self, key: &str) -> Option<&Named> {
        if self.named.len() <= 12 {
            self.named.iter().find(|n| same(&n.name, key))
        } else {
            self.named
                .binary_search_by(|n| n.name.as_str().cmp(key))
                .ok()
                .map(|at| &self.named[at])
        }
    }

    /// Whether member `key` is named by `properties` or matched by a
    /// `patternProperties` pattern (so `additionalProperties` leaves it).
    pub(crate) fn covers(&self, key: &str) -> bool {
        self.find(key).is_some_and(|n| n.node.is_some())
            || self.patterns.iter().any(|(p, _)| p.matches(key))
    }

    pub(super) fn add(&mut self, name: &str) -> &mut Named {
        match self.named.iter().position(|n| n.name == name) {
            Some(at) => &mut self.named[at],
            None => {
                self.named.push(Named {
                    name: name.to_owned(),
                    node: None,
                    required: false,
                });
                self.named.last_mut().expect("just pushed")
            }
        }
    }
}

/// Which side a numeric bound limits.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Bound {
    Min,
    Max,
    ExclusiveMin,
    ExclusiveMax,
}

/// One keyword check.
#[derive(Debug)]
pub(crate) enum Kw {
    False,
    Type(u8),
    Enum(Vec<Value>),
    Const(Value),
    Bound(Bound, Number),
    MultipleOf(Number),
    MinLength(u64),
    MaxLength(u64),
    Pattern(Arc<Pattern>),
    Format(Format, String),
    MinItems(u64),
    MaxItems(u64),
    UniqueItems,
    /// Items from index `from` on.
    Items {
        from: usize,
        node: usize,
    },
    /// The first items, one schema each.
    Prefix(Vec<usize>),
    Contains {
        node: usize,
        min: u64,
        max: Option<u64>,
    },
    MinProperties(u64),
    MaxProperties(u64),
    /// `properties`, `required`, `patternProperties` and
    /// `additionalProperties` together: one pass over the members.
    Members(Box<Members>),
    PropertyNames(usize),
    DependentRequired(Vec<(String, Vec<String>)>),
    DependentSchemas(Vec<(String, usize)>),
    AllOf(Vec<usize>),
    AnyOf(Vec<usize>),
    OneOf(Vec<usize>),
    Not(usize),
    If {
        cond: usize,
        then: Option<usize>,
        otherwise: Option<usize>,
    },
    /// An index into [`Compiled::refs`].
    Ref(usize),
    /// `$dynamicRef` or `$recursiveRef`: an index into [`Compiled::refs`]
    /// (the static target) and maybe into [`Dynamic::lookups`].
    DynamicRef(usize),
    UnevaluatedProperties(usize),
    UnevaluatedItems(usize),
}

impl Kw {
    /// Cheap checks first; the `unevaluated*` ones last, after every
    /// keyword whose annotations they read.
    pub(super) fn rank(&self) -> u8 {
        match self {
            Kw::False | Kw::Type(_) => 0,
            Kw::Enum(_) | Kw::Const(_) => 1,
            Kw::UnevaluatedProperties(_) | Kw::UnevaluatedItems(_) => 3,
            _ => 2,
        }
    }
}
