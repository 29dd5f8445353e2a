//! The handlers: what each fixture of the conformance suite must answer.

use std::time::Duration;

use mcpgen_runtime::{Completion, HandlerError, LogLevel, RequestContext, ToolError};
use serde_json::{json, Map, Value};

use crate::asks;
use crate::jobs;
use crate::protocol::{PromptMessage, ReadResourceResult, Role};
use crate::surface;

use crate::protocol::{
    AudioContent, ContentBlock, EmbeddedResource, ImageContent, TextContent, TextResourceContents,
};
use crate::tools::*;

use crate::surface::PNG;
/// Eight samples of 8 kHz 16-bit mono silence as a WAV file.
const WAV: &str =
    "UklGRjQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YRAAAAAAAAAAAAAAAAAAAAAAAAAA";

fn text(text: &str) -> ContentBlock {
    ContentBlock::Text(TextContent::new(text))
}

fn image() -> ContentBlock {
    ContentBlock::Image(ImageContent::new(PNG, "image/png"))
}

fn resource() -> ContentBlock {
    let mut contents = TextResourceContents::new(
        "This is an embedded resource content.",
        "test://embedded-resource",
    );
    contents.mime_type = Some("text/plain".into());
    ContentBlock::Resource(EmbeddedResource::new(contents))
}

/// The fixture handlers.
pub struct Fixtures;

impl crate::server::Handler for Fixtures {
    async fn test_simple_text(
        &self,
        _: TestSimpleTextInput,
        _: RequestContext,
    ) -> Result<Vec<ContentBlock>, ToolError> {
        Ok(vec![text("This is a simple text response for testing.")])
    }

    async fn test_image_content(
        &self,
        _: TestImageContentInput,
        _: RequestContext,
    ) -> Result<Vec<ContentBlock>, ToolError> {
        Ok(vec![image()])
    }

    async fn test_audio_content(
        &self,
        _: TestAudioContentInput,
        _: RequestContext,
    ) -> Result<Vec<ContentBlock>, ToolError> {
        Ok(vec![ContentBlock::Audio(AudioContent::new(
            WAV,
            "audio/wav",
        ))])
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
        Ok(vec![
            text("Multiple content types test:"),
            image(),
            resource(),
        ])
    }

    async fn test_error_handling(
        &self,
        _: TestErrorHandlingInput,
        _: RequestContext,
    ) -> Result<Vec<ContentBlock>, ToolError> {
        Err(ToolError::new(
            "This tool intentionally returns an error for testing",
        ))
    }

    async fn json_schema_2020_12_tool(
        &self,
        input: JsonSchema202012ToolInput,
        _: RequestContext,
    ) -> Result<Vec<ContentBlock>, ToolError> {
        // The schema's `anyOf` requires one of the two; the validator has
        // checked it, the type holds both as optional.
        let contact = match (input.phone, input.email) {
            (Some(phone), _) => format!("phone {phone}"),
            (None, Some(email)) => format!("email {email}"),
            (None, None) => return Err(ToolError::new("give a phone number or an e-mail address")),
        };
        Ok(vec![text(&format!("Contact by {contact}"))])
    }

    async fn test_custom_headers(
        &self,
        input: TestCustomHeadersInput,
        _: RequestContext,
    ) -> Result<Vec<ContentBlock>, ToolError> {
        let priority = input
            .priority
            .map_or_else(|| "none".to_owned(), |p| p.to_string());
        Ok(vec![text(&format!(
            "region={} priority={priority}",
            input.region
        ))])
    }

    async fn test_tool_with_progress(
        &self,
        _: TestToolWithProgressInput,
        ctx: RequestContext,
    ) -> Result<Vec<ContentBlock>, ToolError> {
        for step in 0..=2u32 {
            ctx.progress(
                f64::from(step * 50),
                Some(100.0),
                Some(&format!("step {}", step + 1)),
            )
            .await;
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        Ok(vec![text("Progress test completed")])
    }

    async fn test_tool_with_logging(
        &self,
        _: TestToolWithLoggingInput,
        ctx: RequestContext,
    ) -> Result<Vec<ContentBlock>, ToolError> {
        for message in [
            "Tool execution started",
            "Tool processing data",
            "Tool execution completed",
        ] {
            ctx.log(LogLevel::Info, json!(message), Some("conformance-server"))
                .await;
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        Ok(vec![text("Logging test completed")])
    }

    async fn test_logging_tool(
        &self,
        _: TestLoggingToolInput,
        ctx: RequestContext,
    ) -> Result<Vec<ContentBlock>, ToolError> {
        for level in LogLevel::ALL {
            ctx.log(
                level,
                json!(format!("a {} message", level.as_str())),
                Some("conformance-server"),
            )
            .await;
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
        ctx.progress(1.0, Some(1.0), Some("no requests on this stream"))
            .await;
        Ok(vec![text("Answered without sending the client a request")])
    }

    // The tasks extension's fixtures (in `jobs.rs`).

    async fn greet(
        &self,
        input: GreetInput,
        _: RequestContext,
    ) -> Result<Vec<ContentBlock>, ToolError> {
        Ok(vec![text(&format!("Hello, {}!", input.name))])
    }

    async fn slow_compute(
        &self,
        input: SlowComputeInput,
        ctx: RequestContext,
    ) -> Result<Vec<ContentBlock>, ToolError> {
        Ok(vec![text(
            &jobs::slow_compute(&ctx, input.seconds, input.label.as_deref()).await,
        )])
    }

    async fn failing_job(
        &self,
        _: FailingJobInput,
        _: RequestContext,
    ) -> Result<Vec<ContentBlock>, ToolError> {
        Err(jobs::failing_job().await)
    }

    async fn protocol_error_job(
        &self,
        _: ProtocolErrorJobInput,
        _: RequestContext,
    ) -> Result<Vec<ContentBlock>, ToolError> {
        Ok(vec![text(&jobs::protocol_error_job().await)])
    }

    async fn confirm_delete(
        &self,
        input: ConfirmDeleteInput,
        ctx: RequestContext,
    ) -> Result<Vec<ContentBlock>, ToolError> {
        Ok(vec![text(
            &jobs::confirm_delete(&ctx, &input.filename).await?,
        )])
    }

    async fn multi_input(
        &self,
        _: MultiInputInput,
        ctx: RequestContext,
    ) -> Result<Vec<ContentBlock>, ToolError> {
        Ok(vec![text(&jobs::multi_input(&ctx).await?)])
    }

    async fn test_tool_with_task(
        &self,
        _: TestToolWithTaskInput,
        ctx: RequestContext,
    ) -> Result<Vec<ContentBlock>, ToolError> {
        Ok(vec![text(&jobs::greet_later(&ctx).await?)])
    }

    // Resources, prompts and completion (contents in `surface.rs`).

    async fn read_resource(
        &self,
        resource: StaticResource,
        _: RequestContext,
    ) -> Result<ReadResourceResult, HandlerError> {
        Ok(surface::read_static(resource))
    }

    async fn read_template_data(
        &self,
        uri: String,
        params: TemplateDataParams,
        _: RequestContext,
    ) -> Result<ReadResourceResult, HandlerError> {
        Ok(surface::template_data(&uri, &params.id))
    }

    async fn prompt_test_simple_prompt(
        &self,
        _: TestSimplePromptArgs,
        _: RequestContext,
    ) -> Result<Vec<PromptMessage>, HandlerError> {
        Ok(surface::simple_prompt())
    }

    async fn prompt_test_prompt_with_arguments(
        &self,
        args: TestPromptWithArgumentsArgs,
        _: RequestContext,
    ) -> Result<Vec<PromptMessage>, HandlerError> {
        Ok(surface::prompt_with_arguments(&args.arg1, &args.arg2))
    }

    async fn prompt_test_prompt_with_embedded_resource(
        &self,
        args: TestPromptWithEmbeddedResourceArgs,
        _: RequestContext,
    ) -> Result<Vec<PromptMessage>, HandlerError> {
        Ok(surface::prompt_with_embedded_resource(&args.resource_uri))
    }

    async fn prompt_test_prompt_with_image(
        &self,
        _: TestPromptWithImageArgs,
        _: RequestContext,
    ) -> Result<Vec<PromptMessage>, HandlerError> {
        Ok(surface::prompt_with_image())
    }

    async fn prompt_test_input_required_result_prompt(
        &self,
        _: TestInputRequiredResultPromptArgs,
        ctx: RequestContext,
    ) -> Result<Vec<PromptMessage>, HandlerError> {
        let instruction = asks::prompt_context(&ctx).await?;
        Ok(vec![PromptMessage::new(text(&instruction), Role::User)])
    }

    // Requests to the client and change announcements (in `asks.rs`).

    async fn test_sampling(
        &self,
        input: TestSamplingInput,
        ctx: RequestContext,
    ) -> Result<Vec<ContentBlock>, ToolError> {
        Ok(vec![text(&asks::sampling(&ctx, &input.prompt).await?)])
    }

    async fn test_elicitation(
        &self,
        input: TestElicitationInput,
        ctx: RequestContext,
    ) -> Result<Vec<ContentBlock>, ToolError> {
        let answer = ctx.elicit::<asks::Contact>(&input.message).await?;
        Ok(vec![text(&asks::completed(answer, "User response"))])
    }

    async fn test_elicitation_sep1034_defaults(
        &self,
        _: TestElicitationSep1034DefaultsInput,
        ctx: RequestContext,
    ) -> Result<Vec<ContentBlock>, ToolError> {
        let answer = ctx
            .elicit::<asks::Defaults>("Please review these defaults")
            .await?;
        Ok(vec![text(&asks::completed(
            answer,
            "Elicitation completed",
        ))])
    }

    async fn test_elicitation_sep1330_enums(
        &self,
        _: TestElicitationSep1330EnumsInput,
        ctx: RequestContext,
    ) -> Result<Vec<ContentBlock>, ToolError> {
        let answer = ctx
            .elicit_with::<Value>("Please choose", asks::enum_schema())
            .await?;
        Ok(vec![text(&asks::completed(
            answer,
            "Elicitation completed",
        ))])
    }

    async fn test_trigger_tool_change(
        &self,
        _: TestTriggerToolChangeInput,
        ctx: RequestContext,
    ) -> Result<Vec<ContentBlock>, ToolError> {
        let sent = match ctx.notifier() {
            Some(notifier) => notifier.tools_changed().await,
            None => 0,
        };
        Ok(vec![text(&format!(
            "Tool list change announced to {sent} listeners"
        ))])
    }

    async fn test_trigger_prompt_change(
        &self,
        _: TestTriggerPromptChangeInput,
        ctx: RequestContext,
    ) -> Result<Vec<ContentBlock>, ToolError> {
        let sent = match ctx.notifier() {
            Some(notifier) => notifier.prompts_changed().await,
            None => 0,
        };
        Ok(vec![text(&format!(
            "Prompt list change announced to {sent} listeners"
        ))])
    }

    async fn test_input_required_result_elicitation(
        &self,
        _: TestInputRequiredResultElicitationInput,
        ctx: RequestContext,
    ) -> Result<Vec<ContentBlock>, ToolError> {
        Ok(vec![text(&asks::greeting(&ctx).await?)])
    }

    async fn test_input_required_result_sampling(
        &self,
        _: TestInputRequiredResultSamplingInput,
        ctx: RequestContext,
    ) -> Result<Vec<ContentBlock>, ToolError> {
        Ok(vec![text(&asks::capital(&ctx).await?)])
    }

    async fn test_input_required_result_list_roots(
        &self,
        _: TestInputRequiredResultListRootsInput,
        ctx: RequestContext,
    ) -> Result<Vec<ContentBlock>, ToolError> {
        Ok(vec![text(&asks::roots(&ctx).await?)])
    }

    async fn test_input_required_result_request_state(
        &self,
        _: TestInputRequiredResultRequestStateInput,
        ctx: RequestContext,
    ) -> Result<Vec<ContentBlock>, ToolError> {
        Ok(vec![text(&asks::confirm(&ctx).await?)])
    }

    async fn test_input_required_result_multiple_inputs(
        &self,
        _: TestInputRequiredResultMultipleInputsInput,
        ctx: RequestContext,
    ) -> Result<Vec<ContentBlock>, ToolError> {
        Ok(vec![text(&asks::everything(&ctx).await?)])
    }

    async fn test_input_required_result_multi_round(
        &self,
        _: TestInputRequiredResultMultiRoundInput,
        ctx: RequestContext,
    ) -> Result<Vec<ContentBlock>, ToolError> {
        Ok(vec![text(&asks::two_rounds(&ctx).await?)])
    }

    async fn test_input_required_result_tampered_state(
        &self,
        _: TestInputRequiredResultTamperedStateInput,
        ctx: RequestContext,
    ) -> Result<Vec<ContentBlock>, ToolError> {
        Ok(vec![text(&asks::confirm(&ctx).await?)])
    }

    async fn test_input_required_result_capabilities(
        &self,
        _: TestInputRequiredResultCapabilitiesInput,
        ctx: RequestContext,
    ) -> Result<Vec<ContentBlock>, ToolError> {
        Ok(vec![text(&asks::declared_only(&ctx).await?)])
    }

    async fn complete_test_prompt_with_arguments_arg1(
        &self,
        value: String,
        _: Map<String, Value>,
        _: RequestContext,
    ) -> Result<Completion, HandlerError> {
        Ok(surface::complete_word(&value))
    }

    async fn complete_test_prompt_with_arguments_arg2(
        &self,
        value: String,
        _: Map<String, Value>,
        _: RequestContext,
    ) -> Result<Completion, HandlerError> {
        Ok(surface::complete_word(&value))
    }

    async fn complete_template_data_id(
        &self,
        value: String,
        _: Map<String, Value>,
        _: RequestContext,
    ) -> Result<Completion, HandlerError> {
        Ok(surface::complete_id(&value))
    }
}
