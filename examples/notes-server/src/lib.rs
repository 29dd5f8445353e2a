//! `notes-server`: an mcpgen example whose manifest declares a tool, two
//! static resources, a resource template (`notes://{id}`) and two prompts
//! with completion. The generated `server`, `client`, `tools` and
//! `protocol` modules are included here; [`Notes`] implements the
//! generated `Handler`.

#![deny(warnings)]

mcpgen_runtime::include_generated!();

use mcpgen_runtime::{Completion, HandlerError, RequestContext, ToolError};

use protocol::{
    BlobResourceContents, ContentBlock, EmbeddedResource, PromptMessage, ReadResourceResult, Role, TextContent,
    TextResourceContents,
};
use tools::{CountNotesInput, CountNotesOutput, DailyReviewArgs, NoteParams, StaticResource, SummarizeNoteArgs};

/// The notes, by id.
pub const NOTES: &[(&str, &str)] = &[
    ("1", "Buy milk and bread."),
    ("12", "Call the plumber about the kitchen tap."),
    ("2", "Read chapter 3 of the Rust book."),
];

/// A 1×1 PNG, base64.
pub const LOGO: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

/// The notes server.
#[derive(Debug, Clone, Default)]
pub struct Notes;

fn text(uri: &str, body: &str) -> TextResourceContents {
    let mut contents = TextResourceContents::new(body, uri);
    contents.mime_type = Some("text/plain".into());
    contents
}

fn note(id: &str) -> Option<&'static str> {
    NOTES.iter().find(|(i, _)| *i == id).map(|(_, body)| *body)
}

impl server::Handler for Notes {
    async fn count_notes(&self, _input: CountNotesInput, _ctx: RequestContext) -> Result<CountNotesOutput, ToolError> {
        Ok(CountNotesOutput { count: NOTES.len() as i128 })
    }

    async fn read_resource(&self, resource: StaticResource, _ctx: RequestContext) -> Result<ReadResourceResult, HandlerError> {
        Ok(match resource {
            StaticResource::Index => {
                let lines: Vec<String> = NOTES.iter().map(|(id, body)| format!("notes://{id} {body}")).collect();
                ReadResourceResult::new(vec![text(resource.uri(), &lines.join("\n")).into()])
            }
            StaticResource::Logo => {
                let mut contents = BlobResourceContents::new(LOGO, resource.uri());
                contents.mime_type = Some("image/png".into());
                ReadResourceResult::new(vec![contents.into()])
            }
        })
    }

    async fn read_note(&self, uri: String, params: NoteParams, _ctx: RequestContext) -> Result<ReadResourceResult, HandlerError> {
        let body = note(&params.id).ok_or_else(|| HandlerError::not_found(uri.clone()))?;
        Ok(ReadResourceResult::new(vec![text(&uri, body).into()]))
    }

    async fn prompt_summarize_note(&self, args: SummarizeNoteArgs, _ctx: RequestContext) -> Result<Vec<PromptMessage>, HandlerError> {
        let body = note(&args.id).ok_or_else(|| HandlerError::invalid_params(format!("no note {:?}", args.id)))?;
        let style = args.style.as_deref().unwrap_or("prose");
        let embedded = EmbeddedResource::new(text(&format!("notes://{}", args.id), body));
        Ok(vec![
            PromptMessage::new(ContentBlock::Resource(embedded), Role::User),
            PromptMessage::new(ContentBlock::Text(TextContent::new(format!("Summarize the note above as {style}."))), Role::User),
        ])
    }

    async fn prompt_daily_review(&self, _args: DailyReviewArgs, _ctx: RequestContext) -> Result<Vec<PromptMessage>, HandlerError> {
        let text = format!("Review my {} notes and suggest what to do first.", NOTES.len());
        Ok(vec![PromptMessage::new(ContentBlock::Text(TextContent::new(text)), Role::User)])
    }

    async fn complete_note_id(
        &self,
        value: String,
        _context: serde_json::Map<String, serde_json::Value>,
        _ctx: RequestContext,
    ) -> Result<Completion, HandlerError> {
        Ok(Completion::matching(NOTES.iter().map(|(id, _)| *id), &value))
    }

    async fn complete_summarize_note_id(
        &self,
        value: String,
        _context: serde_json::Map<String, serde_json::Value>,
        _ctx: RequestContext,
    ) -> Result<Completion, HandlerError> {
        Ok(Completion::matching(NOTES.iter().map(|(id, _)| *id), &value))
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
