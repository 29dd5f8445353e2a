//! Hello world: one tool over stdio with rmcp.
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{ServerCapabilities, ServerConfig};
use rmcp::{tool, tool_handler, tool_router, ServerHandler, ServiceExt};

#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct HelloArgs {
    /// Who to greet
    name: String,
}

#[derive(Clone)]
struct Hello {
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl Hello {
    fn new() -> Self {
        Hello { tool_router: Self::tool_router() }
    }

    #[tool(description = "Says hello")]
    fn hello(&self, Parameters(args): Parameters<HelloArgs>) -> String {
        format!("Hello, {}!", args.name)
    }
}

#[tool_handler(router = self.tool_router.clone())]
impl ServerHandler for Hello {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let service = Hello::new().serve(rmcp::transport::stdio()).await?;
    service.waiting().await?;
    Ok(())
}
