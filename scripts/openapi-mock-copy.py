#!/usr/bin/env python3
"""Write a copy of an OpenAPI document for a mock that only validates requests.

Usage: openapi-mock-copy.py [--keep-responses] SOURCE DEST

With --keep-responses the response bodies stay (only the references are
fixed and unused components pruned): for documents Prism loads quickly
once their references are local, so that its answers can be checked too.

Prism (the Stoplight mock, scripts/prism.sh) dereferences the whole document
before it listens, unused components included: Stripe's 3.6 MB spec takes
over 15 minutes (and ~2 GB), Figma's about 5 minutes. Validating requests
needs neither the response schemas nor the components only they use; on the
copy Prism 5.16.0 listens in ~3 s for Stripe and ~2.5 s for Figma. (Dropping
the response bodies alone is not enough: Stripe still took over 15 minutes.)

The copy keeps every path, operation, parameter, request body, security
requirement and response status (so every operation is still there and
`Prefer: code=NNN` still picks a declared status). It drops:

  * OpenAPI 3.x: the `content` of each response (operations, webhooks and
    components/responses), so Prism answers with an empty body;
    Swagger 2.0: the `schema` and `examples` of each response;
  * `$ref`s that reach a schema through its `$id`/`$anchor` (JSON Schema
    2020-12, e.g. swagger-petstore31's `/components/schemas/petdetails#pet_details_id`)
    are rewritten as local `#/...` pointers: Prism reads them as file paths
    and does not load the document at all; and a `$ref` that is not a string
    (an unquoted `$ref: #/...` is YAML for `$ref: null`) is removed, leaving
    the schema as YAML wrote it: with `$ref: null` inside, Prism silently
    skips validating the whole request body (every body passes);
  * then every component (2.0: definition, parameter, response) that nothing
    left refers to, directly or through other components; security schemes
    are always kept.

Standard library only. JSON sources are read with json; YAML with PyYAML when
it is installed (timestamps kept as strings, as a YAML 1.2 reader does), or
else with the YAML parser of Prism's own node_modules (.interop/, or
./node_modules, or $NODE_PATH). The copy is written as JSON, which Prism reads.
"""
import json
import sys

METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")


def load(path):
    with open(path, "rb") as f:
        data = f.read()
    text = data.decode("utf-8")
    stripped = text.lstrip()
    if stripped.startswith("{"):
        return json.loads(text)
    try:
        import yaml  # optional
    except ImportError:
        return load_yaml_with_node(path)

    class Loader(yaml.SafeLoader):
        pass

    # Keep timestamps as strings (YAML 1.2 behaviour, as Prism reads them).
    Loader.yaml_implicit_resolvers = {
        k: [(tag, rx) for tag, rx in v if tag != "tag:yaml.org,2002:timestamp"]
        for k, v in yaml.SafeLoader.yaml_implicit_resolvers.items()
    }
    return yaml.load(text, Loader=Loader)


def load_yaml_with_node(path):
    """Without PyYAML, ask node for a YAML parser (Prism ships one)."""
    import os
    import subprocess

    script = (
        "const p=process.argv[1];"
        "let y;for(const m of ['@stoplight/yaml','yaml','js-yaml']){try{y=require(m);break}catch(e){}}"
        "if(!y){console.error('no YAML parser: install PyYAML or run from a folder whose node_modules has @stoplight/yaml');process.exit(2)}"
        "const t=require('fs').readFileSync(p,'utf8');"
        "const d=y.parse?y.parse(t):y.load(t);"
        "process.stdout.write(JSON.stringify(d));"
    )
    env = dict(os.environ)
    here = os.path.dirname(os.path.abspath(__file__))
    paths = [os.path.join(os.getcwd(), "node_modules"),
             os.path.join(here, "..", ".interop", "node_modules")]
    if env.get("NODE_PATH"):
        paths.insert(0, env["NODE_PATH"])
    env["NODE_PATH"] = os.pathsep.join(paths)
    out = subprocess.run(["node", "-e", script, path], env=env, check=True,
                         capture_output=True)
    return json.loads(out.stdout)


def strip_response(resp, swagger2):
    if not isinstance(resp, dict) or "$ref" in resp:
        return 0
    n = 0
    if swagger2:
        for k in ("schema", "examples"):
            if k in resp:
                del resp[k]
                n += 1
    elif "content" in resp:
        del resp["content"]
        n += 1
    return n


def strip(doc):
    swagger2 = str(doc.get("swagger", "")).startswith("2")
    n = 0
    for item in (doc.get("paths") or {}).values():
        if not isinstance(item, dict):
            continue
        for method in METHODS:
            op = item.get(method)
            if isinstance(op, dict):
                for resp in (op.get("responses") or {}).values():
                    n += strip_response(resp, swagger2)
    # webhooks (3.1) have the same shape
    for item in (doc.get("webhooks") or {}).values():
        if isinstance(item, dict):
            for method in METHODS:
                op = item.get(method)
                if isinstance(op, dict):
                    for resp in (op.get("responses") or {}).values():
                        n += strip_response(resp, swagger2)
    shared = doc.get("responses") if swagger2 else (doc.get("components") or {}).get("responses")
    for resp in (shared or {}).values():
        n += strip_response(resp, swagger2)
    return n


def refs_in(node, out):
    if isinstance(node, dict):
        r = node.get("$ref")
        if isinstance(r, str) and r.startswith("#/"):
            out.add(r.split("#", 1)[1])
        for v in node.values():
            refs_in(v, out)
    elif isinstance(node, list):
        for v in node:
            refs_in(v, out)


def esc(key):
    return str(key).replace("~", "~0").replace("/", "~1")


def local_refs(doc):
    """Rewrite `$ref`s that reach a schema through its `$id` (and `$anchor`),
    e.g. `/components/schemas/petdetails#pet_details_id`, into local JSON
    pointers: Prism's resolver reads them as file paths and gives up."""
    ids, anchors = {}, {}

    def scan(node, ptr, base):
        if isinstance(node, dict):
            if isinstance(node.get("$id"), str):
                base = node["$id"].split("#", 1)[0]
                ids[base] = ptr
            if isinstance(node.get("$anchor"), str) and base is not None:
                anchors[(base, node["$anchor"])] = ptr
            for k, v in node.items():
                scan(v, ptr + "/" + esc(k), base)
        elif isinstance(node, list):
            for i, v in enumerate(node):
                scan(v, ptr + "/" + str(i), base)

    scan(doc, "", None)
    n = 0

    def fix(node):
        nonlocal n
        if isinstance(node, dict):
            if "$ref" in node and not isinstance(node["$ref"], str):
                del node["$ref"]  # `$ref: #/...` unquoted is YAML `$ref: null`
                n += 1
            r = node.get("$ref")
            if isinstance(r, str) and not r.startswith("#"):
                base, _, frag = r.partition("#")
                target = None
                if frag and (base, frag) in anchors:
                    target = anchors[(base, frag)]
                elif base in ids and (not frag or frag.startswith("/")):
                    target = ids[base] + frag
                if target is not None:
                    node["$ref"] = "#" + target
                    n += 1
            for v in node.values():
                fix(v)
        elif isinstance(node, list):
            for v in node:
                fix(v)

    fix(doc)
    return n


def prune(doc):
    """Drop the components no longer reachable from the rest of the document."""
    swagger2 = str(doc.get("swagger", "")).startswith("2")
    if swagger2:
        sections = {k: doc.get(k) for k in ("definitions", "parameters", "responses")}
        prefix = {k: "/" + k + "/" for k in sections}
    else:
        comps = doc.get("components") or {}
        sections = {k: v for k, v in comps.items() if k != "securitySchemes"}
        prefix = {k: "/components/" + k + "/" for k in sections}
    sections = {k: v for k, v in sections.items() if isinstance(v, dict)}
    roots = {k: v for k, v in doc.items()
             if k not in (("definitions", "parameters", "responses") if swagger2 else ("components",))}
    seen, todo = set(), set()
    refs_in(roots, todo)
    while todo:
        ptr = todo.pop()
        if ptr in seen:
            continue
        seen.add(ptr)
        for k, sec in sections.items():
            if ptr.startswith(prefix[k]):
                name = ptr[len(prefix[k]):].split("/", 1)[0].replace("~1", "/").replace("~0", "~")
                if name in sec:
                    refs_in(sec[name], todo)
    n = 0
    for k, sec in sections.items():
        for name in list(sec):
            esc = name.replace("~", "~0").replace("/", "~1")
            if not any(p == prefix[k] + esc or p.startswith(prefix[k] + esc + "/") for p in seen):
                del sec[name]
                n += 1
    return n


def main(argv):
    keep_responses = "--keep-responses" in argv
    argv = [a for a in argv if a != "--keep-responses"]
    if len(argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    doc = load(argv[1])
    n = 0 if keep_responses else strip(doc)
    k = local_refs(doc)
    m = prune(doc)
    with open(argv[2], "w", encoding="utf-8") as f:
        json.dump(doc, f, ensure_ascii=False)
    sys.stderr.write(f"openapi-mock-copy: dropped {n} response bodies and {m} unused components, "
                     f"fixed {k} $id/$anchor/null $ref(s) -> {argv[2]}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
