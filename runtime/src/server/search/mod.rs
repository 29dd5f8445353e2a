//! The search tool surface: for a large catalog, `tools/list` answers the
//! pinned tools and two tools of the server's own, `search_tools` (the
//! best-matching tools' full definitions for a query) and `call_tool` (runs
//! a tool named in its arguments), in place of every tool.
//!
//! The names and shapes are FastMCP's (its search transforms), so an agent
//! that knows one knows the other. Every tool stays callable by its own
//! name. `call_tool` is unwrapped into the direct call before anything else
//! reads the request (`SearchSurface::unwrap_call`): scopes, validation,
//! rate limits, tasks, progress, cancellation, the audit log and telemetry
//! all see the tool that runs. Search answers leave out the tools the
//! caller lacks the scopes for.

mod index;

use serde_json::{json, Map, Value};

use crate::jsonrpc::{self, RpcError};
use crate::server::request::params::Params;
use crate::server::tools::toolset::ToolSet;

pub use index::{words, IndexMismatch, Posting, SearchIndex};

pub use crate::revision::search_tools::{CALL_TOOL, SEARCH_TOOLS};
/// The most tools one search answers.
pub const MAX_RESULTS: usize = 50;
/// Tools a search answers when the query names no `limit`.
pub const DEFAULT_RESULTS: usize = 5;
/// The query that answers every tool, in the server's order, a page of
/// `limit` from `offset` on: how `mcpgen introspect` reads the whole
/// catalog.
pub const EVERY_TOOL: &str = "*";
/// The longest query, in characters (a query costs in proportion to its
/// words; a task is described in far fewer).
const MAX_QUERY: usize = 1_000;
/// The largest `offset` a search takes.
const MAX_OFFSET: u64 = 100_000;

/// How a server offers a large catalog: set with
/// [`ServerBuilder::tool_search`](crate::server::ServerBuilder::tool_search).
#[derive(Debug, Clone, Default)]
pub struct ToolSearch {
    pinned: Vec<String>,
    index: Option<&'static SearchIndex>,
}

impl ToolSearch {
    /// The search surface with no pinned tool and an index computed when
    /// the server is built.
    pub fn new() -> Self {
        Self::default()
    }

    /// Tools `tools/list` still answers, beside the two search tools.
    pub fn pin<I: IntoIterator<Item = S>, S: Into<String>>(mut self, names: I) -> Self {
        self.pinned.extend(names.into_iter().map(Into::into));
        self
    }

    /// The index the generator computed for this catalog (no work at
    /// start-up); it must cover the server's tools in their order.
    pub fn index(mut self, index: &'static SearchIndex) -> Self {
        self.index = Some(index);
        self
    }
}

/// The index a surface searches: the generated one or one built here.
#[derive(Debug)]
enum Index {
    Static(&'static SearchIndex),
    Built(Box<SearchIndex>),
}

/// The search surface of a built server.
#[derive(Debug)]
pub(crate) struct SearchSurface {
    /// What `tools/list` answers: the pinned tools, then the two tools of
    /// the surface.
    listed: Vec<Value>,
    index: Index,
}

impl SearchSurface {
    /// The surface over `tools`; an error names what is wrong.
    pub(crate) fn new(search: ToolSearch, tools: &ToolSet) -> Result<Self, String> {
        for own in [SEARCH_TOOLS, CALL_TOOL] {
            if tools.find(own).is_some() {
                return Err(format!(
                    "the search tool surface serves a tool named {own:?} of its own; rename the declared tool {own:?}"
                ));
            }
        }
        let mut listed = Vec::with_capacity(search.pinned.len() + 2);
        for name in &search.pinned {
            let Some(at) = tools.find(name) else {
                return Err(format!(
                    "the pinned tool {name:?} is not declared; pin a tool of the manifest"
                ));
            };
            listed.push(tools.get(at).declared.clone());
        }
        listed.push(search_tool());
        listed.push(call_tool());
        let index = match search.index {
            Some(index) => {
                index
                    .check(tools.len())
                    .map_err(|mismatch| mismatch.to_string())?;
                Index::Static(index)
            }
            None => {
                let declared: Vec<Value> = (0..tools.len())
                    .map(|i| tools.get(i).declared.clone())
                    .collect();
                Index::Built(Box::new(SearchIndex::build(&declared)))
            }
        };
        Ok(SearchSurface { listed, index })
    }

    /// What `tools/list` answers.
    pub(crate) fn listed(&self) -> &[Value] {
        &self.listed
    }

    fn index(&self) -> &SearchIndex {
        match &self.index {
            Index::Static(index) => index,
            Index::Built(index) => index,
        }
    }

    /// Turns the params of a `tools/call` of `call_tool` into those of
    /// the call it asks for (the tool's `name` and its `arguments`); other
    /// calls are left as they are.
    pub(crate) fn unwrap_call(&self, params: &mut Params<'_>) -> Result<(), RpcError> {
        if params.get("name").and_then(Value::as_str) != Some(CALL_TOOL) {
            return Ok(());
        }
        let usage = || {
            format!(
                "{CALL_TOOL} needs arguments {{\"name\": the tool's name, \"arguments\": its arguments (an object)}}; find tools with {SEARCH_TOOLS}"
            )
        };
        let Some(Value::Object(mut outer)) = params.take("arguments") else {
            return Err(RpcError::invalid_params(usage()));
        };
        let name = match outer.remove("name") {
            Some(Value::String(name)) if name != CALL_TOOL => name,
            Some(Value::String(_)) => {
                return Err(RpcError::invalid_params(format!(
                    "{CALL_TOOL} cannot call itself; name the tool to run"
                )))
            }
            Some(other) => {
                return Err(RpcError::invalid_params(format!(
                    "{}; \"name\" is {}",
                    usage(),
                    jsonrpc::kind(&other)
                )))
            }
            None => return Err(RpcError::invalid_params(usage())),
        };
        let arguments = match outer.remove("arguments") {
            None | Some(Value::Null) => Value::Object(Map::new()),
            Some(arguments @ Value::Object(_)) => arguments,
            Some(other) => {
                return Err(RpcError::invalid_params(format!(
                    "{}; \"arguments\" is {}",
                    usage(),
                    jsonrpc::kind(&other)
                )))
            }
        };
        if let Some(extra) = outer.keys().next() {
            return Err(RpcError::invalid_params(format!(
                "{}; unknown member {extra:?}",
                usage()
            )));
        }
        params.set("name", Value::String(name));
        params.set("arguments", arguments);
        Ok(())
    }

    /// The result of a `search_tools` call with `arguments`: the best
    /// matches' definitions (only tools `may_call` allows), as FastMCP
    /// answers them: a JSON array in the text, the same array in
    /// `structuredContent.result`; bad arguments give a tool error that
    /// says what to send.
    pub(crate) fn answer(
        &self,
        tools: &ToolSet,
        arguments: Option<&Value>,
        may_call: impl Fn(&Value) -> bool,
    ) -> Value {
        let (query, limit, offset) = match read_arguments(arguments) {
            Ok(read) => read,
            Err(message) => {
                return json!({
                    "content": [{"type": "text", "text": message}],
                    "isError": true,
                })
            }
        };
        let allowed = |at: usize| may_call(&tools.get(at).declared);
        let found: Vec<usize> = if query.trim() == EVERY_TOOL {
            (0..tools.len())
                .filter(|&at| allowed(at))
                .skip(offset)
                .take(limit)
                .collect()
        } else {
            let ranked = self.index().search(query, offset + limit, allowed);
            ranked.into_iter().skip(offset).map(|(at, _)| at).collect()
        };
        let matches: Vec<Value> = found
            .iter()
            .map(|&at| tools.get(at).declared.clone())
            .collect();
        let text = if matches.is_empty() {
            format!("No tool matches {query:?}; try other words, or fewer.")
        } else {
            Value::Array(matches.clone()).to_string()
        };
        let structured = json!({ "result": matches });
        json!({
            "content": [{"type": "text", "text": text}],
            "structuredContent": structured,
        })
    }
}

/// The query and the limit of a search; a message for a bad one.
fn read_arguments(arguments: Option<&Value>) -> Result<(&str, usize, usize), String> {
    let usage = format!(
        "{SEARCH_TOOLS} needs {{\"query\": words describing the task (\"{EVERY_TOOL}\": every tool in the server's order), \"limit\": 1 to {MAX_RESULTS} (default {DEFAULT_RESULTS}), \"offset\": tools to skip (default 0)}}"
    );
    let Some(Value::Object(arguments)) = arguments else {
        return Err(format!("{usage}; \"query\" is missing"));
    };
    if let Some(extra) = arguments
        .keys()
        .find(|k| !matches!(k.as_str(), "query" | "limit" | "offset"))
    {
        return Err(format!("{usage}; unknown argument {extra:?}"));
    }
    let query = match arguments.get("query") {
        Some(Value::String(query)) if query.chars().count() > MAX_QUERY => {
            return Err(format!(
                "{usage}; \"query\" has more than {MAX_QUERY} characters: describe the task in fewer words"
            ))
        }
        Some(Value::String(query)) if !query.trim().is_empty() => query.as_str(),
        _ => return Err(format!("{usage}; \"query\" is missing or empty")),
    };
    let limit = match arguments.get("limit") {
        None | Some(Value::Null) => DEFAULT_RESULTS,
        Some(limit) => match limit.as_u64() {
            Some(n @ 1..=50) => n as usize,
            _ => return Err(format!("{usage}; \"limit\" is {limit}")),
        },
    };
    let offset = match arguments.get("offset") {
        None | Some(Value::Null) => 0,
        Some(offset) => match offset.as_u64() {
            Some(n @ 0..=MAX_OFFSET) => n as usize,
            _ => return Err(format!("{usage}; \"offset\" is {offset}")),
        },
    };
    Ok((query, limit, offset))
}

/// The definition of `search_tools`.
fn search_tool() -> Value {
    json!({
        "name": SEARCH_TOOLS,
        "title": "Search tools",
        "description": "Finds the tools of this server that fit a task, best first, and answers their full definitions (name, description, input schema). Call a tool found with call_tool, or by its own name.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "query": {
                    "type": "string",
                    "minLength": 1,
                    "description": "Words describing the task, e.g. \"weather alerts for a US state\"."
                },
                "limit": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": MAX_RESULTS,
                    "default": DEFAULT_RESULTS,
                    "description": "The most tools to answer."
                },
                "offset": {
                    "type": "integer",
                    "minimum": 0,
                    "default": 0,
                    "description": "Tools to skip, to page through the answer; with the query \"*\", every tool in the server's order."
                }
            },
            "required": ["query"],
            "additionalProperties": false
        },
        "outputSchema": {
            "type": "object",
            "properties": {
                "result": {
                    "type": "array",
                    "items": {"type": "object"},
                    "description": "The tools found, best first, as tools/list would answer them."
                }
            },
            "required": ["result"]
        },
        "annotations": {"readOnlyHint": true, "idempotentHint": true, "openWorldHint": false}
    })
}

/// The definition of `call_tool`.
fn call_tool() -> Value {
    json!({
        "name": CALL_TOOL,
        "title": "Call a tool",
        "description": "Runs a tool of this server found with search_tools, by its name, with its arguments, and answers the tool's result.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "name": {"type": "string", "minLength": 1, "description": "The tool's name, as search_tools answered it."},
                "arguments": {"type": "object", "description": "The tool's arguments, as its input schema describes them."}
            },
            "required": ["name"],
            "additionalProperties": false
        }
    })
}
