//! `notes-server`: an mcpgen example whose manifest declares two tools
//! (`count_notes`, needing the OAuth scope `notes:read`, and `add_note`,
//! needing `notes:write`), two static resources, a resource template
//! (`notes://{id}`, `notes:read`) and two prompts with completion. The
//! generated `server`, `client`, `tools` and `protocol` modules are
//! included here; [`Notes`] implements the generated `Handler`.

#![deny(warnings)]

mcpgen_runtime::include_generated!();

use std::sync::{Arc, Mutex};

use mcpgen_runtime::{Completion, HandlerError, RequestContext, ToolError};

use protocol::{
    BlobResourceContents, ContentBlock, EmbeddedResource, PromptMessage, ReadResourceResult, Role,
    TextContent, TextResourceContents,
};
use tools::{
    AddNoteInput, AddNoteOutput, CountNotesInput, CountNotesOutput, DailyReviewArgs, NoteParams,
    StaticResource, SummarizeNoteArgs,
};

/// The notes, by id.
pub const NOTES: &[(&str, &str)] = &[
    ("1", "Buy milk and bread."),
    ("12", "Call the plumber about the kitchen tap."),
    ("2", "Read chapter 3 of the Rust book."),
];

/// A 1×1 PNG, base64.
pub const LOGO: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

/// The most notes `add_note` keeps (then it refuses more).
pub const MAX_ADDED: usize = 1000;

/// The notes server: the fixed [`NOTES`] and, in memory, those added
/// since it started.
#[derive(Debug, Clone, Default)]
pub struct Notes {
    added: Arc<Mutex<Vec<Added>>>,
}

/// A note added with `add_note`.
#[derive(Debug, Clone)]
struct Added {
    id: String,
    author: String,
    text: String,
}

impl Notes {
    fn added(&self) -> std::sync::MutexGuard<'_, Vec<Added>> {
        self.added.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The text of note `id`, fixed or added.
    fn find(&self, id: &str) -> Option<String> {
        note(id).map(str::to_owned).or_else(|| {
            self.added()
                .iter()
                .find(|n| n.id == id)
                .map(|n| n.text.clone())
        })
    }
}

/// The notes server as `main` serves it: the generated builder with the
/// manifest's scopes, plus the scope hierarchy of this server
/// (`notes:admin` ⊇ `notes:write` ⊇ `notes:read`: a token with a broader
/// scope may do what the narrower ones allow; see docs/authorization.md).
pub fn builder(notes: Notes) -> mcpgen_runtime::server::ServerBuilder {
    server::builder(notes)
        .scope_implies("notes:admin", ["notes:write"])
        .scope_implies("notes:write", ["notes:read"])
}

fn text(uri: &str, body: &str) -> TextResourceContents {
    let mut contents = TextResourceContents::new(body, uri);
    contents.mime_type = Some("text/plain".into());
    contents
}

fn note(id: &str) -> Option<&'static str> {
    NOTES.iter().find(|(i, _)| *i == id).map(|(_, body)| *body)
}

impl server::Handler for Notes {
    async fn count_notes(
        &self,
        _input: CountNotesInput,
        _ctx: RequestContext,
    ) -> Result<CountNotesOutput, ToolError> {
        Ok(CountNotesOutput {
            count: (NOTES.len() + self.added().len()) as i128,
        })
    }

    async fn add_note(
        &self,
        input: AddNoteInput,
        ctx: RequestContext,
    ) -> Result<AddNoteOutput, ToolError> {
        // The author is whoever the bearer gate verified (over stdio, or
        // over HTTP without authorization, nobody in particular).
        let author = ctx
            .principal()
            .map_or_else(|| "anonymous".to_owned(), |p| p.subject.clone());
        let mut added = self.added();
        if added.len() >= MAX_ADDED {
            return Err(ToolError::new(format!(
                "the notebook is full ({MAX_ADDED} notes added)"
            )));
        }
        let id = (NOTES.len() + added.len() + 1).to_string();
        added.push(Added {
            id: id.clone(),
            author: author.clone(),
            text: input.text.to_string(),
        });
        Ok(AddNoteOutput { id, author })
    }

    async fn read_resource(
        &self,
        resource: StaticResource,
        _ctx: RequestContext,
    ) -> Result<ReadResourceResult, HandlerError> {
        Ok(match resource {
            StaticResource::Index => {
                let mut lines: Vec<String> = NOTES
                    .iter()
                    .map(|(id, body)| format!("notes://{id} {body}"))
                    .collect();
                lines.extend(
                    self.added()
                        .iter()
                        .map(|n| format!("notes://{} {} ({})", n.id, n.text, n.author)),
                );
                ReadResourceResult::new(vec![text(resource.uri(), &lines.join("\n")).into()])
            }
            StaticResource::Logo => {
                let mut contents = BlobResourceContents::new(LOGO, resource.uri());
                contents.mime_type = Some("image/png".into());
                ReadResourceResult::new(vec![contents.into()])
            }
        })
    }

    async fn read_note(
        &self,
        uri: String,
        params: NoteParams,
        _ctx: RequestContext,
    ) -> Result<ReadResourceResult, HandlerError> {
        let body = self
            .find(&params.id)
            .ok_or_else(|| HandlerError::not_found(uri.clone()))?;
        Ok(ReadResourceResult::new(vec![text(&uri, &body).into()]))
    }

    async fn prompt_summarize_note(
        &self,
        args: SummarizeNoteArgs,
        _ctx: RequestContext,
    ) -> Result<Vec<PromptMessage>, HandlerError> {
        let body = note(&args.id)
            .ok_or_else(|| HandlerError::invalid_params(format!("no note {:?}", args.id)))?;
        let style = args.style.as_deref().unwrap_or("prose");
        let embedded = EmbeddedResource::new(text(&format!("notes://{}", args.id), body));
        Ok(vec![
            PromptMessage::new(ContentBlock::Resource(embedded), Role::User),
            PromptMessage::new(
                ContentBlock::Text(TextContent::new(format!(
                    "Summarize the note above as {style}."
                ))),
                Role::User,
            ),
        ])
    }

    async fn prompt_daily_review(
        &self,
        _args: DailyReviewArgs,
        _ctx: RequestContext,
    ) -> Result<Vec<PromptMessage>, HandlerError> {
        let text = format!(
            "Review my {} notes and suggest what to do first.",
            NOTES.len()
        );
        Ok(vec![PromptMessage::new(
            ContentBlock::Text(TextContent::new(text)),
            Role::User,
        )])
    }

    async fn complete_note_id(
        &self,
        value: String,
        _context: serde_json::Map<String, serde_json::Value>,
        _ctx: RequestContext,
    ) -> Result<Completion, HandlerError> {
        Ok(Completion::matching(
            NOTES.iter().map(|(id, _)| *id),
            &value,
        ))
    }

    async fn complete_summarize_note_id(
        &self,
        value: String,
        _context: serde_json::Map<String, serde_json::Value>,
        _ctx: RequestContext,
    ) -> Result<Completion, HandlerError> {
        Ok(Completion::matching(
            NOTES.iter().map(|(id, _)| *id),
            &value,
        ))
    }

    async fn complete_summarize_note_style(
        &self,
        value: String,
        _context: serde_json::Map<String, serde_json::Value>,
        _ctx: RequestContext,
    ) -> Result<Completion, HandlerError> {
        Ok(Completion::matching(["bullet", "prose"], &value))
    }
}
