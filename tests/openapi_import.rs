//! `mcpgen import openapi` on the nine real documents of
//! `../shared/openapi` (each imports, one tool per operation, names valid
//! and unique, the manifest checks and generates) and on bad input (every
//! problem located; nothing half-done; document text stays data).

use std::collections::HashSet;
use std::path::PathBuf;

use mcpgen::openapi::{import, import_str, ImportOptions, Imported};
use mcpgen::{Builder, Manifest};
use serde_json::{json, Value};

mod shared_data;

const REVISION: &str = "2025-11-25";

/// The document, or `None` (skipped) when `../shared/openapi` is missing.
fn document(file: &str, test: &str) -> Option<PathBuf> {
    shared_data::shared_data(&format!("openapi/{file}"), test)
}

fn imported(file: &str, test: &str) -> Option<Imported> {
    let path = document(file, test)?;
    Some(
        import(&path, &ImportOptions::default()).unwrap_or_else(|e| {
            panic!(
                "{file} imports: {}",
                e.iter()
                    .map(|e| e.to_string())
                    .collect::<Vec<_>>()
                    .join("\n")
            )
        }),
    )
}

fn tools(i: &Imported) -> &Vec<Value> {
    i.manifest["tools"].as_array().unwrap()
}

fn tool<'a>(i: &'a Imported, name: &str) -> &'a Value {
    tools(i)
        .iter()
        .find(|t| t["name"] == name)
        .unwrap_or_else(|| panic!("no tool {name}"))
}

fn valid_name(s: &str) -> bool {
    (1..=64).contains(&s.len())
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// Imports, counts, names, the library's check and the generator.
fn whole(file: &str, operations: usize) {
    let Some(i) = imported(file, file) else {
        return;
    };
    assert_eq!(i.operations, operations, "{file}: operations");
    assert_eq!(
        tools(&i).len(),
        operations,
        "{file}: one tool per operation"
    );
    let mut seen = HashSet::new();
    for t in tools(&i) {
        let name = t["name"].as_str().unwrap();
        assert!(valid_name(name), "{file}: {name}");
        assert!(seen.insert(name.to_owned()), "{file}: {name} twice");
        assert!(
            t["x-mcpgen"]["http"]["method"].is_string(),
            "{file}: {name} has a binding"
        );
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tools.json");
    std::fs::write(&path, serde_json::to_string_pretty(&i.manifest).unwrap()).unwrap();
    let m = Manifest::load(&path).unwrap();
    let problems = mcpgen::check::check_in(&shared_data::store(), &m, REVISION);
    assert!(
        problems.is_empty(),
        "{file}: {}",
        problems
            .iter()
            .take(20)
            .map(|e| e.to_string())
            .collect::<Vec<_>>()
            .join("\n")
    );
    Builder::new()
        .protocol(REVISION)
        .manifest(&path)
        .store(shared_data::store())
        .out_dir(dir.path().join("out"))
        .cargo_directives(false)
        .generate()
        .unwrap_or_else(|e| panic!("{file} generates: {e}"));
}

#[test]
fn oai_petstore() {
    whole("oai-petstore.yaml", 3);
}
#[test]
fn swagger_petstore31() {
    whole("swagger-petstore31.yaml", 6);
}
#[test]
fn netlify() {
    whole("netlify-api.yml", 174);
}
#[test]
fn figma() {
    whole("figma-rest-api.yaml", 47);
}
#[test]
fn twilio() {
    whole("twilio-verify-v2.json", 57);
}
#[test]
fn pinecone() {
    whole("pinecone-db-control-2025-10.yaml", 18);
}
#[test]
fn lob() {
    whole("lob-api.yml", 105);
}
#[test]
fn box_api() {
    whole("box-api-v2025.json", 37);
}
#[test]
fn stripe() {
    whole("stripe-api.yaml", 444);
}

#[test]
fn petstore31_anchor_reference_resolves_and_unquoted_ref_is_a_warning() {
    let Some(i) = imported("swagger-petstore31.yaml", "petstore31_traps") else {
        return;
    };
    let t = tool(&i, "addPet");
    let body = &t["inputSchema"]["properties"]["body"];
    let pet_ref = body["$ref"]
        .as_str()
        .unwrap()
        .strip_prefix("#/$defs/")
        .unwrap()
        .to_owned();
    let defs = &t["inputSchema"]["$defs"];
    let pet = &defs[&pet_ref];
    let anchored = pet["properties"]["petDetailsId"]["$ref"].as_str().unwrap();
    let target = &defs[anchored.strip_prefix("#/$defs/").unwrap()];
    assert_eq!(target["type"], "integer", "{target}");
    // Unquoted `$ref: #/…` is null: unconstrained, and warned about with its place.
    assert_eq!(pet["properties"]["petDetails"], json!({}));
    let w = i
        .warnings
        .iter()
        .map(|w| w.to_string())
        .collect::<Vec<_>>()
        .join("\n");
    assert!(
        w.contains("/components/schemas/Pet/properties/petDetails/$ref"),
        "{w}"
    );
    assert!(w.contains("swagger-petstore31.yaml:377:"), "{w}");
    // readOnly/extension keys gone, numeric exclusive bounds kept.
    let instances = &pet["properties"]["availableInstances"];
    assert_eq!(instances["exclusiveMinimum"], 1);
    assert!(instances.get("swagger-extension").is_none());
    assert!(pet.get("xml").is_none() && pet.get("$schema").is_none());
    // mutualTLS is unsupported, api_key a header.
    let text = serde_json::to_string(&tools(&i)).unwrap();
    assert!(!text.contains("\"$id\""), "no $id left");
}

#[test]
fn box_operation_ids_with_dots_become_underscores() {
    let Some(i) = imported("box-api-v2025.json", "box_names") else {
        return;
    };
    let dotted: Vec<&Value> = tools(&i)
        .iter()
        .filter(|t| {
            t["x-mcpgen"]["http"]["operationId"]
                .as_str()
                .unwrap()
                .contains('.')
        })
        .collect();
    assert!(!dotted.is_empty());
    for t in dotted {
        let id = t["x-mcpgen"]["http"]["operationId"].as_str().unwrap();
        assert_eq!(t["name"], id.replace('.', "_"));
    }
}

#[test]
fn a_path_parameter_and_a_query_parameter_named_path_do_not_clash() {
    let doc = json!({"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": {"/files/{path}": {"put": {
        "operationId": "put",
        "parameters": [
            {"name": "path", "in": "query", "schema": {"type": "string"}},
            {"name": "path", "in": "path", "required": true, "schema": {"type": "string"}},
            {"name": "path_query", "in": "header", "schema": {"type": "string"}},
            {"name": "body", "in": "query", "schema": {"type": "integer"}}],
        "requestBody": {"content": {"application/json": {"schema": {"type": "object"}}}},
        "responses": {"204": {"description": "none"}}}}}});
    let i = import_str(&doc.to_string(), "clash.json", &ImportOptions::default()).unwrap();
    let t = &tools(&i)[0];
    let params = t["x-mcpgen"]["http"]["parameters"].as_array().unwrap();
    let args: Vec<(&str, &str, &str)> = params
        .iter()
        .map(|p| {
            (
                p["name"].as_str().unwrap(),
                p["in"].as_str().unwrap(),
                p["argument"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        args,
        [
            ("path", "path", "path"),
            ("path", "query", "path_query"),
            ("body", "query", "body"),
            ("path_query", "header", "path_query_header"),
        ]
    );
    assert_eq!(t["x-mcpgen"]["http"]["body"]["argument"], "body_body");
    let props: Vec<&String> = t["inputSchema"]["properties"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(
        props,
        [
            "path",
            "path_query",
            "body",
            "path_query_header",
            "body_body"
        ]
    );
    assert_eq!(t["inputSchema"]["required"], json!(["path"]));
    assert_eq!(t["inputSchema"]["properties"]["path"]["minLength"], 1);
    assert!(t.get("outputSchema").is_none() && t["x-mcpgen"]["http"].get("output").is_none());
}

#[test]
fn netlify_swagger2_servers_and_bodies() {
    let Some(i) = imported("netlify-api.yml", "netlify_swagger2") else {
        return;
    };
    // Swagger 2.0: scheme + host + basePath, octet-stream and file uploads.
    let any = &tools(&i)[0]["x-mcpgen"]["http"];
    assert_eq!(any["servers"][0]["url"], "https://api.netlify.com/api/v1");
    let text = serde_json::to_string(&tools(&i)).unwrap();
    assert!(text.contains("\"mediaType\":\"application/octet-stream\""));
    assert!(text.contains("\"mediaType\":\"multipart/form-data\""));
}

#[test]
fn stripe_deep_object_encodings_are_in_the_binding() {
    let Some(i) = imported("stripe-api.yaml", "stripe_encodings") else {
        return;
    };
    let t = tool(&i, "PostCustomers");
    let body = &t["x-mcpgen"]["http"]["body"];
    assert_eq!(body["mediaType"], "application/x-www-form-urlencoded");
    assert_eq!(
        body["encoding"]["address"],
        json!({"style": "deepObject", "explode": true})
    );
    let long: Vec<&Value> = tools(&i)
        .iter()
        .filter(|t| t["x-mcpgen"]["http"]["operationId"].as_str().unwrap().len() > 64)
        .collect();
    assert_eq!(long.len(), 1);
    assert_eq!(long[0]["name"].as_str().unwrap().len(), 64);
    let sec = &t["x-mcpgen"]["http"]["security"];
    assert_eq!(sec[0][0]["type"], "basic");
    assert_eq!(sec[1][0]["type"], "bearer");
    assert_eq!(sec[1][0]["env"], "MCP_UPSTREAM_AUTH_BEARER_AUTH");
}

#[test]
fn twilio_form_bodies_and_basic_auth() {
    let Some(i) = imported("twilio-verify-v2.json", "twilio_form") else {
        return;
    };
    let forms = tools(&i)
        .iter()
        .filter(|t| {
            t["x-mcpgen"]["http"]["body"]["mediaType"] == "application/x-www-form-urlencoded"
        })
        .count();
    assert_eq!(forms, 21);
    let t = &tools(&i)[0]["x-mcpgen"]["http"];
    assert_eq!(t["security"][0][0]["type"], "basic");
    assert_eq!(
        t["security"][0][0]["env"],
        "MCP_UPSTREAM_AUTH_ACCOUNT_SID_AUTH_TOKEN"
    );
    assert!(t["servers"][0]["url"]
        .as_str()
        .unwrap()
        .starts_with("https://verify.twilio.com"));
}

#[test]
fn figma_security_is_per_operation() {
    let Some(i) = imported("figma-rest-api.yaml", "figma_security") else {
        return;
    };
    for t in tools(&i) {
        let sec = t["x-mcpgen"]["http"]["security"].as_array().unwrap();
        assert!(!sec.is_empty(), "{}", t["name"]);
    }
    let text = serde_json::to_string(&tools(&i)).unwrap();
    assert!(text.contains("\"name\":\"X-Figma-Token\""));
}

#[test]
fn pinecone_version_header_is_a_restricted_header_argument() {
    let Some(i) = imported("pinecone-db-control-2025-10.yaml", "pinecone_header") else {
        return;
    };
    for t in tools(&i) {
        let params = t["x-mcpgen"]["http"]["parameters"].as_array().unwrap();
        let p = params
            .iter()
            .find(|p| p["name"] == "X-Pinecone-Api-Version")
            .unwrap_or_else(|| panic!("{}", t["name"]));
        assert_eq!(p["in"], "header");
        assert_eq!(p["style"], "simple");
        let schema = &t["inputSchema"]["properties"][p["argument"].as_str().unwrap()];
        assert!(schema.to_string().contains("u001f"), "{schema}");
    }
}

fn problems(text: &str, name: &str) -> String {
    match import_str(text, name, &ImportOptions::default()) {
        Ok(_) => panic!("{name} imports"),
        Err(e) => e
            .iter()
            .map(|e| e.to_string())
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

#[test]
fn bad_documents_are_clear_errors() {
    assert!(problems("{\"tools\": []}", "x.json").contains("not an OpenAPI document"));
    assert!(problems("openapi: 4.0.0\npaths: {}\n", "x.yaml")
        .contains("unsupported OpenAPI version `4.0.0`"));
    let remote = r##"{"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": {"/a": {"get": {
        "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"$ref": "https://example.com/s.json#/X"}}}}}}}}}"##;
    let p = problems(remote, "r.json");
    assert!(
        p.contains("remote reference")
            && p.contains("/paths/~1a/get/responses/200/content/application~1json/schema/$ref"),
        "{p}"
    );
    let dangling = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    post:\n      operationId: a\n      requestBody:\n        content:\n          application/json:\n            schema:\n              $ref: '#/components/schemas/Missing'\n      responses: {}\n    get:\n      operationId: a\n      responses: {}\n";
    let p = problems(dangling, "d.yaml");
    assert!(p.contains("d.yaml:11:21"), "{p}");
    assert!(
        p.contains("dangling reference `#/components/schemas/Missing`"),
        "{p}"
    );
    assert!(
        p.contains("duplicate operationId `a`"),
        "every problem at once: {p}"
    );
    let cycle = r##"{"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {"/a": {"get": {
        "parameters": [{"name": "q", "in": "query", "schema": {"$ref": "#/components/schemas/A"}}], "responses": {}}}},
        "components": {"schemas": {"A": {"$ref": "#/components/schemas/B"}, "B": {"$ref": "#/components/schemas/A"}}}}"##;
    assert!(problems(cycle, "c.json").contains("cycle of `$ref` aliases"));
}

#[test]
fn ten_thousand_operations_import() {
    let mut paths = serde_json::Map::new();
    for n in 0..10_000 {
        paths.insert(
            format!("/items/{n}/{{id}}"),
            json!({"get": {"operationId": format!("get.item{n}"), "parameters": [
                {"name": "id", "in": "path", "required": true, "schema": {"$ref": "#/components/schemas/Id"}}],
                "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Item"}}}}}}}),
        );
    }
    let doc = json!({"openapi": "3.0.3", "info": {"title": "Big", "version": "1"}, "paths": paths,
        "components": {"schemas": {"Id": {"type": "string"}, "Item": {"type": "object", "properties": {"id": {"type": "string"}}}}}});
    let i = import_str(&doc.to_string(), "big.json", &ImportOptions::default()).unwrap();
    assert_eq!(tools(&i).len(), 10_000);
    assert_eq!(tools(&i)[9_999]["name"], "get_item9999");
}

#[test]
fn injection_strings_stay_data() {
    let evil = "\"}); std::process::exit(1); /*";
    let doc = json!({"openapi": "3.0.3", "info": {"title": evil, "version": "1", "description": evil},
        "paths": {"/a/{x}": {"post": {"operationId": evil, "summary": evil, "description": "*/ fn main() {}",
            "parameters": [{"name": "x", "in": "path", "required": true, "schema": {"type": "string", "enum": [evil, "a\"b"]}}],
            "requestBody": {"content": {"application/json": {"schema": {"type": "object", "properties": {evil: {"type": "string", "description": evil}}}}}},
            "responses": {"200": {"description": "ok", "content": {"application/json": {"schema": {"type": "string", "enum": [evil]}}}}}}}}});
    let i = import_str(&doc.to_string(), "evil.json", &ImportOptions::default()).unwrap();
    let t = &tools(&i)[0];
    assert!(valid_name(t["name"].as_str().unwrap()));
    assert_eq!(t["title"], evil);
    assert_eq!(t["x-mcpgen"]["http"]["operationId"], evil);
    assert_eq!(t["inputSchema"]["properties"]["x"]["enum"][0], evil);
    assert_eq!(t["outputSchema"]["properties"]["result"]["enum"][0], evil);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("evil.json");
    std::fs::write(&path, serde_json::to_string(&i.manifest).unwrap()).unwrap();
    let m = Manifest::load(&path).unwrap();
    let problems = mcpgen::check::check_in(&shared_data::store(), &m, REVISION);
    assert!(problems.is_empty(), "{problems:?}");
    Builder::new()
        .protocol(REVISION)
        .manifest(&path)
        .store(shared_data::store())
        .out_dir(dir.path().join("out"))
        .cargo_directives(false)
        .generate()
        .unwrap();
}

#[test]
fn filters_select_operations_and_names_do_not_depend_on_them() {
    let Some(path) = document("oai-petstore.yaml", "filters") else {
        return;
    };
    let all = import(&path, &ImportOptions::default()).unwrap();
    let options = ImportOptions {
        include: vec!["method:get".parse().unwrap()],
        exclude: vec!["op:show*".parse().unwrap()],
    };
    let some = import(&path, &options).unwrap();
    let names: Vec<&str> = tools(&some)
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["listPets"]);
    assert_eq!(tool(&all, "listPets"), tool(&some, "listPets"));
    let t = tool(&all, "listPets");
    assert_eq!(t["annotations"]["readOnlyHint"], true);
    assert_eq!(
        tool(&all, "createPets")["annotations"]["readOnlyHint"],
        false
    );
}

#[test]
fn the_manifest_check_validates_the_http_binding() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bad.json");
    let manifest = json!({"tools": [{"name": "t", "inputSchema": {"type": "object"},
        "x-mcpgen": {"http": {"method": "GET", "path": "/x", "parameters": [{"argument": "a"}]}}}]});
    std::fs::write(&path, manifest.to_string()).unwrap();
    let m = Manifest::load(&path).unwrap();
    let problems = mcpgen::check::check_in(&shared_data::store(), &m, REVISION);
    let text = problems
        .iter()
        .map(|e| e.to_string())
        .collect::<Vec<_>>()
        .join("\n");
    assert!(
        text.contains("/tools/0/x-mcpgen") && text.contains("invalid `x-mcpgen` settings"),
        "{text}"
    );
}
