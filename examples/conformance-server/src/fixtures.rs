//! The handlers: what each fixture of the conformance suite must answer.

use std::time::Duration;

use mcpgen_runtime::{LogLevel, RequestContext, ToolError};
use serde_json::json;

use crate::protocol::{
    AudioContent, ContentBlock, EmbeddedResource, ImageContent, TextContent, TextResourceContents,
};
use crate::tools::*;

/// A 1×1 PNG.
const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
/// Eight samples of 8 kHz 16-bit mono silence as a WAV file.
const WAV: &str = "UklGRjQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YRAAAAAAAAAAAAAAAAAAAAAAAAAA";

fn text(text: &str) -> ContentBlock {
    ContentBlock::Text(TextContent::new(text))
}

fn image() -> ContentBlock {
    ContentBlock::Image(ImageContent::new(PNG, "image/png"))
}

fn resource() -> ContentBlock {
    let mut contents = TextResourceContents::new("This is an embedded resource content.", "test://embedded-resource");
    contents.mime_type = Some("text/plain".into());
    ContentBlock::Resource(EmbeddedResource::new(contents))
}

/// The fixture handlers.
pub struct Fixtures;

impl crate::server::Handler for Fixtures {
    async fn test_simple_text(&self, _: TestSimpleTextInput, _: RequestContext) -> Result<Vec<ContentBlock>, ToolError> {
        Ok(vec![text("This is a simple text response for testing.")])
    }

    async fn test_image_content(&self, _: TestImageContentInput, _: RequestContext) -> Result<Vec<ContentBlock>, ToolError> {
        Ok(vec![image()])
    }

    async fn test_audio_content(&self, _: TestAudioContentInput, _: RequestContext) -> Result<Vec<ContentBlock>, ToolError> {
        Ok(vec![ContentBlock::Audio(AudioContent::new(WAV, "audio/wav"))])
    }

    async fn test_embedded_resource(
        &self,
        _: TestEmbeddedResourceInput,
        _: RequestContext,
    ) -> Result<Vec<ContentBlock>, ToolError> {
        Ok(vec![resource()])
    }

    async fn test_multiple_content_types(
        &self,
        _: TestMultipleContentTypesInput,
        _: RequestContext,
    ) -> Result<Vec<ContentBlock>, ToolError> {
        Ok(vec![text("Multiple content types test:"), image(), resource()])
    }

    async fn test_error_handling(&self, _: TestErrorHandlingInput, _: RequestContext) -> Result<Vec<ContentBlock>, ToolError> {
        Err(ToolError::new("This tool intentionally returns an error for testing"))
    }

    async fn test_tool_with_progress(
        &self,
        _: TestToolWithProgressInput,
        ctx: RequestContext,
    ) -> Result<Vec<ContentBlock>, ToolError> {
        for step in 0..=2u32 {
            ctx.progress(f64::from(step * 50), Some(100.0), Some(&format!("step {}", step + 1))).await;
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        Ok(vec![text("Progress test completed")])
    }

    async fn test_tool_with_logging(
        &self,
        _: TestToolWithLoggingInput,
        ctx: RequestContext,
    ) -> Result<Vec<ContentBlock>, ToolError> {
        for message in ["Tool execution started", "Tool processing data", "Tool execution completed"] {
            ctx.log(LogLevel::Info, json!(message), Some("conformance-server")).await;
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        Ok(vec![text("Logging test completed")])
    }

    async fn test_logging_tool(&self, _: TestLoggingToolInput, ctx: RequestContext) -> Result<Vec<ContentBlock>, ToolError> {
        for level in LogLevel::ALL {
            ctx.log(level, json!(format!("a {} message", level.as_str())), Some("conformance-server")).await;
        }
        Ok(vec![text("Logged at every level the request allowed")])
    }

    async fn test_missing_capability(
        &self,
        _: TestMissingCapabilityInput,
        ctx: RequestContext,
    ) -> Result<Vec<ContentBlock>, ToolError> {
        ctx.require_capabilities(&["sampling"])?;
        Ok(vec![text("The client declared sampling")])
    }

    async fn test_streaming_elicitation(
        &self,
        _: TestStreamingElicitationInput,
        ctx: RequestContext,
    ) -> Result<Vec<ContentBlock>, ToolError> {
        ctx.progress(1.0, Some(1.0), Some("no requests on this stream")).await;
        Ok(vec![text("Answered without sending the client a request")])
    }
}
