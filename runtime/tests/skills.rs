//! The Skills extension end to end: the runtime's server serving a skill
//! and the runtime's client listing, loading and verifying it, over an
//! in-memory stdio pipe (2025-11-25) and Streamable HTTP on loopback
//! (2026-07-28); a client refusing what does not match its entry; a
//! server without skills answering "method not found".

#![cfg(all(feature = "skills", feature = "streamable-http"))]

use std::sync::Arc;

use mcpgen_runtime::client::http::HttpTransport;
use mcpgen_runtime::client::{Client, ClientError, ClientOptions};
use mcpgen_runtime::server::http::{serve_with_shutdown, HttpConfig, HttpService};
use mcpgen_runtime::server::{BoxFuture, CallFailure, Dispatch, Skills, ToolOutput};
use mcpgen_runtime::server::{Server, ServerBuilder};
use mcpgen_runtime::skills::{SkillFile, SkillResources};
use mcpgen_runtime::transport::LineTransport;
use mcpgen_runtime::RequestContext;
use serde_json::{json, Value};

const SKILL: &str =
    "---\nname: pdf\ndescription: Read PDFs\nversion: 1.10\n---\n\nRead FORMS.md first.\n";
const FORMS: &str = "Fill every required field.\n";

struct NoTools;

impl Dispatch for NoTools {
    fn call(
        &self,
        _: usize,
        _: Value,
        _: RequestContext,
    ) -> BoxFuture<Result<ToolOutput, CallFailure>> {
        Box::pin(async { Ok(ToolOutput::Content(json!([]))) })
    }
}

fn server(with_skills: bool) -> Server {
    let builder = ServerBuilder::new("2026-07-28", json!([]), Arc::new(NoTools))
        .server_info(json!({"name": "skilled", "version": "1.0.0"}));
    let builder = if with_skills {
        builder.skills(
            Skills::from_files([("pdf/SKILL.md", SKILL), ("pdf/references/FORMS.md", FORMS)])
                .unwrap(),
        )
    } else {
        builder
    };
    builder.build().unwrap()
}

async fn over_stdio(server: Server) -> Client {
    let (client_end, server_end) = tokio::io::duplex(1 << 16);
    let (sr, sw) = tokio::io::split(server_end);
    tokio::spawn(server.serve(LineTransport::new(sr, sw)));
    let (cr, cw) = tokio::io::split(client_end);
    Client::connect(
        LineTransport::new(cr, cw),
        ClientOptions::new(["2025-11-25"]),
    )
    .await
    .unwrap()
}

async fn over_http(server: Server) -> Client {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(serve_with_shutdown(
        listener,
        HttpService::new(server, HttpConfig::default()),
        "/mcp",
        std::future::pending(),
    ));
    Client::connect(
        HttpTransport::new(&url).unwrap(),
        ClientOptions::new(["2026-07-28"]),
    )
    .await
    .unwrap()
}

async fn a_skill_is_listed_loaded_and_read(client: Client) {
    assert_eq!(client.skills_declared(), (true, true));
    let skills = client.list_skills().await.unwrap();
    assert_eq!(skills.len(), 1);
    let entry = &skills[0];
    assert_eq!(entry.uri, "skill://pdf/SKILL.md");
    assert_eq!(entry.name(), "pdf");
    assert_eq!(entry.frontmatter["version"], json!(1.1));
    assert_eq!(client.get_skill(&entry.uri).await.unwrap(), *entry);

    let loaded = client.load_skill(entry).await.unwrap();
    assert_eq!(loaded.text, SKILL);
    assert_eq!(loaded.body(), "\nRead FORMS.md first.\n");
    let forms = client
        .read_skill_file(entry, "skill://pdf/references/FORMS.md")
        .await
        .unwrap();
    assert_eq!(forms, FORMS.as_bytes());

    let root = client.read_skill_directory("skill://pdf").await.unwrap();
    let children: Vec<(&str, &str)> = root
        .iter()
        .map(|c| (c["uri"].as_str().unwrap(), c["mimeType"].as_str().unwrap()))
        .collect();
    assert_eq!(
        children,
        [
            ("skill://pdf/SKILL.md", "text/markdown"),
            ("skill://pdf/references", "inode/directory")
        ]
    );

    // The SKILL.md is a resource too, named and described by its frontmatter.
    let resources = client
        .list_all("resources/list", "resources", &Default::default())
        .await
        .unwrap();
    assert_eq!(resources[0]["uri"], "skill://pdf/SKILL.md");
    assert_eq!(resources[0]["description"], "Read PDFs");

    let unknown = client.get_skill("skill://nope/SKILL.md").await.unwrap_err();
    assert!(
        matches!(unknown, ClientError::Protocol { code: -32602, .. }),
        "{unknown}"
    );
    let file_as_dir = client
        .read_skill_directory("skill://pdf/SKILL.md")
        .await
        .unwrap_err();
    assert!(
        matches!(file_as_dir, ClientError::Protocol { code: -32602, .. }),
        "{file_as_dir}"
    );
}

#[tokio::test]
async fn a_skill_over_stdio_in_the_stateful_era() {
    a_skill_is_listed_loaded_and_read(over_stdio(server(true)).await).await;
}

#[tokio::test]
async fn a_skill_over_http_in_the_stateless_era() {
    a_skill_is_listed_loaded_and_read(over_http(server(true)).await).await;
}

#[tokio::test]
async fn content_that_does_not_match_its_entry_is_refused() {
    let client = over_stdio(server(true)).await;
    let mut entry = client.list_skills().await.unwrap().remove(0);
    let SkillResources::Listed(files) = &mut entry.resources else {
        panic!("the server lists its files")
    };
    let forms = "skill://pdf/references/FORMS.md";
    let tampered = |files: &mut Vec<SkillFile>, uri: &str, f: &dyn Fn(&mut SkillFile)| {
        f(files.iter_mut().find(|x| x.uri == uri).unwrap())
    };
    tampered(files, forms, &|file| file.size += 1);
    tampered(files, &entry.uri.clone(), &|file| {
        file.digest = format!("sha256:{}", "0".repeat(64))
    });
    let unverified = |e: ClientError| match e {
        ClientError::Unverified { reason, .. } => reason,
        other => panic!("not a verification failure: {other}"),
    };
    let digest = unverified(client.load_skill(&entry).await.unwrap_err());
    assert!(digest.contains("digest"), "{digest}");
    let size = unverified(client.read_skill_file(&entry, forms).await.unwrap_err());
    assert!(size.contains("bytes, the entry says"), "{size}");

    let mut entry = client.list_skills().await.unwrap().remove(0);
    entry
        .frontmatter
        .insert("description".into(), json!("Other"));
    let frontmatter = unverified(client.load_skill(&entry).await.unwrap_err());
    assert!(frontmatter.contains("`description`"), "{frontmatter}");
    // Outside the skill's directory: refused without asking the server.
    let outside = unverified(
        client
            .read_skill_file(&entry, "skill://pdf/../etc/passwd")
            .await
            .unwrap_err(),
    );
    assert!(outside.contains("not within the skill"), "{outside}");
}

#[tokio::test]
async fn a_server_without_skills_does_not_know_their_methods() {
    let client = over_stdio(server(false)).await;
    assert_eq!(client.skills_declared(), (false, false));
    let error = client.list_skills().await.unwrap_err();
    assert!(
        matches!(error, ClientError::Protocol { code: -32601, .. }),
        "{error}"
    );
}
