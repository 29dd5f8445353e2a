#!/usr/bin/env bash
# Stoplight Prism (`@stoplight/prism-cli`), an independent OpenAPI mock that
# validates every request against the document: the OpenAPI importer's tests
# point a generated server's upstream at it and count the requests it found
# invalid.
#
# The pinned version is the `@stoplight/prism-cli@...` line of
# tests/interop/packages.txt; scripts/setup-interop.sh installs it into the
# untracked .interop/ with the other interop packages. This script runs that
# install (a no-op when .interop/ is up to date), then:
#
#   scripts/prism.sh                 prints the path of the prism executable
#   scripts/prism.sh ARGS...         runs `prism ARGS...`, e.g.
#       scripts/prism.sh mock -h 127.0.0.1 -p 4010 ../shared/openapi/oai-petstore.yaml
#
# Large documents: Prism dereferences the whole document before it listens
# (Stripe's 3.6 MB spec: > 15 min and ~2 GB; Figma's: ~5 min). For request
# validation only, mock a copy without response bodies and without the
# components nothing else uses (Stripe: ~3 s, Figma: ~2.5 s); the copy also
# makes swagger-petstore31 loadable ($id/$anchor refs) and validated (a
# `$ref: null` silently turns off validation of the whole body):
#       python3 scripts/openapi-mock-copy.py DOC /tmp/doc.mock.json
#       scripts/prism.sh mock -h 127.0.0.1 -p 4010 /tmp/doc.mock.json
#
# Reading Prism's verdict on a request (5.16.0):
#   * request valid: the negotiated answer (Prefer: code=NNN picks a status);
#   * request invalid: 422 or 400 (401 for security, 415 for the media type),
#     either the document's own 422/400/default answer WITH an `sl-violations`
#     header (JSON array; entries whose location starts with "request"), or,
#     when the document has none, Prism's application/problem+json with
#     type .../prism/errors#UNPROCESSABLE_ENTITY (UNAUTHORIZED,
#     INVALID_CONTENT_TYPE) and a `validation` list, WITHOUT that header;
#   * every invalid request also logs "Request did not pass the validation
#     rules" on Prism's stdout: counting that line is the one signal that
#     does not depend on the document.
#   Paths are matched WITHOUT the servers' base path (swagger-petstore31:
#   POST /pet, not /api/v31/pet, which is a 404 NO_PATH_MATCHED_ERROR).
#   `--errors` only concerns *response* violations (Prism's own answer not
#   matching the document): it turns them into 500 #VIOLATIONS problems.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! grep -q '^@stoplight/prism-cli@' tests/interop/packages.txt 2>/dev/null; then
    echo "prism.sh: tests/interop/packages.txt pins no @stoplight/prism-cli" >&2
    exit 1
fi
bash scripts/setup-interop.sh >&2
prism="$PWD/.interop/node_modules/.bin/prism"
if [ ! -x "$prism" ]; then
    echo "prism.sh: $prism missing after setup-interop (is npm installed?)" >&2
    exit 1
fi
if [ "$#" -eq 0 ]; then
    echo "$prism"
    exit 0
fi
exec "$prism" "$@"
