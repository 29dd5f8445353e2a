//! The method table: which types are requests and notifications, their
//! `method` constants, params and result types, and the groupings
//! (`ClientRequest`, `ServerNotification`, …) they belong to.
//!
//! A type with a constant `method` property is a notification when its
//! name ends in `Notification` and a request otherwise. The result of a
//! request `XRequest` is the `result` of `XResultResponse` where the
//! revision defines one (2026-07-28 on), else `XResult`, else
//! `EmptyResult`. Each method appears once.

use super::ir::*;

pub(super) fn table(types: &Types) -> Vec<Method> {
    let mut methods = Vec::new();
    for def in types.values().filter(|d| d.definition) {
        let Kind::Struct(s) = &def.kind else { continue };
        let Some(Property {
            value: PropValue::Const(ConstValue::Str(method)),
            ..
        }) = s.property("method")
        else {
            continue;
        };
        let kind = if def.name.ends_with("Notification") {
            MethodKind::Notification
        } else {
            MethodKind::Request
        };
        let params = s.property("params").and_then(|p| match &p.value {
            PropValue::Ty(t) => Some(t.clone()),
            PropValue::Const(_) => None,
        });
        let result = (kind == MethodKind::Request).then(|| result_of(types, &def.name));
        let groups = types
            .values()
            .filter(|g| g.definition)
            .filter(|g| match &g.kind {
                Kind::Union(u) => u
                    .variants
                    .iter()
                    .any(|v| v.ty == Ty::Named(def.name.clone())),
                _ => false,
            })
            .map(|g| g.name.clone())
            .collect();
        methods.push(Method {
            name: method.clone(),
            kind,
            message: def.name.clone(),
            params,
            result,
            groups,
        });
    }
    // One entry per method: where two definitions carry the same method
    // (2026-07-28's `ClientNotification` repeats `CancelledNotification`),
    // the one the groupings list wins, then the first by name.
    methods.sort_by(|a, b| {
        a.name
            .cmp(&b.name)
            .then(b.groups.len().cmp(&a.groups.len()))
            .then(a.message.cmp(&b.message))
    });
    methods.dedup_by(|later, first| later.name == first.name);
    methods
}

fn result_of(types: &Types, request: &str) -> Ty {
    let stem = request.strip_suffix("Request").unwrap_or(request);
    if let Some(TypeDef {
        kind: Kind::Struct(s),
        ..
    }) = types.get(&format!("{stem}ResultResponse"))
    {
        if let Some(Property {
            value: PropValue::Ty(t),
            ..
        }) = s.property("result")
        {
            return t.clone();
        }
    }
    let direct = format!("{stem}Result");
    if types.contains_key(&direct) {
        return Ty::Named(direct);
    }
    if types.contains_key("EmptyResult") {
        Ty::Named("EmptyResult".into())
    } else {
        Ty::Named("Result".into())
    }
}
