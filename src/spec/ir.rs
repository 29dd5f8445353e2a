//! The intermediate representation of a protocol revision's types.
//!
//! `spec::lower` turns schema JSON into these types; the code
//! generators and `mcpgen diff` read only these, never schema JSON. Every
//! named type is either a schema definition (named exactly as the schema
//! names it) or an inline schema that needed a name of its own
//! (`<Parent><Property>`).

use std::collections::BTreeMap;

/// A value a property is fixed to by `const`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ConstValue {
    /// A string.
    Str(String),
    /// An integer.
    Int(i64),
    /// `true` or `false`.
    Bool(bool),
}

impl std::fmt::Display for ConstValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ConstValue::Str(s) => write!(f, "{s:?}"),
            ConstValue::Int(i) => write!(f, "{i}"),
            ConstValue::Bool(b) => write!(f, "{b}"),
        }
    }
}

/// The type of a value.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Ty {
    /// Any JSON value (`{}`, or a schema with no type).
    Any,
    /// JSON `null`.
    Null,
    /// `type: boolean`.
    Bool,
    /// `type: integer`.
    Integer,
    /// `type: number`: keeps its written form (`50` stays `50`).
    Number,
    /// `type: string`.
    String,
    /// An array of this type.
    Array(Box<Ty>),
    /// An object whose every property has this type.
    Map(Box<Ty>),
    /// An object with arbitrary members.
    Object,
    /// A named type of the spec.
    Named(String),
    /// `type: [T, "null"]`: present, but possibly `null`.
    Nullable(Box<Ty>),
}

impl Ty {
    /// The named types this type mentions.
    pub fn names(&self) -> Vec<&str> {
        match self {
            Ty::Named(n) => vec![n.as_str()],
            Ty::Array(t) | Ty::Map(t) | Ty::Nullable(t) => t.names(),
            _ => Vec::new(),
        }
    }

    /// A short human description (`string`, `array of Tool`, …) for
    /// reports such as `mcpgen diff`.
    pub fn describe(&self) -> String {
        match self {
            Ty::Any => "any".into(),
            Ty::Null => "null".into(),
            Ty::Bool => "boolean".into(),
            Ty::Integer => "integer".into(),
            Ty::Number => "number".into(),
            Ty::String => "string".into(),
            Ty::Array(t) => format!("array of {}", t.describe()),
            Ty::Map(t) => format!("map of {}", t.describe()),
            Ty::Object => "object".into(),
            Ty::Named(n) => n.clone(),
            Ty::Nullable(t) => format!("{} or null", t.describe()),
        }
    }
}

/// What a property holds.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum PropValue {
    /// Fixed by `const`: written by serialisation, checked by
    /// deserialisation, never a field.
    Const(ConstValue),
    /// A field of this type.
    Ty(Ty),
}

/// One property of an object type.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Property {
    /// The name on the wire.
    pub wire: String,
    /// Its description.
    pub doc: Option<String>,
    /// Whether the object must have it.
    pub required: bool,
    /// Its type or fixed value.
    pub value: PropValue,
}

/// What an object does with properties it does not declare.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Additional {
    /// `additionalProperties: false`: refused.
    Closed,
    /// Allowed and kept as JSON values (the JSON Schema default).
    Any,
    /// Allowed when they fit this type, and kept typed.
    Typed(Ty),
}

/// An object type.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Struct {
    /// The declared properties, in schema order.
    pub properties: Vec<Property>,
    /// What happens to the others.
    pub additional: Additional,
}

impl Struct {
    /// The property with this wire name.
    pub fn property(&self, wire: &str) -> Option<&Property> {
        self.properties.iter().find(|p| p.wire == wire)
    }
}

/// One alternative of a union.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Variant {
    /// The Rust variant name.
    pub name: String,
    /// The member's type.
    pub ty: Ty,
    /// The value of the union's discriminator for this variant, and
    /// whether the member requires the property to be present.
    pub tag: Option<(ConstValue, bool)>,
    /// The properties the member declares (to score look-alikes).
    pub properties: Vec<String>,
    /// The properties the member requires (the tie-breaker: the more
    /// constrained member is the more specific).
    pub required: Vec<String>,
}

/// A union (`anyOf` / `oneOf` / `type: [...]`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Union {
    /// The members, in schema order.
    pub variants: Vec<Variant>,
    /// The constant property that tells the object members apart, if any.
    pub discriminator: Option<String>,
}

/// The shape of a named type.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Kind {
    /// An object type.
    Struct(Struct),
    /// A union.
    Union(Union),
    /// A string enum (`enum: [...]`).
    Enum(Vec<String>),
    /// Another name for a type (`$ref`, or a definition that is a plain
    /// string, map or array).
    Alias(Ty),
}

/// A named type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypeDef {
    /// The Rust name: the definition name for definitions.
    pub name: String,
    /// Its description.
    pub doc: Option<String>,
    /// JSON pointer of the schema this type came from.
    pub pointer: String,
    /// Whether this is a definition of the schema (not an inline type).
    pub definition: bool,
    /// Its shape.
    pub kind: Kind,
}

/// Whether a method is called (with a result) or notified.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum MethodKind {
    /// Answered with a result or an error.
    Request,
    /// Not answered.
    Notification,
}

/// One protocol method and its types.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Method {
    /// The method name on the wire (`tools/call`).
    pub name: String,
    /// Whether it is a request or a notification.
    pub kind: MethodKind,
    /// The request or notification type (`CallToolRequest`).
    pub message: String,
    /// The type of its `params`, if it has any.
    pub params: Option<Ty>,
    /// The type of its result (requests only).
    pub result: Option<Ty>,
    /// The groupings it belongs to (`ClientRequest`, `ServerNotification`, …).
    pub groups: Vec<String>,
}

/// All named types of a revision, by name.
pub type Types = BTreeMap<String, TypeDef>;
