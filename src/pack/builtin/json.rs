//! Checks on JSON in the assistant's text.

use serde_json::{Value as Json, json};

use super::Scored;
use super::{Judge, JudgeError, ParamError, Params, same, verdict};

const FIND: [&[&str]; 2] = [&["allow_wrapped"], &["extract_json"]];

/// Where the JSON is in the text: all of it; or, when allowed, inside a ```json
/// fence or the first JSON object or array in it.
struct Finder {
    allow_wrapped: bool,
    extract: bool,
}

impl Finder {
    fn new(p: &Params) -> Result<Self, ParamError> {
        Ok(Self {
            allow_wrapped: p.boolean(&["allow_wrapped"])?.unwrap_or(false),
            extract: p.boolean(&["extract_json"])?.unwrap_or(false),
        })
    }

    fn find(&self, text: &str) -> Result<Json, NotJson> {
        let whole = match serde_json::from_str::<Json>(text.trim()) {
            Ok(value) => return Ok(value),
            Err(err) => err,
        };
        if self.allow_wrapped
            && let Some(inner) = fenced(text)
            && let Ok(value) = serde_json::from_str::<Json>(inner.trim())
        {
            return Ok(value);
        }
        if self.extract
            && let Some(value) = first_value(text)
        {
            return Ok(value);
        }
        Err(NotJson(whole))
    }
}

/// No JSON where it was looked for; the parse error is the whole text's.
#[derive(Debug, thiserror::Error)]
#[error("not JSON: {0}")]
struct NotJson(serde_json::Error);

/// The inside of the first ``` fence (with or without a `json` tag).
fn fenced(text: &str) -> Option<&str> {
    let start = text.find("```")? + 3;
    let rest = &text[start..];
    let rest = match rest.get(..4) {
        Some(tag) if tag.eq_ignore_ascii_case("json") => &rest[4..],
        _ => rest,
    };
    let end = rest.find("```")?;
    Some(&rest[..end])
}

/// The first object or array that parses, wherever it starts.
fn first_value(text: &str) -> Option<Json> {
    text.char_indices()
        .filter(|(_, c)| *c == '{' || *c == '[')
        .find_map(|(i, _)| {
            serde_json::Deserializer::from_str(&text[i..])
                .into_iter::<Json>()
                .next()?
                .ok()
        })
}

/// `json_valid`: the content is JSON.
pub(super) fn valid(check: &str, params: &Json) -> Result<Judge, ParamError> {
    let p = Params::new(check, params, &FIND)?;
    let finder = Finder::new(&p)?;
    Ok(Box::new(move |input| {
        let found = finder.find(&input.content);
        Ok(verdict(
            found.is_ok(),
            "valid JSON".into(),
            found
                .as_ref()
                .err()
                .map(ToString::to_string)
                .unwrap_or_default(),
            Json::Null,
        ))
    }))
}

/// `json_schema`: the content is JSON that the `schema` accepts.
pub(super) fn schema(check: &str, params: &Json) -> Result<Judge, ParamError> {
    let p = Params::new(check, params, &[&["schema"], FIND[0], FIND[1]])?;
    let schema = p
        .object(&["schema"])?
        .ok_or_else(|| p.missing(&["schema"], "a JSON Schema object"))?;
    let validator =
        jsonschema::validator_for(&Json::Object(schema)).map_err(|e| ParamError::Schema {
            check: check.into(),
            reason: e.to_string(),
        })?;
    let finder = Finder::new(&p)?;
    Ok(Box::new(move |input| {
        let value = match finder.find(&input.content) {
            Ok(value) => value,
            Err(why) => return Ok(verdict(false, String::new(), why.to_string(), Json::Null)),
        };
        let errors: Vec<String> = validator
            .iter_errors(&value)
            .map(|e| {
                let at = e.instance_path().to_string();
                format!("{}: {e}", if at.is_empty() { "/" } else { &at })
            })
            .collect();
        Ok(verdict(
            errors.is_empty(),
            "the JSON matches the schema".into(),
            errors.join("; "),
            json!({ "errors": errors }),
        ))
    }))
}

/// `json_path`: a JMESPath `expression` over the content's JSON, then, in order,
/// `expected` (equal), `contains` (each item in the result list), `min`/`max` (a
/// number in range) and `min_results`/`max_results` (the list's length).
pub(super) fn path(check: &str, params: &Json) -> Result<Judge, ParamError> {
    let expression_names = ["expression", "jmespath_expression"];
    let p = Params::new(
        check,
        params,
        &[
            &expression_names,
            &["expected"],
            &["contains"],
            &["min"],
            &["max"],
            &["min_results"],
            &["max_results"],
            FIND[0],
            FIND[1],
        ],
    )?;
    let source = p.required_string(&expression_names)?;
    let expression = jmespath::compile(&source).map_err(|error| ParamError::Expression {
        check: check.into(),
        error: Box::new(error),
    })?;
    let expected = p.value(&["expected"]);
    let contains = match p.value(&["contains"]) {
        None => None,
        Some(Json::Array(items)) => Some(items),
        Some(other) => {
            return Err(ParamError::ContainsNotAList {
                check: check.into(),
                found: other,
            });
        }
    };
    let want = PathWant {
        expected,
        contains,
        min: p.number(&["min"])?,
        max: p.number(&["max"])?,
        min_results: p.count(&["min_results"])?,
        max_results: p.count(&["max_results"])?,
    };
    let finder = Finder::new(&p)?;
    Ok(Box::new(move |input| {
        let value = match finder.find(&input.content) {
            Ok(value) => value,
            Err(why) => return Ok(verdict(false, String::new(), why.to_string(), Json::Null)),
        };
        let found = expression
            .search(&value)
            .map_err(|e| JudgeError::Search(Box::new(e)))?;
        let found = serde_json::to_value(&*found)
            .map_err(|e| JudgeError::Unrepresentable(e.to_string()))?;
        let data = json!({ "result": found });
        if let Some(why) = want.miss(&source, &found) {
            return Ok(verdict(false, String::new(), why, data));
        }
        Ok(Scored {
            score: 1.0,
            detail: format!("`{source}` is {found}"),
            data,
        })
    }))
}

/// What `json_path` asks of the expression's result.
struct PathWant {
    expected: Option<Json>,
    contains: Option<Vec<Json>>,
    min: Option<f64>,
    max: Option<f64>,
    min_results: Option<u64>,
    max_results: Option<u64>,
}

impl PathWant {
    /// The first expectation `found` (the result of `source`) misses, in the order
    /// `json_path` documents them, as what is said of it.
    fn miss(&self, source: &str, found: &Json) -> Option<String> {
        let (min, max) = (self.min, self.max);
        if let Some(expected) = &self.expected
            && !same(found, expected)
        {
            return Some(format!("`{source}` is {found}, expected {expected}"));
        }
        if let Some(items) = &self.contains {
            let list = found.as_array().cloned().unwrap_or_default();
            if let Some(missing) = items.iter().find(|i| !list.iter().any(|f| same(f, i))) {
                return Some(format!("`{source}` does not contain {missing}"));
            }
        }
        if min.is_some() || max.is_some() {
            let Some(n) = found.as_f64() else {
                return Some(format!("`{source}` is {found}, not a number"));
            };
            if min.is_some_and(|m| n < m) || max.is_some_and(|m| n > m) {
                return Some(format!(
                    "`{source}` is {n}, outside [{}, {}]",
                    min.map_or("-inf".into(), |m| m.to_string()),
                    max.map_or("inf".into(), |m| m.to_string())
                ));
            }
        }
        let (min_results, max_results) = (self.min_results, self.max_results);
        if min_results.is_some() || max_results.is_some() {
            let count = found.as_array().map_or(0, Vec::len) as u64;
            if min_results.is_some_and(|m| count < m) || max_results.is_some_and(|m| count > m) {
                return Some(format!("`{source}` has {count} results"));
            }
        }
        None
    }
}

/// `field_presence`: every one of `fields` is present. In a JSON object answer a
/// field is a key path (`a.b`); in any other answer it is text, found whatever its
/// case.
pub(super) fn field_presence(check: &str, params: &Json) -> Result<Judge, ParamError> {
    let p = Params::new(check, params, &[&["fields", "required_fields"]])?;
    let fields = p.required_strings(&["fields", "required_fields"])?;
    Ok(Box::new(move |input| {
        let document: Option<Json> = serde_json::from_str(input.content.trim())
            .ok()
            .filter(Json::is_object);
        let present = |field: &String| match &document {
            Some(doc) => field
                .split('.')
                .try_fold(doc, |node, key| node.get(key))
                .is_some(),
            None => input.content.to_lowercase().contains(&field.to_lowercase()),
        };
        let missing: Vec<&str> = fields
            .iter()
            .filter(|f| !present(f))
            .map(String::as_str)
            .collect();
        let share = (fields.len() - missing.len()) as f64 / fields.len() as f64;
        Ok(Scored {
            score: share,
            detail: if missing.is_empty() {
                "every field is present".into()
            } else {
                format!("missing: {}", missing.join(", "))
            },
            data: json!({ "missing": missing, "json": document.is_some() }),
        })
    }))
}
