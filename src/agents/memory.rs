//! The memory tools PromptKit offers when an Arena config enables `memory`:
//! `memory__remember`, `memory__recall`, `memory__list` and `memory__forget`, over
//! an in-memory store of the conversation (ids `mem_1`, `mem_2`, ... in order).

use serde_json::{Map, Value as Json, json};

use super::{CallError, OfferedTool, object_args, string_arg};

const RECALL: &str = "memory__recall";
const REMEMBER: &str = "memory__remember";
const LIST: &str = "memory__list";
const FORGET: &str = "memory__forget";

/// At most this many memories are answered when `limit` is not given.
const DEFAULT_LIMIT: usize = 10;

#[derive(Debug, Clone, PartialEq)]
struct Memory {
    id: String,
    kind: String,
    content: String,
    confidence: f64,
    metadata: Map<String, Json>,
}

impl Memory {
    fn to_json(&self) -> Json {
        let mut out = json!({
            "id": self.id,
            "type": self.kind,
            "content": self.content,
            "confidence": self.confidence,
        });
        if !self.metadata.is_empty() {
            out["metadata"] = Json::Object(self.metadata.clone());
        }
        out
    }
}

/// One conversation's memories, in the order they were saved.
#[derive(Debug, Default)]
pub(crate) struct MemoryStore {
    memories: Vec<Memory>,
    next_id: u64,
}

/// The four memory tools, as the model is shown them.
pub(super) fn tools() -> Vec<OfferedTool> {
    let strings = json!({"type": "array", "items": {"type": "string"}});
    vec![
        OfferedTool {
            name: RECALL.into(),
            description: "Search your memories for facts, preferences or context from earlier."
                .into(),
            input_schema: json!({"type": "object", "properties": {
                "query": {"type": "string"}, "types": strings,
                "limit": {"type": "integer"}, "min_confidence": {"type": "number"}},
                "required": ["query"]}),
        },
        OfferedTool {
            name: REMEMBER.into(),
            description: "Store something in memory: a preference, a fact or a decision.".into(),
            input_schema: json!({"type": "object", "properties": {
                "content": {"type": "string"}, "type": {"type": "string"},
                "confidence": {"type": "number"}, "category": {"type": "string"},
                "metadata": {"type": "object"}},
                "required": ["content"]}),
        },
        OfferedTool {
            name: LIST.into(),
            description: "List stored memories, optionally of some types only.".into(),
            input_schema: json!({"type": "object", "properties": {
                "types": strings, "limit": {"type": "integer"}, "offset": {"type": "integer"}}}),
        },
        OfferedTool {
            name: FORGET.into(),
            description: "Delete one memory by its id.".into(),
            input_schema: json!({"type": "object", "properties": {
                "memory_id": {"type": "string"}}, "required": ["memory_id"]}),
        },
    ]
}

fn number_arg(tool: &str, args: &Json, key: &'static str) -> Result<Option<f64>, CallError> {
    match args.get(key) {
        None | Some(Json::Null) => Ok(None),
        Some(value) => value.as_f64().map(Some).ok_or(CallError::WrongType {
            tool: tool.into(),
            key,
            what: "a number",
        }),
    }
}

fn types_arg(tool: &str, args: &Json) -> Result<Vec<String>, CallError> {
    let wrong = || CallError::WrongType {
        tool: tool.into(),
        key: "types",
        what: "a list of strings",
    };
    match args.get("types") {
        None | Some(Json::Null) => Ok(Vec::new()),
        Some(Json::Array(items)) => items
            .iter()
            .map(|i| i.as_str().map(str::to_owned).ok_or_else(wrong))
            .collect(),
        Some(_) => Err(wrong()),
    }
}

/// A count argument: a positive limit or offset (0 or less reads as not given).
fn count_arg(tool: &str, args: &Json, key: &'static str) -> Result<usize, CallError> {
    Ok(number_arg(tool, args, key)?.map_or(0, |n| if n > 0.0 { n as usize } else { 0 }))
}

impl MemoryStore {
    /// The answer to a call of `tool`, or `None` when it is no memory tool.
    pub(crate) fn call(&mut self, tool: &str, args: &Json) -> Option<Result<Json, CallError>> {
        let answer = match tool {
            RECALL => self.recall(args),
            REMEMBER => self.remember(args),
            LIST => self.list(args),
            FORGET => self.forget(args),
            _ => return None,
        };
        Some(answer)
    }

    fn matching<'a>(
        &'a self,
        types: &'a [String],
        min_confidence: f64,
    ) -> impl Iterator<Item = &'a Memory> + 'a {
        self.memories.iter().filter(move |m| {
            (types.is_empty() || types.contains(&m.kind))
                && (min_confidence <= 0.0 || m.confidence >= min_confidence)
        })
    }

    fn answer(found: Vec<&Memory>) -> Json {
        json!({
            "memories": found.iter().map(|m| m.to_json()).collect::<Vec<_>>(),
            "count": found.len(),
        })
    }

    /// Memories whose content holds `query` (case-insensitive; an empty query
    /// matches all), filtered by `types` and `min_confidence`, at most `limit`.
    fn recall(&self, args: &Json) -> Result<Json, CallError> {
        object_args(RECALL, args)?;
        let query = string_arg(RECALL, args, "query")?
            .unwrap_or_default()
            .to_lowercase();
        let types = types_arg(RECALL, args)?;
        let min = number_arg(RECALL, args, "min_confidence")?.unwrap_or(0.0);
        let limit = match count_arg(RECALL, args, "limit")? {
            0 => DEFAULT_LIMIT,
            n => n,
        };
        let found: Vec<&Memory> = self
            .matching(&types, min)
            .filter(|m| query.is_empty() || m.content.to_lowercase().contains(&query))
            .take(limit)
            .collect();
        Ok(Self::answer(found))
    }

    /// Saves `content` as a memory of `type` (default `general`) with
    /// `confidence` (default 0.8); arguments beyond the known ones join `metadata`.
    fn remember(&mut self, args: &Json) -> Result<Json, CallError> {
        let fields = object_args(REMEMBER, args)?;
        let content = string_arg(REMEMBER, args, "content")?
            .filter(|c| !c.is_empty())
            .ok_or(CallError::Required {
                tool: REMEMBER.into(),
                key: "content",
            })?;
        let kind = string_arg(REMEMBER, args, "type")?
            .filter(|t| !t.is_empty())
            .unwrap_or_else(|| "general".into());
        let confidence = number_arg(REMEMBER, args, "confidence")?
            .filter(|c| *c > 0.0)
            .unwrap_or(0.8);
        string_arg(REMEMBER, args, "category")?;
        let mut metadata = match args.get("metadata") {
            None | Some(Json::Null) => Map::new(),
            Some(Json::Object(map)) => map.clone(),
            Some(_) => {
                return Err(CallError::WrongType {
                    tool: REMEMBER.into(),
                    key: "metadata",
                    what: "an object",
                });
            }
        };
        const KNOWN: &[&str] = &["content", "type", "confidence", "category", "metadata"];
        for (key, value) in fields.into_iter().flatten() {
            if !KNOWN.contains(&key.as_str()) {
                metadata.insert(key.clone(), value.clone());
            }
        }
        self.next_id += 1;
        let id = format!("mem_{}", self.next_id);
        self.memories.push(Memory {
            id: id.clone(),
            kind,
            content,
            confidence,
            metadata,
        });
        Ok(json!({ "status": "remembered", "id": id }))
    }

    /// Memories of `types` in saved order, `offset` skipped, at most `limit`.
    fn list(&self, args: &Json) -> Result<Json, CallError> {
        object_args(LIST, args)?;
        let types = types_arg(LIST, args)?;
        let offset = count_arg(LIST, args, "offset")?;
        let limit = count_arg(LIST, args, "limit")?;
        let found: Vec<&Memory> = self
            .matching(&types, 0.0)
            .skip(offset)
            .take(if limit == 0 { usize::MAX } else { limit })
            .collect();
        Ok(Self::answer(found))
    }

    /// Deletes memory `memory_id`; an unknown id is no error.
    fn forget(&mut self, args: &Json) -> Result<Json, CallError> {
        object_args(FORGET, args)?;
        let id = string_arg(FORGET, args, "memory_id")?
            .filter(|i| !i.is_empty())
            .ok_or(CallError::Required {
                tool: FORGET.into(),
                key: "memory_id",
            })?;
        self.memories.retain(|m| m.id != id);
        Ok(json!({ "status": "forgotten", "memory_id": id }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(store: &mut MemoryStore, tool: &str, args: Json) -> Result<Json, CallError> {
        store.call(tool, &args).expect("a memory tool")
    }

    #[test]
    fn remembered_facts_are_recalled_listed_and_forgotten() {
        let mut s = MemoryStore::default();
        assert_eq!(
            call(
                &mut s,
                REMEMBER,
                json!({"content": "User prefers dark mode", "type": "preference", "confidence": 0.95})
            ),
            Ok(json!({"status": "remembered", "id": "mem_1"}))
        );
        call(
            &mut s,
            REMEMBER,
            json!({"content": "Name is Craig", "source": "chat"}),
        )
        .expect("saved");
        let recalled = call(&mut s, RECALL, json!({"query": "DARK"})).expect("recalled");
        assert_eq!(recalled["count"], 1);
        assert_eq!(recalled["memories"][0]["type"], "preference");
        let all = call(&mut s, RECALL, json!({"query": ""})).expect("recalled");
        assert_eq!(all["count"], 2);
        assert_eq!(
            all["memories"][1],
            json!({"id": "mem_2", "type": "general", "content": "Name is Craig", "confidence": 0.8, "metadata": {"source": "chat"}})
        );
        let prefs = call(&mut s, LIST, json!({"types": ["preference"]})).expect("listed");
        assert_eq!(prefs["count"], 1);
        call(&mut s, FORGET, json!({"memory_id": "mem_1"})).expect("forgotten");
        assert_eq!(call(&mut s, LIST, json!(null)).expect("listed")["count"], 1);
        assert_eq!(
            call(&mut s, RECALL, json!({"query": "x", "min_confidence": 0.9})).expect("ok")["count"],
            0
        );
    }

    #[test]
    fn bad_arguments_are_tool_errors() {
        let mut s = MemoryStore::default();
        assert!(matches!(
            call(&mut s, REMEMBER, json!({})),
            Err(CallError::Required { key: "content", .. })
        ));
        assert!(matches!(
            call(&mut s, FORGET, json!({"memory_id": 3})),
            Err(CallError::WrongType { .. })
        ));
        assert!(matches!(
            call(&mut s, RECALL, json!("q")),
            Err(CallError::NotAnObject { .. })
        ));
        assert_eq!(s.call("lookup_order", &json!({})), None);
        assert_eq!(tools().len(), 4);
    }
}
