//! `mcpgen diff`: what changed between two protocol revisions, computed
//! from their [`Spec`] IRs — named types added, removed or changed (fields
//! added, removed, retyped, made required or optional; union variants;
//! enum values), methods added, removed or changed — and, with a
//! manifest, what that means for the code generated from it.
//!
//! Two manifests compare too ([`compare_manifests`]): the tools,
//! resources, templates and prompts that differ, and the generated items.
//!
//! The report prints for a terminal ([`std::fmt::Display`]) or serialises
//! to JSON.

use std::collections::BTreeMap;
use std::fmt;

use serde::Serialize;

mod manifests;

pub use manifests::{compare_manifests, ItemChange, ManifestDiff};

use crate::codegen::tools::ToolsOutput;
use crate::generator::Generator;
use crate::manifest::Manifest;
use crate::spec::{
    Additional, Kind, Method, MethodKind, PropValue, Spec, Struct, Ty, TypeDef, Union,
};

/// The differences between two revisions.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RevisionDiff {
    /// The older revision.
    pub from: String,
    /// The newer revision.
    pub to: String,
    /// Methods only in `to`.
    pub methods_added: Vec<MethodSummary>,
    /// Methods only in `from`.
    pub methods_removed: Vec<MethodSummary>,
    /// Methods in both whose message, params or result type differ.
    pub methods_changed: Vec<MethodChange>,
    /// Named types only in `to`.
    pub types_added: Vec<TypeSummary>,
    /// Named types only in `from`.
    pub types_removed: Vec<TypeSummary>,
    /// Named types in both whose shape differs.
    pub types_changed: Vec<TypeChange>,
    /// What changes for the code generated from a manifest (with `--manifest`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub manifest: Option<ManifestImpact>,
}

/// A method, briefly.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MethodSummary {
    /// Wire name (`tools/call`).
    pub name: String,
    /// `request` or `notification`.
    pub kind: &'static str,
    /// The message type (`CallToolRequest`).
    pub message: String,
}

/// A method present in both revisions that changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MethodChange {
    /// Wire name.
    pub name: String,
    /// What changed, one line each.
    pub changes: Vec<String>,
}

/// A named type, briefly.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TypeSummary {
    /// The type name.
    pub name: String,
    /// `struct`, `union`, `enum` or `alias`.
    pub kind: &'static str,
    /// Whether the schema defines it (false: an inline type named after its parent).
    pub definition: bool,
}

/// A named type present in both revisions that changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TypeChange {
    /// The type name.
    pub name: String,
    /// Whether the schema defines it.
    pub definition: bool,
    /// The changes.
    pub changes: Vec<Change>,
}

/// One change of a named type.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "change", rename_all = "snake_case")]
pub enum Change {
    /// A property was added.
    FieldAdded {
        /// The property's name on the wire.
        field: String,
        /// Its type, as the diff shows it.
        ty: String,
        /// Whether it is required.
        required: bool,
    },
    /// A property was removed.
    FieldRemoved {
        /// The property's name on the wire.
        field: String,
        /// Its type, as the diff shows it.
        ty: String,
    },
    /// A property's type changed.
    FieldRetyped {
        /// The property's name on the wire.
        field: String,
        /// The old type.
        from: String,
        /// The new type.
        to: String,
    },
    /// A property became required.
    FieldRequired {
        /// The property's name on the wire.
        field: String,
    },
    /// A property became optional.
    FieldOptional {
        /// The property's name on the wire.
        field: String,
    },
    /// What the object does with undeclared members changed.
    AdditionalChanged {
        /// Before.
        from: String,
        /// After.
        to: String,
    },
    /// A union member was added.
    VariantAdded {
        /// The member's name.
        variant: String,
        /// Its type, as the diff shows it.
        ty: String,
    },
    /// A union member was removed.
    VariantRemoved {
        /// The member's name.
        variant: String,
        /// Its type, as the diff shows it.
        ty: String,
    },
    /// The discriminating property of a union changed.
    DiscriminatorChanged {
        /// Before.
        from: Option<String>,
        /// After.
        to: Option<String>,
    },
    /// An enum value was added.
    ValueAdded {
        /// The value.
        value: String,
    },
    /// An enum value was removed.
    ValueRemoved {
        /// The value.
        value: String,
    },
    /// An alias names another type.
    AliasRetyped {
        /// Before.
        from: String,
        /// After.
        to: String,
    },
    /// The type changed kind (e.g. struct → union).
    KindChanged {
        /// Before.
        from: String,
        /// After.
        to: String,
    },
}

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Change::FieldAdded {
                field,
                ty,
                required,
            } => {
                write!(
                    f,
                    "+ field `{field}`: {ty} ({})",
                    if *required { "required" } else { "optional" }
                )
            }
            Change::FieldRemoved { field, ty } => write!(f, "- field `{field}`: {ty}"),
            Change::FieldRetyped { field, from, to } => {
                write!(f, "~ field `{field}`: {from} → {to}")
            }
            Change::FieldRequired { field } => write!(f, "~ field `{field}`: optional → required"),
            Change::FieldOptional { field } => write!(f, "~ field `{field}`: required → optional"),
            Change::AdditionalChanged { from, to } => write!(f, "~ other members: {from} → {to}"),
            Change::VariantAdded { variant, ty } => write!(f, "+ variant `{variant}` ({ty})"),
            Change::VariantRemoved { variant, ty } => write!(f, "- variant `{variant}` ({ty})"),
            Change::DiscriminatorChanged { from, to } => write!(
                f,
                "~ discriminator: {} → {}",
                from.as_deref().unwrap_or("none"),
                to.as_deref().unwrap_or("none")
            ),
            Change::ValueAdded { value } => write!(f, "+ value {value:?}"),
            Change::ValueRemoved { value } => write!(f, "- value {value:?}"),
            Change::AliasRetyped { from, to } => write!(f, "~ names {from} → {to}"),
            Change::KindChanged { from, to } => write!(f, "~ kind: {from} → {to}"),
        }
    }
}

/// One generated item that differs between the revisions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GeneratedChange {
    /// Path of the item (`server::Handler::get_weather`).
    pub item: String,
    /// `changed`, `added` or `removed`.
    pub change: &'static str,
    /// The differing part of the signature or value in the older revision.
    pub from: Option<String>,
    /// The differing part in the newer revision.
    pub to: Option<String>,
}

impl fmt::Display for GeneratedChange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.change, &self.from, &self.to) {
            ("changed", Some(a), Some(b)) => write!(f, "~ {}: `{a}` → `{b}`", self.item),
            ("added", _, _) => write!(f, "+ {}", self.item),
            ("removed", _, _) => write!(f, "- {}", self.item),
            _ => write!(f, "~ {}", self.item),
        }
    }
}

/// The public items of generated code, keyed by path, with their
/// signature (functions), value (constants), type (struct fields) or
/// fields (enum variants) as token text.
fn generated_items(
    module: &str,
    tokens: proc_macro2::TokenStream,
    out: &mut BTreeMap<String, String>,
) {
    use quote::ToTokens;
    let Ok(file) = syn::parse2::<syn::File>(tokens) else {
        return;
    };
    for item in file.items {
        match item {
            syn::Item::Fn(f) => {
                out.insert(
                    format!("{module}::{}", f.sig.ident),
                    f.sig.to_token_stream().to_string(),
                );
            }
            syn::Item::Const(c) => {
                out.insert(
                    format!("{module}::{}", c.ident),
                    c.expr.to_token_stream().to_string(),
                );
            }
            syn::Item::Trait(t) => {
                for ti in t.items {
                    if let syn::TraitItem::Fn(f) = ti {
                        out.insert(
                            format!("{module}::{}::{}", t.ident, f.sig.ident),
                            f.sig.to_token_stream().to_string(),
                        );
                    }
                }
            }
            syn::Item::Struct(st) if matches!(st.vis, syn::Visibility::Public(_)) => {
                for (i, field) in st.fields.iter().enumerate() {
                    let name = field
                        .ident
                        .as_ref()
                        .map_or_else(|| i.to_string(), ToString::to_string);
                    out.insert(
                        format!("{module}::{}::{name}", st.ident),
                        field.ty.to_token_stream().to_string(),
                    );
                }
            }
            syn::Item::Enum(en) if matches!(en.vis, syn::Visibility::Public(_)) => {
                for variant in &en.variants {
                    out.insert(
                        format!("{module}::{}::{}", en.ident, variant.ident),
                        variant.fields.to_token_stream().to_string(),
                    );
                }
            }
            syn::Item::Impl(i) if i.trait_.is_none() => {
                let owner = i.self_ty.to_token_stream().to_string().replace(' ', "");
                for ii in i.items {
                    if let syn::ImplItem::Fn(f) = ii {
                        if matches!(f.vis, syn::Visibility::Public(_)) {
                            out.insert(
                                format!("{module}::{owner}::{}", f.sig.ident),
                                f.sig.to_token_stream().to_string(),
                            );
                        }
                    }
                }
            }
            _ => {}
        }
    }
}

/// The part of two token texts that differs: common leading and trailing
/// tokens removed (a `…` marks each cut).
fn differing_part(a: &str, b: &str) -> (String, String) {
    let ta: Vec<&str> = a.split(' ').collect();
    let tb: Vec<&str> = b.split(' ').collect();
    let prefix = ta.iter().zip(&tb).take_while(|(x, y)| x == y).count();
    let max_suffix = ta.len().min(tb.len()) - prefix;
    let suffix = ta
        .iter()
        .rev()
        .zip(tb.iter().rev())
        .take(max_suffix)
        .take_while(|(x, y)| x == y)
        .count();
    let show = |t: &[&str]| {
        let mut s = String::new();
        if prefix > 0 {
            s.push_str("… ");
        }
        s.push_str(&t[prefix..t.len() - suffix].join(" "));
        if suffix > 0 {
            s.push_str(" …");
        }
        s
    };
    (show(&ta), show(&tb))
}

/// The public items of the types, server and client generated from
/// `manifest` for `revision`: the tools' and those of its resources,
/// templates and prompts (`codegen::surface`: `<Prompt>Args` fields,
/// `StaticResource` variants, `get_<prompt>`, `read_<template>`, …).
fn manifest_items(
    manifest: &Manifest,
    typed: Option<&ToolsOutput>,
    spec: &Spec,
    revision: &str,
) -> Result<BTreeMap<String, String>, String> {
    let mut generator = Generator::new(spec, revision).manifest(manifest);
    if let Some(typed) = typed {
        generator = generator.typed(typed);
    }
    let parts = generator.manifest_parts().map_err(|e| e.to_string())?;
    let mut out = BTreeMap::new();
    generated_items("tools", parts.tools, &mut out);
    generated_items("server", parts.server, &mut out);
    generated_items("client", parts.client, &mut out);
    Ok(out)
}

/// Generates the server and client of `manifest` for both revisions
/// (from its tool types `typed`, when already generated) and compares
/// their public items.
fn generated_changes(
    from: &Spec,
    to: &Spec,
    report: &RevisionDiff,
    manifest: &Manifest,
    typed: Option<&ToolsOutput>,
) -> Result<Vec<GeneratedChange>, String> {
    let a = manifest_items(manifest, typed, from, &report.from)?;
    let b = manifest_items(manifest, typed, to, &report.to)?;
    Ok(item_changes(&a, &b))
}

/// The items of `b` added, removed or changed against `a`.
fn item_changes(
    a: &BTreeMap<String, String>,
    b: &BTreeMap<String, String>,
) -> Vec<GeneratedChange> {
    let mut changes = Vec::new();
    for (item, va) in a {
        match b.get(item) {
            Some(vb) if vb != va => {
                let (x, y) = differing_part(va, vb);
                changes.push(GeneratedChange {
                    item: item.clone(),
                    change: "changed",
                    from: Some(x),
                    to: Some(y),
                });
            }
            Some(_) => {}
            None => changes.push(GeneratedChange {
                item: item.clone(),
                change: "removed",
                from: None,
                to: None,
            }),
        }
    }
    for item in b.keys().filter(|k| !a.contains_key(*k)) {
        changes.push(GeneratedChange {
            item: item.clone(),
            change: "added",
            from: None,
            to: None,
        });
    }
    changes
}

/// What the revision change means for a manifest's generated code.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ManifestImpact {
    /// The manifest file.
    pub file: String,
    /// Generated items that change, one line each.
    pub items: Vec<String>,
    /// Items of the generated server and client whose signature or value
    /// differs between the two revisions (`server::Handler::get_weather`,
    /// `client::Client::get_weather`, `server::PROTOCOL_VERSION`, …).
    pub generated: Vec<GeneratedChange>,
    /// What the user must do, one line each.
    pub actions: Vec<String>,
}

fn kind_name(kind: &Kind) -> &'static str {
    match kind {
        Kind::Struct(_) => "struct",
        Kind::Union(_) => "union",
        Kind::Enum(_) => "enum",
        Kind::Alias(_) => "alias",
    }
}

fn method_kind(kind: MethodKind) -> &'static str {
    match kind {
        MethodKind::Request => "request",
        MethodKind::Notification => "notification",
    }
}

fn describe_prop(value: &PropValue) -> String {
    match value {
        PropValue::Const(c) => format!("const {c}"),
        PropValue::Ty(t) => t.describe(),
    }
}

fn describe_additional(a: &Additional) -> String {
    match a {
        Additional::Closed => "refused".into(),
        Additional::Any => "kept as JSON".into(),
        Additional::Typed(t) => format!("kept as {}", t.describe()),
    }
}

fn struct_changes(a: &Struct, b: &Struct, out: &mut Vec<Change>) {
    for pa in &a.properties {
        match b.property(&pa.wire) {
            None => out.push(Change::FieldRemoved {
                field: pa.wire.clone(),
                ty: describe_prop(&pa.value),
            }),
            Some(pb) => {
                let (ta, tb) = (describe_prop(&pa.value), describe_prop(&pb.value));
                if ta != tb {
                    out.push(Change::FieldRetyped {
                        field: pa.wire.clone(),
                        from: ta,
                        to: tb,
                    });
                }
                match (pa.required, pb.required) {
                    (false, true) => out.push(Change::FieldRequired {
                        field: pa.wire.clone(),
                    }),
                    (true, false) => out.push(Change::FieldOptional {
                        field: pa.wire.clone(),
                    }),
                    _ => {}
                }
            }
        }
    }
    for pb in &b.properties {
        if a.property(&pb.wire).is_none() {
            out.push(Change::FieldAdded {
                field: pb.wire.clone(),
                ty: describe_prop(&pb.value),
                required: pb.required,
            });
        }
    }
    if a.additional != b.additional {
        out.push(Change::AdditionalChanged {
            from: describe_additional(&a.additional),
            to: describe_additional(&b.additional),
        });
    }
}

fn union_changes(a: &Union, b: &Union, out: &mut Vec<Change>) {
    if a.discriminator != b.discriminator {
        out.push(Change::DiscriminatorChanged {
            from: a.discriminator.clone(),
            to: b.discriminator.clone(),
        });
    }
    for va in &a.variants {
        if !b.variants.iter().any(|vb| vb.ty == va.ty) {
            out.push(Change::VariantRemoved {
                variant: va.name.clone(),
                ty: va.ty.describe(),
            });
        }
    }
    for vb in &b.variants {
        if !a.variants.iter().any(|va| va.ty == vb.ty) {
            out.push(Change::VariantAdded {
                variant: vb.name.clone(),
                ty: vb.ty.describe(),
            });
        }
    }
}

fn type_changes(a: &TypeDef, b: &TypeDef) -> Vec<Change> {
    let mut out = Vec::new();
    match (&a.kind, &b.kind) {
        (Kind::Struct(sa), Kind::Struct(sb)) => struct_changes(sa, sb, &mut out),
        (Kind::Union(ua), Kind::Union(ub)) => union_changes(ua, ub, &mut out),
        (Kind::Enum(ea), Kind::Enum(eb)) => {
            out.extend(
                ea.iter()
                    .filter(|v| !eb.contains(v))
                    .map(|v| Change::ValueRemoved { value: v.clone() }),
            );
            out.extend(
                eb.iter()
                    .filter(|v| !ea.contains(v))
                    .map(|v| Change::ValueAdded { value: v.clone() }),
            );
        }
        (Kind::Alias(ta), Kind::Alias(tb)) => {
            if ta != tb {
                out.push(Change::AliasRetyped {
                    from: ta.describe(),
                    to: tb.describe(),
                });
            }
        }
        (ka, kb) => out.push(Change::KindChanged {
            from: kind_name(ka).into(),
            to: kind_name(kb).into(),
        }),
    }
    out
}

fn summary(m: &Method) -> MethodSummary {
    MethodSummary {
        name: m.name.clone(),
        kind: method_kind(m.kind),
        message: m.message.clone(),
    }
}

fn opt_ty(t: &Option<Ty>) -> String {
    t.as_ref()
        .map(Ty::describe)
        .unwrap_or_else(|| "none".into())
}

fn method_changes(a: &Method, b: &Method) -> Vec<String> {
    let mut out = Vec::new();
    if a.kind != b.kind {
        out.push(format!(
            "kind: {} → {}",
            method_kind(a.kind),
            method_kind(b.kind)
        ));
    }
    if a.message != b.message {
        out.push(format!("message type: {} → {}", a.message, b.message));
    }
    if a.params != b.params {
        out.push(format!(
            "params: {} → {}",
            opt_ty(&a.params),
            opt_ty(&b.params)
        ));
    }
    if a.result != b.result {
        out.push(format!(
            "result: {} → {}",
            opt_ty(&a.result),
            opt_ty(&b.result)
        ));
    }
    out
}

/// Compares two revisions. Methods are keyed by wire name (one entry per
/// name: the first message type in each revision).
pub fn compare(from_name: &str, from: &Spec, to_name: &str, to: &Spec) -> RevisionDiff {
    let methods_a: BTreeMap<&str, &Method> = from
        .methods
        .iter()
        .rev()
        .map(|m| (m.name.as_str(), m))
        .collect();
    let methods_b: BTreeMap<&str, &Method> = to
        .methods
        .iter()
        .rev()
        .map(|m| (m.name.as_str(), m))
        .collect();
    let methods_added = methods_b
        .iter()
        .filter(|(n, _)| !methods_a.contains_key(*n))
        .map(|(_, m)| summary(m))
        .collect();
    let methods_removed = methods_a
        .iter()
        .filter(|(n, _)| !methods_b.contains_key(*n))
        .map(|(_, m)| summary(m))
        .collect();
    let methods_changed = methods_a
        .iter()
        .filter_map(|(n, a)| {
            let b = methods_b.get(n)?;
            let changes = method_changes(a, b);
            (!changes.is_empty()).then(|| MethodChange {
                name: n.to_string(),
                changes,
            })
        })
        .collect();

    let type_summary = |d: &TypeDef| TypeSummary {
        name: d.name.clone(),
        kind: kind_name(&d.kind),
        definition: d.definition,
    };
    let types_added = to
        .types
        .values()
        .filter(|d| !from.types.contains_key(&d.name))
        .map(type_summary)
        .collect();
    let types_removed = from
        .types
        .values()
        .filter(|d| !to.types.contains_key(&d.name))
        .map(type_summary)
        .collect();
    let types_changed = from
        .types
        .values()
        .filter_map(|a| {
            let b = to.types.get(&a.name)?;
            let changes = type_changes(a, b);
            (!changes.is_empty()).then(|| TypeChange {
                name: a.name.clone(),
                definition: b.definition,
                changes,
            })
        })
        .collect();

    RevisionDiff {
        from: from_name.to_owned(),
        to: to_name.to_owned(),
        methods_added,
        methods_removed,
        methods_changed,
        types_added,
        types_removed,
        types_changed,
        manifest: None,
    }
}

/// Types the generated server and client are built on.
const TOOL_PROTOCOL_TYPES: &[&str] = &[
    "Tool",
    "ToolAnnotations",
    "CallToolRequestParams",
    "CallToolRequest",
    "CallToolResult",
    "ListToolsResult",
];

/// Types the generated code for each of the manifest's other sections is
/// built on (listing, reading or getting, and completion).
const SURFACE_PROTOCOL_TYPES: [(&str, &[&str]); 3] = [
    (
        "resources",
        &[
            "Resource",
            "ListResourcesResult",
            "ReadResourceResult",
            "TextResourceContents",
            "BlobResourceContents",
        ],
    ),
    (
        "resourceTemplates",
        &[
            "ResourceTemplate",
            "ListResourceTemplatesResult",
            "ReadResourceResult",
            "CompleteResult",
        ],
    ),
    (
        "prompts",
        &[
            "Prompt",
            "PromptArgument",
            "ListPromptsResult",
            "GetPromptResult",
            "PromptMessage",
            "CompleteResult",
        ],
    ),
];

/// The protocol types the generated code of `manifest` is built on, in
/// order, without repeats: the tools' and those of each section it declares.
fn used_protocol_types(manifest: &Manifest) -> Vec<&'static str> {
    let mut used: Vec<&'static str> = TOOL_PROTOCOL_TYPES.to_vec();
    let declared = [
        !manifest.resources.is_empty(),
        !manifest.resource_templates.is_empty(),
        !manifest.prompts.is_empty(),
    ];
    for ((_, types), on) in SURFACE_PROTOCOL_TYPES.iter().zip(declared) {
        for t in types.iter().filter(|_| on) {
            if !used.contains(t) {
                used.push(t);
            }
        }
    }
    used
}

/// Members the manifest's resources, templates, prompts and prompt
/// arguments declare that `spec`'s type for them does not define (a
/// client of that revision does not know them), as (item, member).
fn unknown_members(manifest: &Manifest, spec: &Spec) -> Vec<(String, String)> {
    let defines = |ty: &str, member: &str| match spec.types.get(ty).map(|d| &d.kind) {
        Some(Kind::Struct(s)) => s.property(member).is_some(),
        _ => true,
    };
    let sections = [
        (&manifest.resources, "Resource", "resource"),
        (
            &manifest.resource_templates,
            "ResourceTemplate",
            "resource template",
        ),
        (&manifest.prompts, "Prompt", "prompt"),
    ];
    let mut out = Vec::new();
    for (items, ty, what) in sections {
        for item in items {
            let Some(members) = item.declared.as_object() else {
                continue;
            };
            let label = format!("{what} `{}` ({})", item.name, item.pointer);
            out.extend(
                members
                    .keys()
                    .filter(|m| !defines(ty, m))
                    .map(|m| (label.clone(), format!("{ty} has no `{m}`"))),
            );
            for arg in members
                .get("arguments")
                .and_then(serde_json::Value::as_array)
                .into_iter()
                .flatten()
            {
                let name = arg
                    .get("name")
                    .and_then(serde_json::Value::as_str)
                    .unwrap_or_default();
                let Some(arg) = arg.as_object() else { continue };
                out.extend(
                    arg.keys()
                        .filter(|m| !defines("PromptArgument", m))
                        .map(|m| {
                            (
                                label.clone(),
                                format!("PromptArgument has no `{m}` (argument `{name}`)"),
                            )
                        }),
                );
            }
        }
    }
    out
}

/// Adds what the change means for `manifest`'s generated code.
pub fn with_manifest(
    mut report: RevisionDiff,
    from: &Spec,
    to: &Spec,
    manifest: &Manifest,
) -> RevisionDiff {
    let mut items = Vec::new();
    let mut actions = Vec::new();
    let content_a = from
        .tool_content_item()
        .map(Ty::describe)
        .unwrap_or_else(|| "JSON".into());
    let content_b = to
        .tool_content_item()
        .map(Ty::describe)
        .unwrap_or_else(|| "JSON".into());
    let plain: Vec<&str> = manifest
        .tools
        .iter()
        .filter(|t| t.output_schema().is_none())
        .map(|t| t.name.as_str())
        .collect();
    if content_a != content_b && !plain.is_empty() {
        items.push(format!(
            "content type of tools without outputSchema: Vec<{content_a}> → Vec<{content_b}> ({} tool(s): {})",
            plain.len(),
            plain.join(", ")
        ));
        actions.push(format!(
            "change the return type of the handler methods of {} to Vec<protocol::{content_b}> and build the blocks with the new type",
            plain.join(", ")
        ));
    }
    let mut built = Vec::new();
    for name in used_protocol_types(manifest) {
        if let Some(c) = report.types_changed.iter().find(|c| c.name == name) {
            let list: Vec<String> = c.changes.iter().map(ToString::to_string).collect();
            items.push(format!(
                "protocol::{name} (used by the generated server/client): {}",
                list.join("; ")
            ));
            if [
                "ReadResourceResult",
                "PromptMessage",
                "TextResourceContents",
                "BlobResourceContents",
            ]
            .contains(&name)
            {
                built.push(format!("protocol::{name}"));
            }
        }
    }
    if !built.is_empty() {
        actions.push(format!(
            "check how your `server::Handler` read_/prompt_ methods build {} (the compiler points at each)",
            built.join(", ")
        ));
    }
    let known_before = unknown_members(manifest, from);
    for (item, member) in unknown_members(manifest, to)
        .into_iter()
        .filter(|u| !known_before.contains(u))
    {
        items.push(format!(
            "{item}: {member} in {}; its clients ignore it",
            report.to
        ));
    }
    let handshake: Vec<&str> = report
        .methods_removed
        .iter()
        .chain(&report.methods_added)
        .map(|m| m.name.as_str())
        .filter(|n| {
            [
                "initialize",
                "notifications/initialized",
                "ping",
                "server/discover",
            ]
            .contains(n)
        })
        .collect();
    if !handshake.is_empty() {
        items.push(format!(
            "session handshake methods differ: {}",
            handshake.join(", ")
        ));
        actions.push(format!(
            "regenerate the server and client for {} (`mcpgen generate --protocol {}`); check hand-written code that sends or expects {}",
            report.to,
            report.to,
            handshake.join(", ")
        ));
    }
    let (da, db) = (
        crate::manifest::dialect_for(&report.from),
        crate::manifest::dialect_for(&report.to),
    );
    if da != db {
        items.push(format!(
            "tool schemas without `$schema` are read as JSON Schema {} instead of {}",
            db.name(),
            da.name()
        ));
    }
    let checked = Generator::checked(manifest, &report.to);
    let problems = checked.as_ref().err().map_or(&[][..], Vec::as_slice);
    if !problems.is_empty() {
        actions.push(format!(
            "fix {} manifest problem(s) reported for {} by `mcpgen manifest check --protocol {} {}`",
            problems.len(),
            report.to,
            report.to,
            manifest.file.display()
        ));
    }
    let generated = match generated_changes(from, to, &report, manifest, checked.as_ref().ok()) {
        Ok(g) => g,
        Err(e) => {
            items.push(format!(
                "the server and client could not be generated for comparison: {e}"
            ));
            Vec::new()
        }
    };
    let handlers: Vec<&str> = generated
        .iter()
        .filter(|g| g.change == "changed" && g.item.starts_with("server::Handler::"))
        .map(|g| g.item.trim_start_matches("server::Handler::"))
        .collect();
    if !handlers.is_empty() {
        actions.push(format!(
            "update the signatures of your `server::Handler` methods {} (the compiler points at each)",
            handlers.join(", ")
        ));
    }
    if items.is_empty() && generated.is_empty() {
        items.push("none: the tool types, server trait and client methods stay the same".into());
    }
    if actions.is_empty() {
        actions.push(format!(
            "regenerate (`mcpgen generate --protocol {}`); no code changes needed",
            report.to
        ));
    }
    report.manifest = Some(ManifestImpact {
        file: manifest.file.display().to_string(),
        items,
        generated,
        actions,
    });
    report
}

impl RevisionDiff {
    /// True when nothing changed.
    pub fn is_empty(&self) -> bool {
        self.methods_added.is_empty()
            && self.methods_removed.is_empty()
            && self.methods_changed.is_empty()
            && self.types_added.is_empty()
            && self.types_removed.is_empty()
            && self.types_changed.is_empty()
    }
}

fn type_label(t: &TypeSummary) -> String {
    if t.definition {
        format!("{} ({})", t.name, t.kind)
    } else {
        format!("{} ({}, inline)", t.name, t.kind)
    }
}

impl fmt::Display for RevisionDiff {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "MCP protocol {} → {}", self.from, self.to)?;
        writeln!(
            f,
            "methods: {} added, {} removed, {} changed; types: {} added, {} removed, {} changed",
            self.methods_added.len(),
            self.methods_removed.len(),
            self.methods_changed.len(),
            self.types_added.len(),
            self.types_removed.len(),
            self.types_changed.len()
        )?;
        if !self.methods_removed.is_empty() {
            writeln!(f, "\nMethods removed:")?;
            for m in &self.methods_removed {
                writeln!(f, "  - {} ({} {})", m.name, m.kind, m.message)?;
            }
        }
        if !self.methods_added.is_empty() {
            writeln!(f, "\nMethods added:")?;
            for m in &self.methods_added {
                writeln!(f, "  + {} ({} {})", m.name, m.kind, m.message)?;
            }
        }
        if !self.methods_changed.is_empty() {
            writeln!(f, "\nMethods changed:")?;
            for m in &self.methods_changed {
                writeln!(f, "  ~ {}", m.name)?;
                for c in &m.changes {
                    writeln!(f, "      {c}")?;
                }
            }
        }
        if !self.types_removed.is_empty() {
            writeln!(f, "\nTypes removed:")?;
            for t in &self.types_removed {
                writeln!(f, "  - {}", type_label(t))?;
            }
        }
        if !self.types_added.is_empty() {
            writeln!(f, "\nTypes added:")?;
            for t in &self.types_added {
                writeln!(f, "  + {}", type_label(t))?;
            }
        }
        if !self.types_changed.is_empty() {
            writeln!(f, "\nTypes changed:")?;
            for t in &self.types_changed {
                writeln!(
                    f,
                    "  ~ {}{}",
                    t.name,
                    if t.definition { "" } else { " (inline)" }
                )?;
                for c in &t.changes {
                    writeln!(f, "      {c}")?;
                }
            }
        }
        if let Some(m) = &self.manifest {
            writeln!(f, "\nFor manifest {}:", m.file)?;
            for i in &m.items {
                writeln!(f, "  * {i}")?;
            }
            if !m.generated.is_empty() {
                writeln!(f, "Generated items that change:")?;
                for g in &m.generated {
                    writeln!(f, "  {g}")?;
                }
            }
            writeln!(f, "What to do:")?;
            for a in &m.actions {
                writeln!(f, "  → {a}")?;
            }
        }
        if self.is_empty() {
            writeln!(f, "\nNo differences.")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;

    fn spec(rev: &str) -> Spec {
        let store = Store {
            cache_dir: std::env::temp_dir().join("mcpgen-diff-test-no-cache"),
            mirror: Some(crate::shared_data::mirror()),
            fetch: None,
        };
        let r = store.resolve(rev, None).unwrap();
        Spec::from_json(&r.json, rev).unwrap()
    }

    #[test]
    fn handshake_removal_and_discover_from_2025_11_25_to_2026_07_28() {
        let (a, b) = (spec("2025-11-25"), spec("2026-07-28"));
        let report = compare("2025-11-25", &a, "2026-07-28", &b);
        let removed: Vec<&str> = report
            .methods_removed
            .iter()
            .map(|m| m.name.as_str())
            .collect();
        let added: Vec<&str> = report
            .methods_added
            .iter()
            .map(|m| m.name.as_str())
            .collect();
        for m in ["initialize", "notifications/initialized", "ping"] {
            assert!(removed.contains(&m), "{m} not in {removed:?}");
        }
        assert!(added.contains(&"server/discover"), "{added:?}");
        let text = report.to_string();
        assert!(
            text.contains("  - initialize (request InitializeRequest)"),
            "{text}"
        );
        assert!(text.contains("  + server/discover (request"), "{text}");
        let json = serde_json::to_value(&report).unwrap();
        assert!(json["methods_removed"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["name"] == "ping"));
        // resultType arrives on results.
        assert!(
            report
                .types_changed
                .iter()
                .any(|t| t.changes.iter().any(
                    |c| matches!(c, Change::FieldAdded { field, .. } if field == "resultType")
                )),
            "{text}"
        );
    }

    #[test]
    fn same_revision_has_no_differences() {
        let a = spec("2025-06-18");
        let report = compare("2025-06-18", &a, "2025-06-18", &a);
        assert!(report.is_empty());
        assert!(report.to_string().contains("No differences."));
    }

    #[test]
    fn field_changes_are_classified() {
        use crate::spec::{Additional, Property};
        let prop = |wire: &str, required: bool, ty: Ty| Property {
            wire: wire.into(),
            doc: None,
            required,
            value: PropValue::Ty(ty),
        };
        let a = Struct {
            properties: vec![
                prop("keep", false, Ty::String),
                prop("gone", true, Ty::Bool),
                prop("n", true, Ty::Integer),
            ],
            additional: Additional::Any,
        };
        let b = Struct {
            properties: vec![
                prop("keep", true, Ty::String),
                prop("n", true, Ty::Number),
                prop("new", false, Ty::Object),
            ],
            additional: Additional::Closed,
        };
        let mut out = Vec::new();
        struct_changes(&a, &b, &mut out);
        assert_eq!(
            out,
            vec![
                Change::FieldRequired {
                    field: "keep".into()
                },
                Change::FieldRemoved {
                    field: "gone".into(),
                    ty: "boolean".into()
                },
                Change::FieldRetyped {
                    field: "n".into(),
                    from: "integer".into(),
                    to: "number".into()
                },
                Change::FieldAdded {
                    field: "new".into(),
                    ty: "object".into(),
                    required: false
                },
                Change::AdditionalChanged {
                    from: "kept as JSON".into(),
                    to: "refused".into()
                },
            ]
        );
    }

    #[test]
    fn generated_signatures_that_change_are_named() {
        let (a, b) = (spec("2025-03-26"), spec("2025-06-18"));
        let manifest = Manifest::from_str(
            r#"{"tools": [
                {"name": "echo", "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}}},
                {"name": "add", "inputSchema": {"type": "object"},
                 "outputSchema": {"type": "object", "properties": {"sum": {"type": "number"}}}}
            ]}"#,
            "tools.json",
        )
        .unwrap();
        let report = with_manifest(
            compare("2025-03-26", &a, "2025-06-18", &b),
            &a,
            &b,
            &manifest,
        );
        let impact = report.manifest.as_ref().unwrap();
        let text = report.to_string();
        // A tool without outputSchema returns the revision's content blocks.
        let echo = impact
            .generated
            .iter()
            .find(|g| g.item == "server::Handler::echo")
            .expect(&text);
        assert_eq!(echo.change, "changed");
        assert!(
            echo.to.as_deref().unwrap().contains("ContentBlock"),
            "{echo:?}"
        );
        // A tool with a typed output keeps its signature.
        assert!(
            !impact
                .generated
                .iter()
                .any(|g| g.item == "server::Handler::add"),
            "{text}"
        );
        assert!(
            impact
                .generated
                .iter()
                .any(|g| g.item == "server::PROTOCOL_VERSION"),
            "{text}"
        );
        assert!(
            impact
                .actions
                .iter()
                .any(|a| a.contains("`server::Handler` methods echo")),
            "{text}"
        );
        assert!(text.contains("Generated items that change:\n"), "{text}");
    }

    #[test]
    fn differing_part_cuts_common_tokens() {
        let (a, b) = differing_part(
            "fn f ( x : Vec < A > ) -> u8",
            "fn f ( x : Vec < B > ) -> u8",
        );
        assert_eq!((a.as_str(), b.as_str()), ("… A …", "… B …"));
        let (a, b) = differing_part("a b", "a b c");
        assert_eq!((a.as_str(), b.as_str()), ("… ", "… c"));
    }

    #[test]
    fn manifest_impact_names_content_type_change() {
        let test = "diff::tests::manifest_impact_names_content_type_change";
        let Some(manifest_path) = crate::shared_data::shared_data("manifests/github.json", test)
        else {
            return;
        };
        let (a, b) = (spec("2025-03-26"), spec("2025-06-18"));
        let manifest = Manifest::load(&manifest_path).unwrap();
        let report = with_manifest(
            compare("2025-03-26", &a, "2025-06-18", &b),
            &a,
            &b,
            &manifest,
        );
        let impact = report.manifest.as_ref().unwrap();
        assert!(!impact.items.is_empty());
        assert!(!impact.actions.is_empty());
        assert!(report.to_string().contains("For manifest"));
    }
}
