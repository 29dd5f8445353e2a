//! The one table of MCP protocol revisions: which revisions exist, which
//! era each belongs to (the stateful `initialize` era up to 2025-11-25, the
//! stateless per-request `_meta` era from 2026-07-28), whether JSON-RPC
//! batches exist, how invalid tool arguments are answered and which JSON
//! Schema dialect applies to schemas without `$schema`; plus the reserved
//! `_meta` keys and error codes of the stateless era.
//!
//! The server engine, the client engine and the generator all read this
//! table; nothing else hard-codes revision knowledge. [`method`] is the
//! table of methods: which era each belongs to and what it names.

pub mod method;

/// How a revision establishes who is talking.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Era {
    /// `initialize` opens a session that fixes revision, client info and
    /// capabilities (2024-11-05 to 2025-11-25).
    Stateful,
    /// No handshake: every request carries its revision, client info and
    /// capabilities in `params._meta`; `server/discover` describes the server
    /// (2026-07-28 on).
    Stateless,
}

/// How invalid tool arguments are answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValidationStyle {
    /// A `-32602` protocol error with the failures in `data` (up to 2025-06-18).
    ProtocolError,
    /// A `CallToolResult` with `isError: true` naming each field (2025-11-25 on).
    ToolError,
}

/// What one protocol revision means to an implementation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Revision {
    /// The revision's name, a date (`2025-11-25`).
    pub name: &'static str,
    /// Stateful or stateless.
    pub era: Era,
    /// Whether JSON-RPC batches exist (a receiver must accept them).
    pub batches: bool,
    /// How invalid tool arguments are answered.
    pub validation: ValidationStyle,
    /// The dialect of tool schemas that name none with `$schema`, as the
    /// `$schema` URI that names it (`schema::Draft::from_uri` reads it;
    /// the table names no type, so every module can read it).
    pub default_schema: &'static str,
    /// Whether results carry `resultType` (and list results `ttlMs` and
    /// `cacheScope`).
    pub result_type: bool,
}

/// The `$schema` URI of JSON Schema draft-07.
const DRAFT_07: &str = "http://json-schema.org/draft-07/schema#";
/// The `$schema` URI of JSON Schema 2020-12.
const DRAFT_2020_12: &str = "https://json-schema.org/draft/2020-12/schema";

/// Every published revision, oldest first.
pub const REVISIONS: &[Revision] = &[
    Revision {
        name: "2024-11-05",
        era: Era::Stateful,
        batches: false,
        validation: ValidationStyle::ProtocolError,
        default_schema: DRAFT_07,
        result_type: false,
    },
    Revision {
        name: "2025-03-26",
        era: Era::Stateful,
        batches: true,
        validation: ValidationStyle::ProtocolError,
        default_schema: DRAFT_07,
        result_type: false,
    },
    Revision {
        name: "2025-06-18",
        era: Era::Stateful,
        batches: false,
        validation: ValidationStyle::ProtocolError,
        default_schema: DRAFT_07,
        result_type: false,
    },
    Revision {
        name: "2025-11-25",
        era: Era::Stateful,
        batches: false,
        validation: ValidationStyle::ToolError,
        default_schema: DRAFT_2020_12,
        result_type: false,
    },
    Revision {
        name: "2026-07-28",
        era: Era::Stateless,
        batches: false,
        validation: ValidationStyle::ToolError,
        default_schema: DRAFT_2020_12,
        result_type: true,
    },
];

/// The newest revision.
pub const LATEST: &str = "2026-07-28";

/// The newest revision of the stateful era.
pub const LATEST_STATEFUL: &str = "2025-11-25";

/// The revision named `name`, when it is one of [`REVISIONS`].
pub fn get(name: &str) -> Option<&'static Revision> {
    REVISIONS.iter().find(|r| r.name == name)
}

/// The era of `name`. Revisions are dates, so one this table does not
/// know is placed by ordering: anything after the last stateful revision
/// is modern.
pub fn era(name: &str) -> Era {
    match get(name) {
        Some(r) => r.era,
        None if name > LATEST_STATEFUL => Era::Stateless,
        None => Era::Stateful,
    }
}

/// The row of `name`, or of the nearest known revision before it (a newer
/// unknown revision behaves like the newest one known).
pub fn nearest(name: &str) -> &'static Revision {
    REVISIONS
        .iter()
        .rev()
        .find(|r| r.name <= name)
        .unwrap_or(&REVISIONS[0])
}

/// Names of all revisions of `era`, oldest first.
pub fn names_of(era: Era) -> impl Iterator<Item = &'static str> {
    REVISIONS
        .iter()
        .filter(move |r| r.era == era)
        .map(|r| r.name)
}

/// The `_meta` keys: the specification's reserved ones, and mcpgen's own
/// (prefix `mcpgen/`, outside the prefixes the specification reserves).
pub mod meta {
    /// The request's protocol revision (required on modern requests).
    pub const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
    /// The client's `Implementation` (recommended on modern requests).
    pub const CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
    /// The client's capabilities for this request (required on modern requests).
    pub const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
    /// The minimum log level for this request (modern; absent means no logs).
    pub const LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
    /// The server's `Implementation`, in every modern result's `_meta`.
    pub const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
    /// Correlates a notification with its `subscriptions/listen` request.
    pub const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";
    /// Opts a request into progress notifications.
    pub const PROGRESS_TOKEN: &str = "progressToken";
    /// mcpgen's own: in the `_meta` of a tool error refusing a call over
    /// its rate limit, the wait before a retry can succeed, in whole
    /// milliseconds (rounded up, at least 1). Read by
    /// `ClientError::retry_after`.
    pub const RETRY_AFTER_MS: &str = "mcpgen/retryAfterMs";
}

/// The tools of mcpgen's search tool surface (FastMCP's names), shared by
/// the server that serves them and the client that calls them.
pub mod search_tools {
    /// Finds the tools that fit a query.
    pub const SEARCH_TOOLS: &str = "search_tools";
    /// Runs a tool named in its arguments.
    pub const CALL_TOOL: &str = "call_tool";
}

/// Error codes of the stateless era (JSON-RPC's own codes are in
/// the `jsonrpc` module).
pub mod codes {
    /// HTTP headers do not match the body, or a required header is missing.
    pub const HEADER_MISMATCH: i64 = -32020;
    /// The request needs a client capability the client did not declare.
    pub const MISSING_CLIENT_CAPABILITY: i64 = -32021;
    /// The request's protocol version is not supported.
    pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;

    /// Whether `code` lies in -32099..=-32020, the range the specification
    /// keeps for its own errors from 2026-07-28 on: an answer with such a
    /// code comes from a modern server (a legacy one never sends them).
    pub fn is_stateless(code: i64) -> bool {
        (-32099..=-32020).contains(&code)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_ordered_and_complete() {
        let names: Vec<&str> = REVISIONS.iter().map(|r| r.name).collect();
        let mut sorted = names.clone();
        sorted.sort_unstable();
        assert_eq!(names, sorted);
        assert_eq!(names.last(), Some(&LATEST));
        assert_eq!(names_of(Era::Stateful).last(), Some(LATEST_STATEFUL));
        assert_eq!(names_of(Era::Stateless).collect::<Vec<_>>(), ["2026-07-28"]);
    }

    #[test]
    fn unknown_revisions_are_placed_by_date() {
        assert_eq!(era("2027-01-01"), Era::Stateless);
        assert_eq!(era("2024-01-01"), Era::Stateful);
        assert_eq!(nearest("2027-01-01").name, LATEST);
        assert_eq!(nearest("2025-07-01").name, "2025-06-18");
        assert_eq!(nearest("1900-01-01").name, "2024-11-05");
    }

    #[test]
    fn modern_error_codes_are_the_specifications_range() {
        for code in [
            codes::HEADER_MISMATCH,
            codes::MISSING_CLIENT_CAPABILITY,
            codes::UNSUPPORTED_PROTOCOL_VERSION,
            -32099,
        ] {
            assert!(codes::is_stateless(code), "{code}");
        }
        for code in [-32000, -32002, -32019, -32100, -32601, -32602, 0] {
            assert!(!codes::is_stateless(code), "{code}");
        }
    }

    #[test]
    fn only_2025_03_26_has_batches() {
        let with: Vec<&str> = REVISIONS
            .iter()
            .filter(|r| r.batches)
            .map(|r| r.name)
            .collect();
        assert_eq!(with, ["2025-03-26"]);
    }
}
