//! The `x-mcpgen.http` binding of a tool: how an MCP tool call becomes one
//! request to an HTTP API. The OpenAPI importer (`mcpgen import openapi`)
//! writes it into each imported tool of a manifest; the generator checks
//! it (by deserialising it into these types) and compiles it into the
//! bindings as JSON text; the runtime's upstream client
//! (`upstream::Upstream`, feature `upstream`) reads it once at start and
//! builds every request from it and the call's arguments.
//!
//! Nothing here knows OpenAPI: the importer has already resolved
//! references, chosen one server list, one request body media type and the
//! success response, and named each argument. These are plain data types
//! (no feature needed), so the generator checks a manifest with the same
//! definitions the runtime reads.
//!
//! Shape (JSON, camelCase):
//!
//! ```json
//! {
//!   "operationId": "pets.get",
//!   "method": "GET",
//!   "path": "/pets/{petId}",
//!   "servers": [{ "url": "https://{region}.example.com/v1",
//!                 "variables": { "region": { "default": "eu" } } }],
//!   "parameters": [
//!     { "argument": "petId", "name": "petId", "in": "path",
//!       "style": "simple", "explode": false, "required": true },
//!     { "argument": "fields", "name": "fields", "in": "query",
//!       "style": "form", "explode": true }
//!   ],
//!   "body": { "argument": "body", "mediaType": "application/json",
//!             "required": true, "encoding": {} },
//!   "output": { "wrap": "result" },
//!   "security": [[{ "scheme": "api_key", "type": "apiKey",
//!                   "in": "header", "name": "X-Api-Key",
//!                   "env": "MCP_UPSTREAM_AUTH_API_KEY" }], []]
//! }
//! ```

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// How one tool calls one HTTP operation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HttpBinding {
    /// The operation's id in the API description (its `operationId`, or
    /// `METHOD /path` where it had none), for messages and logs.
    pub operation_id: String,
    /// The HTTP method, upper case (`GET`, `POST`, …).
    pub method: String,
    /// The path template relative to the server URL, with `{name}`
    /// placeholders for path parameters (`/pets/{petId}`).
    pub path: String,
    /// Candidate server URLs, the first one used unless the environment
    /// overrides it (`MCP_UPSTREAM_URL`). May be empty: then
    /// `MCP_UPSTREAM_URL` is required.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub servers: Vec<ServerUrl>,
    /// The parameters, in the order they are sent.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parameters: Vec<Parameter>,
    /// The request body, if the operation takes one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<Body>,
    /// Present exactly when the tool has an `outputSchema`: how a
    /// successful JSON answer becomes `structuredContent`. Absent: every
    /// answer becomes content blocks (JSON and text as a text block,
    /// images and audio as such, anything else as an embedded resource
    /// with a base64 blob).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<Output>,
    /// Security requirements: alternatives, any one of which suffices;
    /// each is a list of schemes that must all be applied. Empty: no
    /// credentials. An empty alternative (`[]`) means the operation may be
    /// called anonymously.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub security: Vec<Vec<SecurityScheme>>,
}

/// A server URL, possibly with `{variable}` placeholders.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ServerUrl {
    /// The URL template (absolute, or relative to nothing: a relative URL
    /// needs `MCP_UPSTREAM_URL`).
    pub url: String,
    /// The default of each placeholder.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub variables: BTreeMap<String, ServerVariable>,
}

/// A server URL variable.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ServerVariable {
    /// The value used.
    pub default: String,
}

/// Where a parameter goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Location {
    /// A `{name}` segment of the path.
    Path,
    /// The query string.
    Query,
    /// A request header.
    Header,
    /// The `Cookie` header.
    Cookie,
}

/// How a value is written (OpenAPI 3 `style`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Style {
    /// RFC 6570 `{name}`: comma separated (path, header).
    Simple,
    /// `{.name}` (path).
    Label,
    /// `{;name}` (path).
    Matrix,
    /// `{?name}` / `name=v` (query, cookie).
    Form,
    /// Array members joined by `%20` (query).
    SpaceDelimited,
    /// Array members joined by `|` (query).
    PipeDelimited,
    /// `name[key]=value` for objects (query).
    DeepObject,
}

/// One parameter of the operation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Parameter {
    /// The property of the tool's arguments that holds its value.
    pub argument: String,
    /// Its name on the wire.
    pub name: String,
    /// Where it goes.
    #[serde(rename = "in")]
    pub location: Location,
    /// How it is written.
    pub style: Style,
    /// Whether arrays and objects are exploded.
    pub explode: bool,
    /// Whether reserved characters are sent as they are (query only).
    #[serde(default, skip_serializing_if = "is_false")]
    pub allow_reserved: bool,
    /// Whether the operation requires it.
    #[serde(default, skip_serializing_if = "is_false")]
    pub required: bool,
    /// Set when the parameter is declared with `content` instead of
    /// `schema`: its value is serialised in this media type
    /// (`application/json`) and then written as one string.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_type: Option<String>,
}

/// The request body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Body {
    /// The property of the tool's arguments that holds it.
    pub argument: String,
    /// The media type sent as `Content-Type`. `application/json` and
    /// `+json` types: the value as JSON; `application/x-www-form-urlencoded`:
    /// the object's members as a form; `multipart/form-data`: one part per
    /// member; anything else: the value is a base64 string of the raw
    /// bytes (`text/*`: the string itself).
    pub media_type: String,
    /// Whether the operation requires a body.
    #[serde(default, skip_serializing_if = "is_false")]
    pub required: bool,
    /// Per-member encoding of form and multipart bodies.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub encoding: BTreeMap<String, Encoding>,
}

/// How one member of a form or multipart body is written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Encoding {
    /// A multipart part's `Content-Type`; `application/octet-stream` (and
    /// any non-text, non-JSON type): the member is a base64 string of the
    /// part's bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_type: Option<String>,
    /// Form member style (`form`, `spaceDelimited`, `pipeDelimited`,
    /// `deepObject`); default `form`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub style: Option<Style>,
    /// Default: true for `form`, false otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub explode: Option<bool>,
    /// Reserved characters sent as they are.
    #[serde(default, skip_serializing_if = "is_false")]
    pub allow_reserved: bool,
}

/// How a successful JSON answer becomes `structuredContent`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Output {
    /// Set when the answer's schema is not an object: the answer becomes
    /// the member of this name of `structuredContent` (MCP requires an
    /// object). Unset: the answer is `structuredContent` itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wrap: Option<String>,
}

/// One security scheme as an operation uses it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SecurityScheme {
    /// The scheme's name in the API description (`api_key`).
    pub scheme: String,
    /// What it is.
    #[serde(rename = "type")]
    pub kind: SchemeKind,
    /// apiKey: where the key goes.
    #[serde(rename = "in", default, skip_serializing_if = "Option::is_none")]
    pub location: Option<Location>,
    /// apiKey: the header, query parameter or cookie name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// oauth2 with the client-credentials flow: the token endpoint.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_url: Option<String>,
    /// oauth2: the scopes this operation needs.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scopes: Vec<String>,
    /// The environment variable that holds the credential:
    /// `MCP_UPSTREAM_AUTH_` and the scheme's name in SCREAMING_SNAKE_CASE.
    /// For oauth2 client credentials also `<env>_CLIENT_ID` and
    /// `<env>_CLIENT_SECRET`.
    pub env: String,
}

/// The kinds of security scheme.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum SchemeKind {
    /// A key in a header, query parameter or cookie.
    ApiKey,
    /// HTTP `Authorization: Basic` (`user:password` in the variable).
    Basic,
    /// HTTP `Authorization: Bearer` (the token in the variable).
    Bearer,
    /// OAuth 2: an access token the user obtained (sent as a bearer
    /// token), or client credentials when `tokenUrl` is set.
    Oauth2,
    /// Mutual TLS or OpenID Connect discovery: nothing this runtime
    /// applies per request; such an alternative is skipped.
    Unsupported,
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl HttpBinding {
    /// Parses a binding from its JSON text, as the generated bindings
    /// carry it.
    pub fn from_json(text: &str) -> Result<Self, serde_json::Error> {
        serde_json::from_str(text)
    }
}
