//! A pack's tools: each one's name, description and JSON Schema for its arguments.

use indexmap::IndexMap;

use crate::doc::{Node, UnknownKeys};

use crate::pack::model::*;

use super::document::{Resolver, entries, ptr};

impl Resolver<'_> {
    pub(super) fn tools(&mut self, node: &Node) -> IndexMap<String, ToolDef> {
        let mut out = IndexMap::new();
        if self.cx.map(node, "/tools").is_none() {
            return out;
        }
        for (key, value) in entries(node) {
            let at = ptr("/tools", &key.name);
            let Some(mut f) = self.cx.map(value, &at) else {
                continue;
            };
            let name = self.required_string(&mut f, value, &at, "name");
            if let Some(name) = &name
                && *name != key.name
            {
                self.cx.error(
                    f.get("name").map_or(value.pos, |n| n.pos),
                    format!(
                        "{at}/name: `{name}` differs from the key `{}` it is listed under",
                        key.name
                    ),
                );
            }
            let description = self.required_string(&mut f, value, &at, "description");
            let parameters = match f.get("parameters") {
                Some(p) => {
                    self.cx.map(p, &ptr(&at, "parameters"));
                    p.to_json()
                }
                None => serde_json::json!({"type": "object"}),
            };
            let output_schema = f.get("output_schema").map(|o| {
                self.cx.map(o, &ptr(&at, "output_schema"));
                o.to_json()
            });
            self.cx.ignored_keys(&mut f, &["action_scope"], &at);
            self.cx.unknown_keys(&f, &at, UnknownKeys::Error);
            if let (Some(_), Some(description)) = (name, description) {
                out.insert(
                    key.name.clone(),
                    ToolDef {
                        name: key.name.clone(),
                        description,
                        parameters,
                        output_schema,
                        pos: key.pos,
                    },
                );
            }
        }
        out
    }
}
