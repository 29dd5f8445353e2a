//! The `mcpgen_runtime` paths the README and `docs/` name, compiled: each
//! is imported below, so a path that moves or goes fails this file's
//! build, and the test checks that every path the documents name (in
//! text, code and grouped `use` lines) is in the list. A path behind a
//! feature the workspace build leaves off is compiled when that feature
//! is on (`cargo test -p mcpgen-runtime --all-features`).

// Imported to be compiled, never used.
#![allow(unused_imports)]

use mcpgen_runtime::client::http::HttpTransport;
use mcpgen_runtime::client::oauth::Assertion;
use mcpgen_runtime::client::oauth::ClientCredentials;
#[cfg(feature = "oauth")]
use mcpgen_runtime::client::oauth::ClientKey;
use mcpgen_runtime::client::oauth::FileTokenStore;
use mcpgen_runtime::client::oauth::IdentityProvider;
use mcpgen_runtime::client::oauth::LoopbackRedirect;
use mcpgen_runtime::client::oauth::OAuth;
use mcpgen_runtime::client::Client;
use mcpgen_runtime::include_generated;
#[cfg(feature = "otel")]
use mcpgen_runtime::otel::Telemetry;
use mcpgen_runtime::revision;
use mcpgen_runtime::schema;
#[cfg(feature = "schemars")]
use mcpgen_runtime::server::form_schema;
use mcpgen_runtime::server::http;
#[cfg(feature = "oauth")]
use mcpgen_runtime::server::http::auth::https_fetcher;
use mcpgen_runtime::server::http::auth::BearerAuth;
#[cfg(feature = "oauth")]
use mcpgen_runtime::server::http::auth::DpopConfig;
#[cfg(feature = "oauth")]
use mcpgen_runtime::server::http::auth::JwtConfig;
#[cfg(feature = "oauth")]
use mcpgen_runtime::server::http::auth::JwtVerifier;
use mcpgen_runtime::server::http::auth::ResourceMetadata;
use mcpgen_runtime::server::http::bind_and_serve;
use mcpgen_runtime::server::http::serve_with_shutdown;
use mcpgen_runtime::server::http::HttpConfig;
use mcpgen_runtime::server::http::HttpService;
use mcpgen_runtime::server::search;
use mcpgen_runtime::server::tasks::TaskStore;
#[cfg(feature = "skills")]
use mcpgen_runtime::server::Skills;
use mcpgen_runtime::server::INSUFFICIENT_SCOPE;
use mcpgen_runtime::transport::http::HttpOptions;
use mcpgen_runtime::transport::stdio;
use mcpgen_runtime::transport::DEFAULT_SPIN;
#[cfg(feature = "upstream")]
use mcpgen_runtime::upstream::Upstream;
use mcpgen_runtime::Completion;
use mcpgen_runtime::ElicitForm;
use mcpgen_runtime::Elicitation;
use mcpgen_runtime::HandlerError;
use mcpgen_runtime::LogLevel;
use mcpgen_runtime::RequestContext;
use mcpgen_runtime::SampleRequest;
use mcpgen_runtime::ServerBuilder;
use mcpgen_runtime::ToolError;
use mcpgen_runtime::ToolOutput;

/// Every `mcpgen_runtime::…` path in `text`: grouped imports expanded,
/// associated items (`Type::method`) cut back to their type.
fn paths_in(text: &str) -> Vec<String> {
    const ROOT: &str = "mcpgen_runtime::";
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find(ROOT) {
        let tail = &rest[at..];
        let mut end = ROOT.len();
        // Segments `a::b::c`, stopping before a group or anything else.
        loop {
            let seg = tail[end..]
                .find(|c: char| !ident(c))
                .map_or(tail.len() - end, |n| n);
            end += seg;
            if tail[end..].starts_with("::")
                && tail[end + 2..].starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            {
                end += 2;
            } else {
                break;
            }
        }
        // A group right after the root (`mcpgen_runtime::{…}`) or a module.
        let (base, group) = if tail[..end].ends_with("::") {
            (&tail[..end - 2], tail[end..].strip_prefix('{'))
        } else {
            (&tail[..end], tail[end..].strip_prefix("::{"))
        };
        if let Some(group) = group {
            let close = group.find('}').expect("a closed use group");
            for item in group[..close].split(',') {
                let item = item.split(" as ").next().unwrap().trim();
                match item {
                    "" => {}
                    "self" => found.push(base.to_owned()),
                    item => found.push(format!("{base}::{item}")),
                }
            }
        } else {
            found.push(base.to_owned());
        }
        rest = &tail[end..];
    }
    found
        .into_iter()
        .map(|path| {
            let mut segs: Vec<&str> = path.split("::").collect();
            while segs.len() > 2
                && segs[segs.len() - 2].starts_with(|c: char| c.is_ascii_uppercase())
            {
                segs.pop();
            }
            segs.join("::")
        })
        .collect()
}

#[test]
fn every_path_the_documents_name_is_compiled_here() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut documents = vec![root.join("README.md")];
    let mut docs: Vec<_> = std::fs::read_dir(root.join("docs"))
        .expect("docs/")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    docs.sort();
    documents.extend(docs);
    let own = include_str!("doc_paths.rs");
    let mut missing = Vec::new();
    let mut named = 0;
    for document in &documents {
        let text = std::fs::read_to_string(document).unwrap();
        for path in paths_in(&text) {
            named += 1;
            if !own.contains(&format!("\nuse {path};")) {
                missing.push(format!("{}: {path}", document.display()));
            }
        }
    }
    assert!(named > 20, "only {named} paths found: is the scan right?");
    assert!(
        missing.is_empty(),
        "paths the documents name that this file does not import (add them, or fix the document):\n{}",
        missing.join("\n")
    );
}

#[test]
fn grouped_imports_and_associated_items_are_read() {
    let text = "use mcpgen_runtime::{ToolError, RequestContext};\nuse mcpgen_runtime::server::http::{serve, HttpConfig as C};\n`mcpgen_runtime::server::http::HttpConfig::default()` and mcpgen_runtime::include_generated!()";
    assert_eq!(
        paths_in(text),
        [
            "mcpgen_runtime::ToolError",
            "mcpgen_runtime::RequestContext",
            "mcpgen_runtime::server::http::serve",
            "mcpgen_runtime::server::http::HttpConfig",
            "mcpgen_runtime::server::http::HttpConfig",
            "mcpgen_runtime::include_generated",
        ]
    );
}
