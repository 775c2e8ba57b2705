//! The event catalog: every event type with the JSON Schema of the webhook body it sends and a
//! complete example body. Both are derived from the types the API documents (`Run`, `Article`,
//! `DriftReport` and their OpenAPI examples), so the catalog cannot drift from what is sent.
//! The API's `GET /v1/event-types`, the portal's console and test events all read it here.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use api_types::{Article, DriftReport, EventTypeInfo, Run};
use domain::{EventId, EventType, Timestamp, WorkspaceId};
use serde_json::{Value, json};
use utoipa::{PartialSchema, ToSchema};

/// The example event's id, workspace and time (the data's ids come from the types' examples).
const EXAMPLE_EVENT: &str = "evt_01933b5f8c9d7c3e9d1f2a4b6c8d0e24";
const EXAMPLE_WORKSPACE: &str = "ws_01933b5e8f7a7c3e9d1f2a4b6c8d0e1f";
const EXAMPLE_TIME: &str = "2026-11-23T10:15:30.123Z";

static CATALOG: LazyLock<Vec<EventTypeInfo>> =
    LazyLock::new(|| EventType::ALL.iter().map(|t| entry(*t)).collect());

/// Every event type, in the order of [`EventType::ALL`].
pub fn event_catalog() -> &'static [EventTypeInfo] {
    &CATALOG
}

/// The catalog entry of one event type.
pub fn event_type_info(event_type: EventType) -> &'static EventTypeInfo {
    let index = EventType::ALL
        .iter()
        .position(|t| *t == event_type)
        .unwrap_or_default();
    &CATALOG[index]
}

/// When the event is emitted, and what its `data` is.
fn describe(event_type: EventType) -> &'static str {
    match event_type {
        EventType::RunCompleted => {
            "A run succeeded (when it was triggered with notify_on_complete). data: the Run."
        }
        EventType::RunFailed => {
            "A run failed (when it was triggered with notify_on_complete). data: the Run, with its error."
        }
        EventType::ArticleDrafted => {
            "A run wrote a new version of an article. data: the Article, without mdx_body."
        }
        EventType::ArticlePublished => {
            "An article's status changed to published. data: the Article, without mdx_body."
        }
        EventType::DriftDetected => {
            "A source of an article changed since its current version (once per article and HEAD commit). data: the drift report."
        }
    }
}

fn entry(event_type: EventType) -> EventTypeInfo {
    let (data_schema, defs) = match event_type {
        EventType::RunCompleted | EventType::RunFailed => schema_of::<Run>(),
        EventType::ArticleDrafted | EventType::ArticlePublished => {
            let (mut schema, defs) = schema_of::<Article>();
            without_property(&mut schema, "mdx_body");
            (schema, defs)
        }
        EventType::DriftDetected => schema_of::<DriftReport>(),
    };
    let inline = |schema| serde_json::to_value(schema).unwrap_or_default();
    let (id, workspace_id, timestamp) = (
        inline(EventId::schema()),
        inline(WorkspaceId::schema()),
        inline(Timestamp::schema()),
    );
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": format!("{event_type} webhook body"),
        "type": "object",
        "required": ["id", "type", "timestamp", "workspace_id", "data"],
        "properties": {
            "id": id,
            "type": {"const": event_type.as_str()},
            "timestamp": timestamp,
            "workspace_id": workspace_id,
            "data": data_schema,
        },
        "$defs": defs,
    });
    EventTypeInfo {
        event_type,
        description: describe(event_type).to_owned(),
        schema,
        example: json!({
            "id": EXAMPLE_EVENT,
            "type": event_type.as_str(),
            "timestamp": EXAMPLE_TIME,
            "workspace_id": EXAMPLE_WORKSPACE,
            "data": example_data(event_type),
        }),
    }
}

/// The example `data` of an event type: the example of its type in the API's documentation,
/// adjusted to what the event says (a failed run, a draft, no article body).
pub fn example_data(event_type: EventType) -> Value {
    let mut data = match event_type {
        EventType::RunCompleted | EventType::RunFailed => example_of::<Run>(),
        EventType::ArticleDrafted | EventType::ArticlePublished => example_of::<Article>(),
        EventType::DriftDetected => example_of::<DriftReport>(),
    };
    if let Some(fields) = data.as_object_mut() {
        fields.remove("mdx_body");
        match event_type {
            EventType::RunFailed => {
                fields.insert("status".into(), json!("failed"));
                fields.insert("artifacts".into(), json!([]));
                fields.insert(
                    "error".into(),
                    json!("render failed: the template dev-docs.mdx.j2 does not parse"),
                );
            }
            EventType::ArticleDrafted => {
                fields.insert("status".into(), json!("draft"));
                fields.insert("public_url".into(), Value::Null);
                fields.insert("published_version".into(), Value::Null);
            }
            _ => {}
        }
    }
    data
}

/// The body of a test event of `event_type` for `workspace`: the example, recorded now, with
/// `"test": true` in its `data` (and the workspace's id where the example has one).
pub fn test_event_data(event_type: EventType, workspace: WorkspaceId) -> Value {
    let mut data = example_data(event_type);
    if let Some(fields) = data.as_object_mut() {
        if fields.contains_key("workspace_id") {
            fields.insert("workspace_id".into(), json!(workspace));
        }
        fields.insert("test".into(), Value::Bool(true));
    }
    data
}

/// The example a type's schema carries (`examples[0]`, or `example`).
fn example_of<T: PartialSchema>() -> Value {
    let schema = serde_json::to_value(T::schema()).unwrap_or_default();
    schema
        .pointer("/examples/0")
        .or_else(|| schema.get("example"))
        .cloned()
        .unwrap_or_else(|| json!({}))
}

/// A type's schema and the schemas it refers to, as JSON Schema: references point into
/// `$defs` instead of the OpenAPI document's components.
fn schema_of<T: ToSchema>() -> (Value, BTreeMap<String, Value>) {
    let mut referenced = Vec::new();
    T::schemas(&mut referenced);
    let mut defs = BTreeMap::new();
    for (name, schema) in referenced {
        let mut schema = serde_json::to_value(schema).unwrap_or_default();
        to_json_schema_refs(&mut schema);
        defs.insert(name, schema);
    }
    let mut root = serde_json::to_value(T::schema()).unwrap_or_default();
    to_json_schema_refs(&mut root);
    (root, defs)
}

/// Rewrites `#/components/schemas/X` references to `#/$defs/X`.
fn to_json_schema_refs(value: &mut Value) {
    match value {
        Value::Object(map) => {
            if let Some(Value::String(target)) = map.get_mut("$ref")
                && let Some(name) = target.strip_prefix("#/components/schemas/")
            {
                *target = format!("#/$defs/{name}");
            }
            map.values_mut().for_each(to_json_schema_refs);
        }
        Value::Array(items) => items.iter_mut().for_each(to_json_schema_refs),
        _ => {}
    }
}

/// Drops a property from an object schema (and from its `required` list and example).
fn without_property(schema: &mut Value, name: &str) {
    if let Some(Value::Object(properties)) = schema.get_mut("properties") {
        properties.remove(name);
    }
    if let Some(Value::Array(required)) = schema.get_mut("required") {
        required.retain(|r| r != name);
    }
    if let Some(Value::Array(examples)) = schema.get_mut("examples") {
        for example in examples {
            if let Some(fields) = example.as_object_mut() {
                fields.remove(name);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_event_type_has_a_self_contained_schema_and_an_example_of_its_data() {
        assert_eq!(event_catalog().len(), EventType::ALL.len());
        for info in event_catalog() {
            let text = info.schema.to_string();
            assert!(!text.contains("#/components/"), "{text}");
            for reference in text.split("\"$ref\":\"#/$defs/").skip(1) {
                let name = reference.split('"').next().unwrap_or_default();
                assert!(
                    info.schema["$defs"].get(name).is_some(),
                    "{} refers to a missing {name}",
                    info.event_type
                );
            }
            assert_eq!(info.example["type"], info.event_type.as_str());
            assert!(info.example["data"].is_object());
            assert!(info.example["data"].get("mdx_body").is_none());
        }
        let article = event_type_info(EventType::ArticleDrafted);
        assert!(article.schema["properties"]["data"]["properties"]["mdx_body"].is_null());
        assert_eq!(
            event_type_info(EventType::RunFailed).example["data"]["status"],
            "failed"
        );
    }

    #[test]
    fn test_event_data_is_marked_and_belongs_to_the_workspace() {
        let ws = WorkspaceId::generate();
        let data = test_event_data(EventType::RunCompleted, ws);
        assert_eq!(data["test"], true);
        assert_eq!(data["workspace_id"], ws.to_string());
        assert_eq!(test_event_data(EventType::DriftDetected, ws)["test"], true);
    }
}
