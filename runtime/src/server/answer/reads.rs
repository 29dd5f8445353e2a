//! `resources/read`, `prompts/get` and `completion/complete`, in both
//! eras: each request is resolved against the declared lists (see
//! [`crate::server::surface`]) and answered by the generated [`Surface`]
//! without blocking the session: the work runs in the request's own
//! pending future, cancellable by `notifications/cancelled`.
//!
//! An unknown resource is `-32602` with `data.uri` and never an empty
//! `contents` (SEP-2164); an unknown prompt, a missing required prompt
//! argument or an unknown completion reference is `-32602`.
//!
//! A read or prompt handler may ask the client for input (`ctx.elicit`,
//! ...): live in the stateful era, as an input-required result in the
//! stateless era (see [`crate::server::handler::mrtr`]); a completion handler only in the
//! stateful era.

use std::future::Future;
use std::sync::Arc;
use std::task::Poll;

use serde_json::{Map, Value};

use crate::jsonrpc::{self, RpcError};
use crate::server::handler::cancel::CancellationToken;
use crate::server::handler::context::{ContextParts, RequestContext, Sink};
use crate::server::handler::mrtr::Retry;
use crate::server::handler::peer::Channel;
use crate::server::surface::{
    CompletionRef, CompletionRequest, HandlerError, ResourceTarget, Surface,
};
use crate::uri_template::UriTemplate;

use crate::server::answer::methods::add_cache_hint;
use crate::server::answer::methods::Core;
use crate::server::request::reply::Reply;
use crate::server::request::route::Read;
use crate::server::request::scope::Scope;
use crate::server::session::Session;

/// The declared resource templates, parsed once when the server is built.
pub(crate) fn compile_templates(templates: &[Value]) -> Result<Vec<UriTemplate>, String> {
    templates
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let text = t
                .get("uriTemplate")
                .and_then(Value::as_str)
                .ok_or(format!("resource template {i} has no \"uriTemplate\""))?;
            UriTemplate::parse(text).map_err(|e| format!("resource template {i} ({text:?}): {e}"))
        })
        .collect()
}

/// One resolved request, ready to run.
enum Work {
    Read(ResourceTarget, String),
    Prompt(usize, Map<String, Value>),
    Complete(CompletionRequest),
}

fn string_member(params: Option<&Value>, name: &str, method: &str) -> Result<String, RpcError> {
    match params.and_then(|p| p.get(name)) {
        Some(Value::String(s)) => Ok(s.clone()),
        Some(other) => Err(RpcError::invalid_params(format!(
            "{method}: \"{name}\" must be a string, got {}",
            jsonrpc::kind(other)
        ))),
        None => Err(RpcError::invalid_params(format!(
            "{method} needs a string \"{name}\""
        ))),
    }
}

/// String-valued arguments object (`arguments`, `context.arguments`).
fn string_map(value: Option<&Value>, what: &str) -> Result<Map<String, Value>, RpcError> {
    match value {
        None | Some(Value::Null) => Ok(Map::new()),
        Some(Value::Object(map)) => {
            if let Some((key, v)) = map.iter().find(|(_, v)| !v.is_string()) {
                return Err(RpcError::invalid_params(format!(
                    "{what} \"{key}\" must be a string, got {}",
                    jsonrpc::kind(v)
                )));
            }
            Ok(map.clone())
        }
        Some(other) => Err(RpcError::invalid_params(format!(
            "{what} must be an object, got {}",
            jsonrpc::kind(other)
        ))),
    }
}

/// The position of the declared prompt `name`, if the server has it.
pub(crate) fn prompt_index(core: &Core, name: &str) -> Option<usize> {
    core.config
        .prompts
        .iter()
        .position(|p| p.get("name").and_then(Value::as_str) == Some(name))
}

/// Checks a request's params and decides what to run.
fn resolve(core: &Core, read: Read, params: Option<&Value>) -> Result<Work, RpcError> {
    let method = read.method().name();
    match read {
        Read::Resource => {
            let uri = string_member(params, "uri", method)?;
            match core.resolve_uri(&uri) {
                Some(target) => Ok(Work::Read(target, uri)),
                None => Err(HandlerError::not_found(uri).into_rpc()),
            }
        }
        Read::Prompt => {
            let name = string_member(params, "name", method)?;
            let index = prompt_index(core, &name)
                .ok_or_else(|| RpcError::invalid_params(format!("Unknown prompt: {name}")))?;
            let arguments = string_map(params.and_then(|p| p.get("arguments")), "prompt argument")?;
            let declared = core.config.prompts[index]
                .get("arguments")
                .and_then(Value::as_array);
            for arg in declared.into_iter().flatten() {
                let required = arg
                    .get("required")
                    .and_then(Value::as_bool)
                    .unwrap_or(false);
                let arg_name = arg.get("name").and_then(Value::as_str).unwrap_or_default();
                if required && !arguments.contains_key(arg_name) {
                    return Err(RpcError::invalid_params(format!(
                        "prompt {name} needs the argument \"{arg_name}\""
                    ))
                    .with_data(serde_json::json!({ "prompt": name, "missing": arg_name })));
                }
            }
            Ok(Work::Prompt(index, arguments))
        }
        Read::Complete => {
            let reference = params.and_then(|p| p.get("ref")).and_then(Value::as_object);
            let Some(reference) = reference else {
                return Err(RpcError::invalid_params(
                    "completion/complete needs a \"ref\" object",
                ));
            };
            let target = match reference.get("type").and_then(Value::as_str) {
                Some("ref/prompt") => {
                    let name = reference
                        .get("name")
                        .and_then(Value::as_str)
                        .unwrap_or_default();
                    CompletionRef::Prompt(prompt_index(core, name).ok_or_else(|| {
                        RpcError::invalid_params(format!("Unknown prompt: {name}"))
                    })?)
                }
                Some("ref/resource") => {
                    let uri = reference
                        .get("uri")
                        .and_then(Value::as_str)
                        .unwrap_or_default();
                    let index = core.templates.iter().position(|t| t.as_str() == uri);
                    CompletionRef::Template(index.ok_or_else(|| {
                        RpcError::invalid_params(format!("Unknown resource template: {uri}"))
                    })?)
                }
                _ => {
                    return Err(RpcError::invalid_params(
                        "\"ref.type\" must be \"ref/prompt\" or \"ref/resource\"",
                    ))
                }
            };
            let argument = params.and_then(|p| p.get("argument"));
            let argument_name = string_member(argument, "name", "completion/complete argument")?;
            let value = string_member(argument, "value", "completion/complete argument")?;
            let context = params
                .and_then(|p| p.get("context"))
                .and_then(|c| c.get("arguments"));
            let context = string_map(context, "context argument")?;
            Ok(Work::Complete(CompletionRequest {
                target,
                argument: argument_name,
                value,
                context,
            }))
        }
    }
}

/// Answers a `resources/read`, `prompts/get` or `completion/complete`:
/// an error now, or the future of the reply.
pub(in crate::server) fn request(
    core: &Arc<Core>,
    session: &Session,
    id: Value,
    read: Read,
    params: Option<Value>,
    scope: Scope,
    sink: &Sink,
) -> Result<impl std::future::Future<Output = Option<Reply>> + Send + 'static, Reply> {
    let method = read.method().name();
    let work = resolve(core, read, params.as_ref()).map_err(|e| Reply::error(&id, &e))?;
    let Some(surface) = core.surface.clone() else {
        // Declared lists without an implementation: nothing can be read.
        let error = match &work {
            Work::Read(_, uri) => HandlerError::not_found(uri.clone()).into_rpc(),
            _ => RpcError::internal(format!("{method} has no handler in this server")),
        };
        return Err(Reply::error(&id, &error));
    };
    // Reads and prompts may ask the client for input (input-required
    // results in the stateless era); completions may not.
    let channel = match &work {
        Work::Read(_, uri) => core.channel(
            session,
            &scope,
            method,
            uri,
            &Value::Null,
            Retry::of(params.as_ref()),
        ),
        Work::Prompt(index, arguments) => {
            let name = core.config.prompts[*index]
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let arguments = Value::Object(arguments.clone());
            core.channel(
                session,
                &scope,
                method,
                name,
                &arguments,
                Retry::of(params.as_ref()),
            )
        }
        Work::Complete(_) if scope.modern => Ok(Channel::None),
        Work::Complete(_) => {
            core.channel(session, &scope, method, "", &Value::Null, Retry::default())
        }
    }
    .map_err(|e| Reply::error(&id, &e))?;
    let rounds = match &channel {
        Channel::Rounds(rounds) => Some(Arc::clone(rounds)),
        _ => None,
    };
    let inflight = session.register(crate::server::session::IdKey::of(&id));
    let token = inflight
        .as_ref()
        .map_or_else(CancellationToken::new, |f| f.token.clone());
    let ctx = RequestContext::new(ContextParts {
        request_id: id.clone(),
        tool: Arc::from(method),
        cancel: token.clone(),
        progress_token: None,
        client: scope.client.clone(),
        sink: sink.clone(),
        meta: scope.meta.clone(),
        revision: Arc::clone(&scope.version),
        extras: Arc::clone(&scope.extras),
        log_level: None,
    })
    .with_channel(channel)
    .with_notifier(crate::server::handler::notifier::Notifier::new(Arc::clone(
        &core.listeners,
    )));
    let core = Arc::clone(core);
    let method = method.to_owned();
    Ok(async move {
        let run = crate::server::tools::catch::CatchUnwind::new(run(&*surface, work, &core, ctx));
        let mut run = std::pin::pin!(run);
        let mut cancelled = std::pin::pin!(token.cancelled());
        // Cancellation first; then the handler; then whether it waits
        // for input the client has yet to give.
        let outcome = std::future::poll_fn(|cx| {
            if cancelled.as_mut().poll(cx).is_ready() {
                return Poll::Ready(None);
            }
            if let Poll::Ready(outcome) = run.as_mut().poll(cx) {
                return Poll::Ready(Some(Ok(outcome)));
            }
            match &rounds {
                Some(rounds) if rounds.needs_input() => {
                    Poll::Ready(Some(Err(rounds.input_required(&core.sealer))))
                }
                _ => Poll::Pending,
            }
        })
        .await?;
        drop(inflight);
        let outcome = match outcome {
            Ok(outcome) => outcome,
            Err(input_required) => return Some(core.reply(&id, &scope, input_required)),
        };
        Some(match outcome {
            Ok(Ok(result)) => core.reply(&id, &scope, result),
            Ok(Err(error)) => Reply::error(&id, &error.into_rpc()),
            Err(panic) => {
                tracing::error!(method = %method, panic = %panic, "handler panicked");
                Reply::error(
                    &id,
                    &RpcError::internal(format!("{method} failed unexpectedly")),
                )
            }
        })
    })
}

/// Runs one resolved request and shapes its result.
async fn run(
    surface: &dyn Surface,
    work: Work,
    core: &Core,
    ctx: RequestContext,
) -> Result<Value, HandlerError> {
    match work {
        Work::Read(target, uri) => {
            let modern = crate::revision::era(ctx.revision()) == crate::revision::Era::Stateless;
            let mut result = surface.read(target, uri.clone(), ctx).await?;
            let empty = result
                .get("contents")
                .and_then(Value::as_array)
                .is_none_or(Vec::is_empty);
            if empty {
                // SEP-2164: no resource is answered with an error, never
                // with empty contents.
                return Err(HandlerError::not_found(uri));
            }
            if let (true, Value::Object(members)) = (modern, &mut result) {
                // A stateless-era read result is cacheable: it says how long.
                if !members.contains_key("ttlMs") || !members.contains_key("cacheScope") {
                    members.remove("ttlMs");
                    members.remove("cacheScope");
                    add_cache_hint(members, core.config.read_cache);
                }
            }
            Ok(result)
        }
        Work::Prompt(index, arguments) => {
            let messages = surface.prompt(index, arguments, ctx).await?;
            let mut result = Map::new();
            if let Some(description) = core.config.prompts[index].get("description") {
                result.insert("description".into(), description.clone());
            }
            result.insert("messages".into(), messages);
            Ok(Value::Object(result))
        }
        Work::Complete(request) => {
            let mut completion = surface.complete(request, ctx).await?;
            if let Some(Value::Array(values)) = completion.get_mut("values") {
                // The protocol allows at most 100 values per response.
                if values.len() > 100 {
                    values.truncate(100);
                    completion["hasMore"] = Value::Bool(true);
                }
            }
            let mut result = Map::new();
            result.insert("completion".into(), completion);
            Ok(Value::Object(result))
        }
    }
}
