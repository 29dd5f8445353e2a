//! [`Generator`]: the one place where the code generators are put
//! together. [`crate::Builder`] (and through it `mcpgen generate`),
//! `mcpgen diff` and `mcpgen new` all generate through it, so the code a
//! build script gets, the items a diff compares and the bindings a
//! scaffold calls are the same.
//!
//! A generator holds a parsed [`Spec`] of one revision and, optionally, a
//! [`Manifest`]; it does no I/O. Each step is a method:
//! [`tool_types`](Generator::tool_types) (the manifest's tool types and
//! their bindings, with names two items would share refused),
//! [`manifest_parts`](Generator::manifest_parts) (the token streams of
//! the manifest's three modules) and [`files_with`](Generator::files_with)
//! (the four files, formatted, with their header).

use std::collections::BTreeSet;

use proc_macro2::TokenStream;

use crate::codegen;
use crate::codegen::tools::{Parsed, ToolBinding, ToolsOutput};
use crate::emit::{self, Header};
use crate::error::{stage, Error, ErrorKind, Result};
use crate::manifest::{check_declarations, Manifest};
use crate::spec::Spec;

/// The names of the generated files, in the order they are produced.
pub const FILES: [&str; 4] = ["protocol.rs", "tools.rs", "server.rs", "client.rs"];

/// Generates the code of one revision's schema and an optional manifest.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Generator<'a> {
    spec: &'a Spec,
    revision: &'a str,
    manifest: Option<&'a Manifest>,
    /// Tool types already generated for the manifest ([`Generator::checked`]).
    typed: Option<&'a ToolsOutput>,
    server: bool,
    client: bool,
    http: bool,
    protocol_types: ProtocolTypes,
    keep: &'a [String],
    /// Over how many files the tool types are split (0 and 1: none).
    tool_parts: usize,
}

/// Which of the revision's types `protocol.rs` holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ProtocolTypes {
    /// With a manifest, the types the generated tool types, server and
    /// client name, the types those contain, and the types kept by name
    /// ([`Builder::keep_protocol_type`](crate::Builder::keep_protocol_type)): a crate compiles the part of
    /// the protocol it uses (a one-tool server about 20 of 180 types).
    /// Without a manifest, every type, as [`All`](Self::All).
    #[default]
    Used,
    /// Every type of the revision, with the method table (`McpRequest`,
    /// `McpNotification`, `MethodResult`).
    All,
}

/// The token streams of what a manifest adds (`diff` compares them), not
/// yet formatted.
#[cfg(any(feature = "cli", test))]
#[derive(Debug, Clone, Default)]
pub(crate) struct Parts {
    /// The body of `tools.rs`: tool inputs and outputs, prompt arguments,
    /// resource names and the served tool list.
    pub(crate) tools: TokenStream,
    /// The body of `server.rs` (empty without a manifest or with the
    /// server off).
    pub(crate) server: TokenStream,
    /// The body of `client.rs` (empty without a manifest or with the
    /// client off).
    pub(crate) client: TokenStream,
}

/// The formatted files.
#[derive(Debug, Clone)]
pub(crate) struct Files {
    /// `(file name, contents)` in the order of [`FILES`].
    pub(crate) files: Vec<(String, String)>,
    /// Fallbacks taken (a property typed as JSON instead).
    pub(crate) warnings: Vec<Error>,
}

impl<'a> Generator<'a> {
    /// A generator for `spec`, the parsed schema of protocol `revision`,
    /// with server, client and Streamable HTTP on and no manifest.
    pub(crate) fn new(spec: &'a Spec, revision: &'a str) -> Self {
        Self {
            spec,
            revision,
            manifest: None,
            typed: None,
            server: true,
            client: true,
            http: true,
            protocol_types: ProtocolTypes::Used,
            keep: &[],
            tool_parts: 1,
        }
    }

    /// Splits the tool types over `count` files besides `tools.rs`
    /// ([`crate::Builder::tool_parts`]); 0 and 1 keep them in `tools.rs`.
    pub(crate) fn tool_parts(mut self, count: usize) -> Self {
        self.tool_parts = count;
        self
    }

    /// Which protocol types to generate. Default [`ProtocolTypes::Used`].
    pub(crate) fn protocol_types(mut self, which: ProtocolTypes) -> Self {
        self.protocol_types = which;
        self
    }

    /// Protocol types (their Rust or schema names) generated with
    /// [`ProtocolTypes::Used`] even when no generated code names them, with
    /// the types they contain: those the handlers use beyond the server's
    /// own. A name the revision does not have is an error.
    pub(crate) fn keep_protocol_types(mut self, names: &'a [String]) -> Self {
        self.keep = names;
        self
    }

    /// The manifest whose tools, resources and prompts are generated.
    pub(crate) fn manifest(mut self, manifest: &'a Manifest) -> Self {
        self.manifest = Some(manifest);
        self
    }

    /// Uses `tools`, the manifest's tool types as [`checked`](Self::checked)
    /// gave them, instead of generating them again: a caller that checks a
    /// manifest and then generates from it types its tools once. (The
    /// builder hands its checked types to [`files_with`](Self::files_with)
    /// instead, which then needs no copy of their tree.)
    #[cfg(any(feature = "cli", test))]
    pub(crate) fn typed(mut self, tools: &'a ToolsOutput) -> Self {
        self.typed = Some(tools);
        self
    }

    /// Whether to generate the server. Default true.
    pub(crate) fn server(mut self, yes: bool) -> Self {
        self.server = yes;
        self
    }

    /// Whether to generate the client. Default true.
    pub(crate) fn client(mut self, yes: bool) -> Self {
        self.client = yes;
        self
    }

    /// Whether the server and client get their Streamable HTTP parts.
    /// Default true.
    pub(crate) fn http(mut self, yes: bool) -> Self {
        self.http = yes;
        self
    }

    /// The manifest's tool types and the binding of each tool (empty
    /// without a manifest). Two items whose Rust names would be the same
    /// are an error of kind [`ErrorKind::Manifest`], as is every schema
    /// the generator cannot type.
    pub(crate) fn tool_types(&self) -> Result<ToolsOutput> {
        if let Some(typed) = self.typed {
            return Ok(typed.clone());
        }
        let Some(manifest) = self.manifest else {
            return Ok(ToolsOutput {
                tokens: TokenStream::new(),
                tools: Vec::new(),
                warnings: Vec::new(),
                clashes: Vec::new(),
                parsed: None,
            });
        };
        let (out, clashes) = typed_tools(manifest)?;
        match clashes.into_iter().next() {
            Some(clash) => Err(clash),
            None => Ok(out),
        }
    }

    /// Every problem of a manifest for protocol `revision`, in document
    /// order, each of kind [`ErrorKind::Manifest`] (or [`ErrorKind::Io`]):
    /// what it declares, then, when that is clean, what only generating its
    /// tool types can tell (a schema that cannot be typed, Rust names two
    /// items would share). An empty list means [`tool_types`](Self::tool_types)
    /// and everything after it succeed for the manifest.
    pub(crate) fn check(manifest: &Manifest, revision: &str) -> Vec<Error> {
        Self::checked(manifest, revision).err().unwrap_or_default()
    }

    /// [`check`](Self::check) keeping what it generated: the manifest's
    /// tool types when it has no problem (hand them to
    /// [`typed`](Self::typed)), every problem otherwise.
    pub(crate) fn checked(
        manifest: &Manifest,
        revision: &str,
    ) -> std::result::Result<ToolsOutput, Vec<Error>> {
        // The declarations are checked on a second thread while the tool
        // types are made on this one (their tokens cannot cross threads);
        // the types of a manifest with problems are thrown away.
        let (declared, typed) = std::thread::scope(|scope| {
            let declared = scope.spawn(|| check_declarations(manifest, revision));
            let typed =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| typed_tools(manifest)));
            let declared = declared
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            (declared, typed)
        });
        if !declared.is_empty() {
            return Err(declared
                .into_iter()
                .map(|e| e.or_kind(ErrorKind::Manifest))
                .collect());
        }
        match typed.unwrap_or_else(|panic| std::panic::resume_unwind(panic)) {
            Ok((out, clashes)) if clashes.is_empty() => Ok(out),
            Ok((_, clashes)) => Err(clashes),
            Err(e) => Err(vec![e]),
        }
    }

    /// The schema name of the protocol type `name` (a Rust or schema name).
    fn protocol_type(&self, name: &str) -> Result<String> {
        self.spec
            .types
            .values()
            .find(|def| def.name == name || codegen::protocol::type_ident(&def.name) == name)
            .map(|def| def.name.clone())
            .ok_or_else(|| {
                Error::new(format!(
                    "protocol type `{name}` to keep is not a type of revision {}",
                    self.revision
                ))
                .with_hint("name a type of `protocol.rs` as generated with every type (`ProtocolTypes::All`, `--protocol-types all`)")
                .or_kind(ErrorKind::Usage)
            })
    }

    /// What the manifest adds: the token streams of `tools.rs`, `server.rs`
    /// and `client.rs` (all empty without a manifest).
    #[cfg(any(feature = "cli", test))]
    pub(crate) fn manifest_parts(&self) -> Result<Parts> {
        let Some(manifest) = self.manifest else {
            return Ok(Parts::default());
        };
        let out = self.tool_types()?;
        let (server, client) = self.side().bodies(manifest, &out.tools)?;
        let tools = tools_body(manifest, &out)?;
        Ok(Parts {
            tools,
            server,
            client,
        })
    }

    /// What `server.rs` and `client.rs` are made from.
    fn side(&self) -> Side<'a> {
        Side {
            spec: self.spec,
            revision: self.revision,
            server: self.server,
            client: self.client,
            http: self.http,
        }
    }

    /// The protocol types `protocol.rs` holds (`None`: all of them), given
    /// those the generated code names.
    fn protocol_only(&self, mentioned: BTreeSet<String>) -> Result<Option<BTreeSet<String>>> {
        Ok(match (self.protocol_types, self.manifest) {
            (ProtocolTypes::Used, Some(_)) => {
                let mut roots = mentioned;
                for name in self.keep {
                    roots.insert(self.protocol_type(name)?);
                }
                Some(codegen::protocol::used(self.spec, roots))
            }
            _ => None,
        })
    }

    /// The work of [`files_with`](Self::files_with) that needs only the tools'
    /// names: `server.rs`, `client.rs` and the end of `tools.rs`, formatted
    /// under `header`. It can go to another thread, so that a caller can
    /// start it before the tool types (the [`crate::Builder`] runs it
    /// beside the manifest's check) and hand it to [`files_with`](Self::files_with).
    pub(crate) fn side_work(&self) -> Option<SideWork<'a>> {
        Some(SideWork {
            side: self.side(),
            manifest: self.manifest?,
        })
    }

    /// The four files, each formatted under `header`, and the warnings of
    /// the tool types. With a manifest, `server.rs` and `client.rs` come
    /// from `sides`, the result of [`side_work`](Self::side_work) when the
    /// caller already ran it (for the same generator and header), else they
    /// are written on a second thread while the tool types are made. The
    /// tool types come from `typed` when the caller hands them over (their
    /// syntax tree is then formatted without a copy), else as
    /// [`tool_types`](Self::tool_types) gives them.
    pub(crate) fn files_with(
        &self,
        header: &Header,
        sides: Option<Result<SideFiles>>,
        typed: Option<ToolsOutput>,
    ) -> Result<Files> {
        let Some(manifest) = self.manifest else {
            let protocol = codegen::protocol::generate_only(self.spec, None)?;
            let mut files = vec![(
                FILES[0].to_owned(),
                format_file(FILES[0], protocol, header)?,
            )];
            // Split: empty parts, so that the crates of the parts build.
            let parts = (1..=self.part_files()).map(part_file);
            for name in FILES[1..].iter().map(|f| f.to_string()).chain(parts) {
                let text = format_file(&name, TokenStream::new(), header)?;
                files.push((name, text));
            }
            return Ok(Files {
                files,
                warnings: Vec::new(),
            });
        };
        std::thread::scope(|scope| {
            let pending = match sides {
                Some(done) => Err(done),
                None => {
                    let work = SideWork {
                        side: self.side(),
                        manifest,
                    };
                    Ok(scope.spawn(move || work.run(header)))
                }
            };
            // Tokens cannot cross threads: the tool types stay on this one.
            let tools = typed.map_or_else(|| self.tool_types(), Ok);
            let tools = tools.and_then(|mut out| {
                let parsed = out.parsed.take().map(|Parsed(file)| {
                    std::rc::Rc::try_unwrap(file).unwrap_or_else(|shared| (*shared).clone())
                });
                let (text, parts) = self.format_tool_types(&out, parsed, header)?;
                Ok((text, parts, out.warnings, out.tools))
            });
            let sides = match pending {
                Ok(thread) => thread
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
                Err(done) => done,
            };
            let (mut tools, parts, warnings, bindings) = tools?;
            // The side work named each tool's types from its name alone;
            // when the tool types were rebased to resolve a clash, it is
            // done again with the names they got.
            let sides = if codegen::tools::rebased(manifest, &bindings) {
                let work = SideWork {
                    side: self.side(),
                    manifest,
                };
                work.run_with(header, &bindings)?
            } else {
                sides?
            };
            // The tool types never name a protocol type (typify's output
            // has no `protocol` path to name one through): only what the
            // side work wrote is searched.
            let only = self.protocol_only(sides.mentioned)?;
            tools.push_str(&sides.rest);
            let tools = emit::space_items(&tools);
            let protocol = codegen::protocol::generate_only(self.spec, only.as_ref())?;
            let mut files = vec![
                (
                    FILES[0].to_owned(),
                    format_file(FILES[0], protocol, header)?,
                ),
                (FILES[1].to_owned(), tools),
                (FILES[2].to_owned(), sides.server),
                (FILES[3].to_owned(), sides.client),
            ];
            files.extend(
                parts
                    .into_iter()
                    .enumerate()
                    .map(|(at, text)| (part_file(at + 1), text)),
            );
            Ok(Files { files, warnings })
        })
    }

    /// How many part files the tool types are split into: none unless
    /// more than one was asked for.
    fn part_files(&self) -> usize {
        if self.tool_parts > 1 {
            self.tool_parts
        } else {
            0
        }
    }

    /// The formatted tool types: the text of `tools.rs` and, when they are
    /// split ([`tool_parts`](Self::tool_parts)), of each part's file.
    fn format_tool_types(
        &self,
        out: &ToolsOutput,
        parsed: Option<syn::File>,
        header: &Header,
    ) -> Result<(String, Vec<String>)> {
        let format = |tokens: &TokenStream, file| {
            emit::format_tools(tokens, file, header).map_err(|e| in_file(FILES[1], e))
        };
        if self.part_files() == 0 {
            return Ok((format(&out.tokens, parsed)?, Vec::new()));
        }
        let Some(file) = parsed.or_else(|| syn::parse2(out.tokens.clone()).ok()) else {
            // Tokens that do not parse: formatting them says where.
            return Ok((format(&out.tokens, None)?, Vec::new()));
        };
        let (shared, parts) = codegen::tools::split_parts(file, &out.tools, self.part_files());
        let none = TokenStream::new();
        let shared = format(&none, Some(shared))?;
        let parts = parts
            .into_iter()
            .map(|part| format(&none, Some(part)).map(|text| emit::space_items(&text)))
            .collect::<Result<_>>()?;
        Ok((shared, parts))
    }
}

/// The name of the file of part `number` (from 1) of the tool types.
pub(crate) fn part_file(number: usize) -> String {
    format!("tools_part_{number}.rs")
}

/// What [`Generator::files_with`] writes from the tools' names alone, ready to
/// run on another thread.
pub(crate) struct SideWork<'a> {
    side: Side<'a>,
    manifest: &'a Manifest,
}

impl SideWork<'_> {
    /// `server.rs`, `client.rs` and the end of `tools.rs`, formatted.
    pub(crate) fn run(&self, header: &Header) -> Result<SideFiles> {
        self.run_with(header, &codegen::tools::bindings(self.manifest))
    }

    /// [`run`](Self::run) with the tools' `bindings` as generating their
    /// types made them.
    fn run_with(&self, header: &Header, bindings: &[ToolBinding]) -> Result<SideFiles> {
        let mut files = self.side.files(self.manifest, bindings, header)?;
        let rest = tools_rest(self.manifest, bindings)?;
        files
            .mentioned
            .extend(codegen::protocol::mentioned(self.side.spec, &[&rest]));
        files.rest = emit::format_rest(rest).map_err(|e| in_file(FILES[1], e))?;
        Ok(files)
    }
}

/// What `server.rs` and `client.rs` are made from: the parts of a
/// [`Generator`] that can go to another thread (tokens cannot).
#[derive(Clone, Copy)]
struct Side<'a> {
    spec: &'a Spec,
    revision: &'a str,
    server: bool,
    client: bool,
    http: bool,
}

impl Side<'_> {
    /// The bodies of `server.rs` and `client.rs` (each empty when off):
    /// they need only the tools' names, not their types.
    fn bodies(
        &self,
        manifest: &Manifest,
        tools: &[ToolBinding],
    ) -> Result<(TokenStream, TokenStream)> {
        let server = if self.server {
            codegen::siblings::file(codegen::server::generate(
                manifest,
                tools,
                self.spec,
                self.revision,
                self.http,
            )?)
        } else {
            TokenStream::new()
        };
        let client = if self.client {
            let mut client = codegen::client::generate(tools, self.spec, self.revision, self.http)?;
            client.extend(codegen::surface::client_impl(manifest));
            client.extend(codegen::search::client_impl(manifest));
            codegen::siblings::file(client)
        } else {
            TokenStream::new()
        };
        Ok((server, client))
    }

    /// `server.rs` and `client.rs` formatted, and the protocol types they
    /// name.
    fn files(
        &self,
        manifest: &Manifest,
        bindings: &[ToolBinding],
        header: &Header,
    ) -> Result<SideFiles> {
        let (server, client) = self.bodies(manifest, bindings)?;
        let mentioned = codegen::protocol::mentioned(self.spec, &[&server, &client]);
        Ok(SideFiles {
            server: format_file("server.rs", server, header)?,
            client: format_file("client.rs", client, header)?,
            rest: String::new(),
            mentioned,
        })
    }
}

/// `server.rs` and `client.rs`, formatted, what `tools.rs` holds after the
/// tool types, formatted, and the protocol types they name.
pub(crate) struct SideFiles {
    server: String,
    client: String,
    rest: String,
    mentioned: BTreeSet<String>,
}

/// The body of `tools.rs`: the tool types, the prompts' and resources'
/// types, and the served tool list.
#[cfg(any(feature = "cli", test))]
fn tools_body(manifest: &Manifest, out: &ToolsOutput) -> Result<TokenStream> {
    let mut tools = out.body();
    tools.extend(tools_rest(manifest, &out.tools)?);
    Ok(tools)
}

/// What `tools.rs` holds after the tool types: the prompts' and
/// resources' types, and the served tool list.
fn tools_rest(manifest: &Manifest, tools: &[ToolBinding]) -> Result<TokenStream> {
    // The prompts' and templates' argument types are with the tool types.
    let mut rest = codegen::surface::types(manifest);
    rest.extend(codegen::tools::tools_json(tools)?);
    Ok(rest)
}

/// One generated file, formatted under `header`; an error names the file.
fn format_file(name: &str, tokens: TokenStream, header: &Header) -> Result<String> {
    emit::format(tokens, header).map_err(|e| in_file(name, e))
}

/// A formatting error, naming the file.
fn in_file(name: &str, mut e: Error) -> Error {
    e.message = format!("{name}: {}", e.message);
    e.or_kind(ErrorKind::Generate)
}

/// The tool types of `manifest`, and every Rust name two of its items
/// would share (tools, or a prompt or template beside a tool's types).
fn typed_tools(manifest: &Manifest) -> Result<(ToolsOutput, Vec<Error>)> {
    let clashes = |defined: &BTreeSet<String>| codegen::surface::type_clashes(manifest, defined);
    let joining = codegen::tools::Joining {
        types: codegen::surface::argument_types(manifest),
        clashes: &clashes,
    };
    let out = stage(
        codegen::tools::generate_joining(manifest, Some(&joining)),
        ErrorKind::Manifest,
    )?;
    let clashes = out
        .clashes
        .iter()
        .cloned()
        .map(|e| e.or_kind(ErrorKind::Manifest))
        .collect();
    Ok((out, clashes))
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    fn notes() -> Manifest {
        let path =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/notes-server/manifest.json");
        Manifest::from_str(&std::fs::read_to_string(&path).unwrap(), "manifest.json").unwrap()
    }

    #[test]
    fn checked_tool_types_generate_what_a_fresh_generator_does() {
        let manifest = notes();
        let typed =
            Generator::checked(&manifest, "2025-11-25").expect("the notes manifest is clean");
        assert!(!typed.tools.is_empty());
        let schema = crate::shared_data::schema_file("2025-11-25");
        let spec = Spec::load(&schema).unwrap();
        let fresh = Generator::new(&spec, "2025-11-25")
            .manifest(&manifest)
            .manifest_parts()
            .unwrap();
        let reused = Generator::new(&spec, "2025-11-25")
            .manifest(&manifest)
            .typed(&typed)
            .manifest_parts()
            .unwrap();
        for (a, b) in [
            (fresh.tools, reused.tools),
            (fresh.server, reused.server),
            (fresh.client, reused.client),
        ] {
            assert_eq!(a.to_string(), b.to_string());
        }
    }

    #[test]
    fn files_are_the_manifest_parts_formatted() {
        // A description with a carriage return and a bidirectional
        // override, which every comment loses.
        let mut document = notes().document;
        document["tools"][0]["inputSchema"]["description"] =
            serde_json::json!("Line one\rline two \u{202e}reversed");
        let manifest = Manifest::from_str(&document.to_string(), "manifest.json").unwrap();
        let schema = crate::shared_data::schema_file("2025-11-25");
        let spec = Spec::load(&schema).unwrap();
        let header = Header::new().input("test");
        for typed in [
            None,
            Some(Generator::checked(&manifest, "2025-11-25").unwrap()),
        ] {
            let mut generator = Generator::new(&spec, "2025-11-25").manifest(&manifest);
            if let Some(typed) = &typed {
                assert!(typed.parsed.is_some(), "the tool types keep their tree");
                generator = generator.typed(typed);
            }
            let files = generator.files_with(&header, None, None).unwrap();
            if let Some(typed) = &typed {
                // Handed over, the same files.
                let handed = generator.files_with(&header, None, Some(typed.clone()));
                assert_eq!(handed.unwrap().files, files.files);
            }
            let parts = generator.manifest_parts().unwrap();
            let formatted = [parts.tools, parts.server, parts.client]
                .map(|tokens| emit::format(tokens, &header).unwrap());
            for ((name, text), expected) in files.files[1..].iter().zip(&formatted) {
                assert_eq!(text, expected, "{name}");
            }
            // The protocol types the other files name, and only those.
            let protocol = &files.files[0].1;
            assert!(protocol.contains("pub struct TextContent"), "{protocol}");
            assert!(
                !protocol.contains("pub struct CreateMessageRequest"),
                "{protocol}"
            );
            let tools = &files.files[1].1;
            assert!(tools.contains("Line one"), "{tools}");
            assert!(!tools.contains('\r') && !tools.contains('\u{202e}'));
        }
        // Without a manifest, only the protocol types.
        let files = Generator::new(&spec, "2025-11-25")
            .files_with(&header, None, None)
            .unwrap();
        assert!(files.files[0].1.contains("pub struct CallToolRequest"));
        assert_eq!(files.files[1].1, header.render());
    }

    #[test]
    fn checked_gives_every_problem_and_check_the_same_list() {
        let mut document = notes().document;
        let first = document["tools"][0].clone();
        document["tools"].as_array_mut().unwrap().push(first);
        let manifest = Manifest::from_str(&document.to_string(), "manifest.json").unwrap();
        let problems =
            Generator::checked(&manifest, "2025-11-25").expect_err("a tool declared twice");
        assert!(
            problems.iter().all(|e| e.kind() == ErrorKind::Manifest),
            "{problems:?}"
        );
        let listed: Vec<String> = Generator::check(&manifest, "2025-11-25")
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(
            listed,
            problems.iter().map(ToString::to_string).collect::<Vec<_>>()
        );
    }
}
