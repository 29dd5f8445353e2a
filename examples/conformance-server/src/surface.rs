//! What the suite's resource, prompt and completion scenarios expect
//! (`resources-read-*`, `resources-templates-read`, `prompts-get-*`,
//! `completion-complete`): the contents and messages the fixture
//! handlers in `fixtures.rs` return.

use mcpgen_runtime::Completion;

use crate::protocol::{
    BlobResourceContents, ContentBlock, EmbeddedResource, ImageContent, PromptMessage,
    ReadResourceResult, Role, TextContent, TextResourceContents,
};
use crate::tools::StaticResource;

/// A 1×1 PNG.
pub const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

fn text_contents(uri: &str, mime: &str, text: &str) -> ReadResourceResult {
    let mut contents = TextResourceContents::new(text, uri);
    contents.mime_type = Some(mime.into());
    ReadResourceResult::new(vec![contents.into()])
}

/// The contents of a static resource.
pub fn read_static(resource: StaticResource) -> ReadResourceResult {
    match resource {
        StaticResource::StaticText => text_contents(
            resource.uri(),
            "text/plain",
            "This is the content of the static text resource.",
        ),
        StaticResource::StaticBinary => {
            let mut contents = BlobResourceContents::new(PNG, resource.uri());
            contents.mime_type = Some("image/png".into());
            ReadResourceResult::new(vec![contents.into()])
        }
        StaticResource::WatchedResource => text_contents(
            resource.uri(),
            "text/plain",
            "The watched resource's content.",
        ),
    }
}

/// `test://template/{id}/data` for `id`.
pub fn template_data(uri: &str, id: &str) -> ReadResourceResult {
    let data =
        serde_json::json!({ "id": id, "templateTest": true, "data": format!("Data for ID: {id}") });
    text_contents(uri, "application/json", &data.to_string())
}

fn user(content: ContentBlock) -> PromptMessage {
    PromptMessage::new(content, Role::User)
}

fn text(text: &str) -> ContentBlock {
    ContentBlock::Text(TextContent::new(text))
}

/// `test_simple_prompt`.
pub fn simple_prompt() -> Vec<PromptMessage> {
    vec![user(text("This is a simple prompt for testing."))]
}

/// `test_prompt_with_arguments`.
pub fn prompt_with_arguments(arg1: &str, arg2: &str) -> Vec<PromptMessage> {
    vec![user(text(&format!(
        "Prompt with arguments: arg1='{arg1}', arg2='{arg2}'"
    )))]
}

/// `test_prompt_with_embedded_resource`.
pub fn prompt_with_embedded_resource(uri: &str) -> Vec<PromptMessage> {
    let mut contents = TextResourceContents::new("Embedded resource content for testing.", uri);
    contents.mime_type = Some("text/plain".into());
    vec![
        user(ContentBlock::Resource(EmbeddedResource::new(contents))),
        user(text("Please process the embedded resource above.")),
    ]
}

/// `test_prompt_with_image`.
pub fn prompt_with_image() -> Vec<PromptMessage> {
    vec![
        user(ContentBlock::Image(ImageContent::new(PNG, "image/png"))),
        user(text("Please analyze the image above.")),
    ]
}

/// Suggestions for the prompt arguments: words starting with what was typed.
pub fn complete_word(value: &str) -> Completion {
    Completion::matching(
        ["paris", "park", "party", "test", "testValue1", "testValue2"],
        value,
    )
}

/// Suggestions for the template's `id`.
pub fn complete_id(value: &str) -> Completion {
    Completion::matching(["1", "123", "42"], value)
}
