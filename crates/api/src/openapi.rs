//! The OpenAPI 3.1 document. Operations, parameters and schemas come from the handlers'
//! annotations (so the document cannot drift from the code); what every `/v1` operation shares
//! — the bearer scheme, the error responses, the request-id and rate-limit headers — is added
//! here once.

use serde_json::{Value, json};
use utoipa::OpenApi;

use crate::deprecation::Deprecation;
use crate::error::{ErrorEnvelope, ErrorType};

const DESCRIPTION: &str = include_str!("openapi_description.md");

#[derive(OpenApi)]
#[openapi(
    info(title = "Content Pipeline Service API", version = "1.0.0"),
    components(schemas(ErrorEnvelope, ErrorType)),
    tags(
        (name = "Workspaces", description = "Tenants; one repository each."),
        (name = "Articles", description = "Generated MDX articles and their versions."),
        (name = "Runs", description = "Pipeline runs and their structured logs."),
        (name = "Webhooks", description = "Subscriptions, deliveries and their attempts, the event catalog, test events, secret rotation, replay and recovery."),
        (name = "Tokens", description = "API tokens of a workspace (the portal's Settings → API tokens page)."),
        (name = "Members", description = "The people of a workspace and their roles (the portal's Settings → Members page)."),
        (name = "Forges", description = "GitHub, GitLab and Gitea/Forgejo webhooks in (pushes queue runs, pull requests a drift check), commit statuses out (the portal's Repository page)."),
        (name = "Service", description = "Health, metrics, documentation and published articles; no token needed."),
    )
)]
pub struct ApiDoc;

/// Links from the success responses of one operation: `parameter` of each of `targets` is the
/// `id` of the response's body.
struct Links {
    path: &'static str,
    method: &'static str,
    statuses: &'static [&'static str],
    parameter: &'static str,
    targets: &'static [&'static str],
}

/// From each operation that creates (or returns) a resource, `links` to the operations on it,
/// so a client or a stateful fuzzer can chain create → get → change → delete.
const LINKS: [Links; 9] = [
    Links {
        path: "/v1/workspaces",
        method: "post",
        statuses: &["201"],
        parameter: "id",
        targets: &["get_workspace", "delete_workspace"],
    },
    Links {
        path: "/v1/workspaces",
        method: "post",
        statuses: &["201"],
        parameter: "ws",
        targets: &[
            "list_runs",
            "trigger_run",
            "list_articles",
            "list_webhooks",
            "create_webhook",
            "list_tokens",
            "create_token",
            "list_members",
            "invite_member",
            "drift_check",
        ],
    },
    Links {
        path: "/v1/workspaces/{ws}/tokens",
        method: "post",
        statuses: &["201"],
        parameter: "id",
        targets: &["reissue_token", "revoke_token"],
    },
    Links {
        path: "/v1/workspaces/{ws}/runs",
        method: "post",
        statuses: &["200", "201"],
        parameter: "id",
        targets: &["get_run", "run_log"],
    },
    Links {
        path: "/v1/articles/{id}/regenerate",
        method: "post",
        statuses: &["200", "201"],
        parameter: "id",
        targets: &["get_run", "run_log"],
    },
    Links {
        path: "/v1/workspaces/{ws}/webhooks",
        method: "post",
        statuses: &["201"],
        parameter: "id",
        targets: &[
            "get_webhook",
            "update_webhook",
            "delete_webhook",
            "rotate_secret",
            "replay",
            "list_deliveries",
            "send_test_event",
            "recover",
        ],
    },
    Links {
        path: "/v1/webhooks/{id}/test",
        method: "post",
        statuses: &["201"],
        parameter: "id",
        targets: &["get_delivery", "list_attempts"],
    },
    Links {
        path: "/v1/webhooks/{id}/replay",
        method: "post",
        statuses: &["200"],
        parameter: "id",
        targets: &["get_delivery", "list_attempts"],
    },
    Links {
        path: "/v1/workspaces/{ws}/drift-check",
        method: "post",
        statuses: &["200", "202"],
        parameter: "id",
        targets: &["get_drift_check"],
    },
];

fn add_links(paths: &mut serde_json::Map<String, Value>) {
    for Links {
        path,
        method,
        statuses,
        parameter,
        targets,
    } in LINKS
    {
        for status in statuses {
            let Some(response) = paths
                .get_mut(path)
                .and_then(|item| item.get_mut(method))
                .and_then(|op| op.get_mut("responses"))
                .and_then(|r| r.get_mut(*status))
                .and_then(Value::as_object_mut)
            else {
                continue;
            };
            let links = response.entry("links").or_insert_with(|| json!({}));
            for target in targets {
                links[*target] = json!({
                    "operationId": target,
                    "parameters": {*parameter: "$response.body#/id"},
                });
            }
        }
    }
}

/// Appends to an error response's description a link to the catalogue entry of each error
/// type that answers with its status (`/docs/errors#<type>`).
fn link_error_types(code: &str, response: &mut serde_json::Map<String, Value>) {
    let links: Vec<String> = ErrorType::ALL
        .iter()
        .filter(|t| t.status_code().to_string() == code)
        .map(|t| format!("[`{0}`](/docs/errors#{0})", t.as_str()))
        .collect();
    if links.is_empty() {
        return;
    }
    if let Some(Value::String(description)) = response.get_mut("description") {
        description.push_str(&format!("\n\nError types: {}.", links.join(", ")));
    }
}

/// What a status means when the operation's annotation does not say.
fn describe(code: &str, method: &str) -> &'static str {
    let keyed = matches!(method, "post" | "patch");
    match code {
        "200" => "OK",
        "201" => "Created",
        "202" => "Accepted: not finished yet; poll the Location",
        "409" if keyed => {
            "conflict: the resource's state refuses the request (a deleted workspace, a quota, a duplicate); or idempotency_in_progress: a request with this Idempotency-Key is still being processed (see Retry-After)"
        }
        "409" => {
            "conflict: the resource's state refuses the request (a deleted workspace, a quota, a duplicate)"
        }
        "413" => "payload_too_large: the body exceeds 1 MiB",
        "415" => "unsupported_media_type: send the body as application/json",
        "422" if keyed => {
            "validation_failed: the body was refused (`param` names the field); or idempotency_key_reused: this Idempotency-Key was used with another request"
        }
        "422" => "validation_failed: the request was refused (`param` names the field)",
        _ => "See the error catalogue at /docs/errors",
    }
}

fn header(description: &str, schema: Value) -> Value {
    json!({"description": description, "schema": schema})
}

/// An optional parameter is absent, never `null` (there is no null in a query string or a
/// header: a client told it may be would send the text `null`), so the `Option` of its Rust
/// type leaves no `"null"` in its schema's type.
fn never_null(param: &mut Value) {
    let Some(Value::Array(types)) = param.pointer_mut("/schema/type") else {
        return;
    };
    types.retain(|t| t != "null");
    if let [only] = types.as_slice() {
        let only = only.clone();
        param["schema"]["type"] = only;
    }
}

/// The shared responses and headers, merged into the generated document.
pub fn decorate(
    doc: utoipa::openapi::OpenApi,
    deprecations: &[Deprecation],
) -> Result<Value, serde_json::Error> {
    let mut doc = serde_json::to_value(doc)?;
    doc["info"]["description"] = json!(DESCRIPTION);
    // The document is served by the server it describes: paths are relative to it.
    doc["servers"] = json!([{"url": "/", "description": "This server"}]);
    doc["components"]["securitySchemes"]["bearer"] = json!({
        "type": "http", "scheme": "bearer", "bearerFormat": "cpt_<43 base62><6 base62 CRC32>",
        "description": "A workspace or platform token. Scopes form a ladder: read < write < publish < admin."
    });
    doc["components"]["headers"] = json!({
        "Request-Id": header("Our id of this request (`req_…`); equals `error.request_id`. Also sent as X-Request-Id.", json!({"type": "string"})),
        "RateLimit-Policy": header("`\"default\";q=<quota>;w=300`", json!({"type": "string"})),
        "RateLimit": header("`\"default\";r=<remaining>;t=<seconds until a slot frees>`", json!({"type": "string"})),
        "X-RateLimit-Limit": header("Requests allowed per 300 s window.", json!({"type": "integer"})),
        "X-RateLimit-Remaining": header("Requests left in the current window.", json!({"type": "integer"})),
        "X-RateLimit-Reset": header("Epoch seconds when a slot frees.", json!({"type": "integer"})),
        "Retry-After": header("Seconds to wait before retrying.", json!({"type": "integer", "minimum": 1})),
        "Idempotent-Replayed": header("`true` when the response is the stored result of an earlier request with the same Idempotency-Key.", json!({"type": "string", "enum": ["true"]})),
        "WWW-Authenticate": header("RFC 6750 challenge.", json!({"type": "string"})),
    });
    doc["components"]["parameters"] = json!({
        "Idempotency-Key": {
            "name": "Idempotency-Key", "in": "header", "required": false,
            "description": "Makes the request safe to retry for 24 h: a retry by the same token with the same key and body gets the stored response (`Idempotent-Replayed: true`); the same key with another body is 422, and while the first is in flight 409. Keys belong to the token that sends them: another token's request with the same key is processed on its own.",
            "schema": {"type": "string", "minLength": 1, "maxLength": 255},
        },
    });
    // What the derive cannot state about a publish target's credential: a `username` goes with
    // a `token`, and a token and a generated deploy key exclude each other. A `null` is the same
    // as leaving the field out, so only a string counts as given.
    let target = &mut doc["components"]["schemas"]["SetPublishTarget"];
    target["if"] = json!({
        "required": ["username"],
        "properties": {"username": {"type": "string"}},
    });
    target["then"] = json!({
        "required": ["token"],
        "properties": {"token": {"type": "string"}},
    });
    target["not"] = json!({
        "required": ["token", "generate_deploy_key"],
        "properties": {"token": {"type": "string"}, "generate_deploy_key": {"const": true}},
    });
    let error_body =
        json!({"application/json": {"schema": {"$ref": "#/components/schemas/ErrorEnvelope"}}});
    let common = [
        (
            "400",
            "invalid_request: a malformed query parameter, cursor or header",
        ),
        (
            "401",
            "unauthenticated: missing, malformed, unknown or revoked token",
        ),
        ("403", "insufficient_scope: the token's scope is too low"),
        (
            "404",
            "not_found: no such resource, or one of another workspace",
        ),
        ("429", "rate_limited: quota exceeded; see Retry-After"),
        ("500", "internal_error"),
    ];
    let header_ref = |name: &str| json!({"$ref": format!("#/components/headers/{name}")});
    let Some(paths) = doc["paths"].as_object_mut() else {
        return Ok(doc);
    };
    for (path, item) in paths.iter_mut() {
        let Some(item) = item.as_object_mut() else {
            continue;
        };
        for (method, op) in item.iter_mut() {
            if let Some(Value::Array(params)) = op.get_mut("parameters") {
                params.iter_mut().for_each(never_null);
            }
            // Every POST and PATCH with a bearer token goes through the one idempotency layer
            // (a forge's webhook has none: its delivery id makes redeliveries harmless).
            let keyed = op.get("security") != Some(&json!([{}]));
            if keyed && matches!(method.as_str(), "post" | "patch") {
                let params = op
                    .as_object_mut()
                    .map(|o| o.entry("parameters").or_insert_with(|| json!([])));
                if let Some(Value::Array(params)) = params {
                    params.push(json!({"$ref": "#/components/parameters/Idempotency-Key"}));
                }
            }
            let has_body = op.get("requestBody").is_some();
            let Some(responses) = op["responses"].as_object_mut() else {
                continue;
            };
            for (code, text) in common {
                responses
                    .entry(code)
                    .or_insert_with(|| json!({"description": text, "content": error_body.clone()}));
            }
            // A keyed POST or PATCH can always meet its key in flight or with another body.
            if matches!(method.as_str(), "post" | "patch") {
                for code in ["409", "413", "415", "422"] {
                    responses
                        .entry(code)
                        .or_insert_with(|| json!({"content": error_body.clone()}));
                }
            }
            // Any other operation with a body (PUT) can meet the same refusals of its body.
            if has_body {
                for code in ["413", "415", "422"] {
                    responses
                        .entry(code)
                        .or_insert_with(|| json!({"content": error_body.clone()}));
                }
            }
            for (code, response) in responses.iter_mut() {
                let Some(resp) = response.as_object_mut() else {
                    continue;
                };
                // Every response object needs a description (OpenAPI 3.1, 4.8.17.1).
                let described = resp
                    .get("description")
                    .and_then(Value::as_str)
                    .is_some_and(|d| !d.is_empty());
                if !described {
                    resp.insert("description".into(), json!(describe(code, method)));
                }
                link_error_types(code, resp);
                let headers = resp.entry("headers").or_insert_with(|| json!({}));
                let mut names = vec![
                    "Request-Id",
                    "RateLimit-Policy",
                    "RateLimit",
                    "X-RateLimit-Limit",
                    "X-RateLimit-Remaining",
                    "X-RateLimit-Reset",
                ];
                match code.as_str() {
                    "429" => names.push("Retry-After"),
                    "401" | "403" => names.push("WWW-Authenticate"),
                    "409" => names.push("Retry-After"),
                    c if c.starts_with('2') && matches!(method.as_str(), "post" | "patch") => {
                        names.push("Idempotent-Replayed")
                    }
                    _ => {}
                }
                for name in names {
                    headers[name] = header_ref(name);
                }
            }
            if deprecations.iter().any(|d| d.matches(method, path)) {
                op["deprecated"] = json!(true);
            }
        }
    }
    add_links(paths);
    for (path, mut op) in unauthenticated_operations() {
        // An id from the path: `/healthz` → `healthz`, `/docs/errors` → `docs_errors`.
        let id: String = path
            .trim_start_matches('/')
            .replace(['/', '.'], "_")
            .replace(['{', '}'], "");
        op["operationId"] = json!(id);
        paths.insert(path.to_owned(), json!({"get": op}));
    }
    Ok(doc)
}

/// The routes outside `/v1` (`routes::meta`): no token, no rate limit, no shared headers.
fn unauthenticated_operations() -> [(&'static str, Value); 7] {
    let op = |summary: &str, description: &str, content: Value| {
        json!({
            "tags": ["Service"], "summary": summary, "description": description,
            "security": [],
            "responses": {"200": {"description": "OK", "content": content}},
        })
    };
    let status = |value: &str| {
        json!({"application/json": {"schema": {"type": "object",
            "properties": {"status": {"type": "string", "enum": [value]}}}}})
    };
    let text = |media: &str| json!({media: {"schema": {"type": "string"}}});
    let mut readyz = op(
        "Readiness",
        "200 when the database answers, else 503 service_unavailable.",
        status("ready"),
    );
    readyz["responses"]["503"] = json!({"description": "service_unavailable",
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorEnvelope"}}}});
    let mut published = op(
        "A published article",
        "The article's published version; the article's `public_url` points here. An HTML page (the published site: the MDX rendered and sanitised, images served from the repository at the version's commit) unless the `Accept` header ranks `text/markdown` above `text/html`, or the path ends in `.mdx` (`/published/{id}.mdx`): then the MDX itself, as text with `X-Content-Type-Options: nosniff` and `Content-Security-Policy: default-src 'none'; sandbox`, so no browser renders or runs it. Either answer has `Vary: Accept`.",
        json!({
            "text/html": {"schema": {"type": "string"}},
            "text/markdown": {"schema": {"type": "string"}},
        }),
    );
    published["parameters"] =
        json!([{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}]);
    published["responses"]["404"] = json!({"description": "not_found: no such article, or it is not published (an HTML page, or the error envelope for a client that asked for MDX)",
    "content": {
        "text/html": {"schema": {"type": "string"}},
        "application/json": {"schema": {"$ref": "#/components/schemas/ErrorEnvelope"}},
    }});
    [
        (
            "/healthz",
            op(
                "Liveness",
                "200 while the process serves requests.",
                status("ok"),
            ),
        ),
        ("/readyz", readyz),
        (
            "/metrics",
            op(
                "Prometheus metrics",
                "Request counts and latencies per route and status, in the Prometheus text format.",
                text("text/plain"),
            ),
        ),
        (
            "/openapi.json",
            op(
                "This document",
                "The OpenAPI 3.1 description of the API.",
                json!({"application/json": {"schema": {"type": "object"}}}),
            ),
        ),
        (
            "/docs",
            op(
                "API reference",
                "A readable rendering of this document.",
                text("text/html"),
            ),
        ),
        (
            "/docs/errors",
            op(
                "Error catalogue",
                "One section per error type, anchored by the type (`/docs/errors#not_found`); every error's `docs` links here.",
                text("text/html"),
            ),
        ),
        ("/published/{id}", published),
    ]
}

/// RapiDoc, served from the binary at [`RAPIDOC_PATH`] (see `assets/README.md`).
pub const RAPIDOC: &[u8] = include_bytes!("../assets/rapidoc-9.3.8.min.js");
/// Versioned, so it can be cached for good.
pub const RAPIDOC_PATH: &str = "/docs/assets/rapidoc-9.3.8.min.js";
/// What `/docs` may load: only this server. RapiDoc styles its web components inline, and
/// "try it" calls this server's API.
pub const DOCS_CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; \
     img-src 'self' data:; font-src 'self' data:; connect-src 'self'; base-uri 'none'; \
     form-action 'none'; frame-ancestors 'none'";

/// `/docs`: the interactive reference of the document (RapiDoc: "try it" with a pasted bearer
/// token against this server), with the same reference as plain HTML for readers without
/// JavaScript. `load-fonts="false"` and the empty icon keep the browser from asking for what
/// the policy refuses (RapiDoc's Open Sans from Google) or the server lacks (`/favicon.ico`):
/// the browser test of this page fails on any error the browser reports.
pub fn reference_html(doc: &Value) -> String {
    let esc = |s: &str| {
        s.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
    };
    let mut out = format!(
        "<!doctype html><html><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>Content Pipeline API reference</title>\
         <link rel=\"icon\" href=\"data:,\">\
         <script type=\"module\" src=\"{RAPIDOC_PATH}\"></script>\
         <style>body{{margin:0;font-family:system-ui,sans-serif}}\
         noscript{{display:block;max-width:60rem;margin:2rem auto;padding:0 1rem}}\
         code,pre{{background:#f4f4f4;padding:.1rem .3rem}}h3{{margin-top:2rem}}</style></head><body>\
         <rapi-doc spec-url=\"/openapi.json\" render-style=\"read\" allow-try=\"true\" \
         allow-authentication=\"true\" allow-server-selection=\"false\" show-header=\"false\" \
         regular-font=\"system-ui, sans-serif\" mono-font=\"ui-monospace, monospace\" \
         schema-description-expanded=\"true\" persist-auth=\"false\" load-fonts=\"false\"></rapi-doc>\
         <noscript><h1>Content Pipeline API reference</h1><p>Machine-readable: <a href=\"/openapi.json\">/openapi.json</a>. \
         Errors: <a href=\"/docs/errors\">/docs/errors</a>.</p>"
    );
    if let Some(desc) = doc["info"]["description"].as_str() {
        out.push_str(&format!(
            "<pre style=\"white-space:pre-wrap\">{}</pre>",
            esc(desc)
        ));
    }
    if let Some(paths) = doc["paths"].as_object() {
        for (path, item) in paths {
            let Some(item) = item.as_object() else {
                continue;
            };
            for (method, op) in item {
                let summary = op["summary"].as_str().unwrap_or("");
                let description = op["description"].as_str().unwrap_or("");
                let scopes = op["security"][0]["bearer"]
                    .as_array()
                    .map(|a| {
                        a.iter()
                            .filter_map(|s| s.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    })
                    .unwrap_or_default();
                out.push_str(&format!(
                    "<h3><code>{} {}</code> — {}</h3><p>{}</p><p>Scope: <code>{}</code></p>",
                    method.to_uppercase(),
                    esc(path),
                    esc(summary),
                    esc(description),
                    esc(&scopes)
                ));
            }
        }
    }
    out.push_str("</noscript></body></html>");
    out
}
