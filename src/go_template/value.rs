//! Values as Go's `text/template` sees data decoded from JSON, and how `fmt` prints
//! them.

use std::borrow::Cow;

use serde_json::{Map, Value as Json};

/// A value; lists, maps and strings of the data are borrowed from it, never copied.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum V<'a> {
    /// A missing key under `missingkey=default`: prints `<no value>`, and its
    /// fields are no value too.
    NoValue,
    /// A nil interface (JSON `null`, a missing key under `missingkey=zero`, `nil`).
    Nil,
    Bool(bool),
    /// A number written in the template, or a length.
    Int(i64),
    /// Every JSON number.
    Float(f64),
    Str(Cow<'a, str>),
    List(&'a [Json]),
    Map(&'a Map<String, Json>),
}

impl<'a> V<'a> {
    pub(super) fn from_json(value: &'a Json) -> V<'a> {
        match value {
            Json::Null => V::Nil,
            Json::Bool(b) => V::Bool(*b),
            Json::Number(n) => V::Float(n.as_f64().unwrap_or(0.0)),
            Json::String(s) => V::Str(Cow::Borrowed(s)),
            Json::Array(items) => V::List(items),
            Json::Object(map) => V::Map(map),
        }
    }

    /// Go's name for the value's type, as its messages give it.
    pub(super) fn type_name(&self) -> &'static str {
        match self {
            V::NoValue | V::Nil => "interface {}",
            V::Bool(_) => "bool",
            V::Int(_) => "int",
            V::Float(_) => "float64",
            V::Str(_) => "string",
            V::List(_) => "[]interface {}",
            V::Map(_) => "map[string]interface {}",
        }
    }

    /// Go's truth: false, 0, nil and empty things are false.
    pub(super) fn truth(&self) -> bool {
        match self {
            V::NoValue | V::Nil => false,
            V::Bool(b) => *b,
            V::Int(n) => *n != 0,
            V::Float(f) => *f != 0.0,
            V::Str(s) => !s.is_empty(),
            V::List(items) => !items.is_empty(),
            V::Map(map) => !map.is_empty(),
        }
    }

    /// As an action prints it.
    pub(super) fn printed(&self) -> String {
        match self {
            V::NoValue | V::Nil => "<no value>".to_string(),
            other => other.plain(),
        }
    }

    /// `%v`.
    pub(super) fn plain(&self) -> String {
        match self {
            V::NoValue | V::Nil => "<nil>".to_string(),
            V::Bool(b) => b.to_string(),
            V::Int(n) => n.to_string(),
            V::Float(f) => go_float(*f),
            V::Str(s) => s.to_string(),
            V::List(items) => {
                let parts: Vec<String> = items.iter().map(|i| V::from_json(i).plain()).collect();
                format!("[{}]", parts.join(" "))
            }
            V::Map(map) => {
                let mut keys: Vec<&String> = map.keys().collect();
                keys.sort();
                let parts: Vec<String> = keys
                    .into_iter()
                    .map(|k| format!("{k}:{}", V::from_json(&map[k]).plain()))
                    .collect();
                format!("map[{}]", parts.join(" "))
            }
        }
    }
}

/// A float64 as `%v` prints it: the shortest digits that read back the same, in
/// exponent form (`1e+06`) when the exponent is below -4 or at least 6.
pub fn go_float(f: f64) -> String {
    if f.is_nan() {
        return "NaN".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "+Inf" } else { "-Inf" }.into();
    }
    if f == 0.0 {
        return if f.is_sign_negative() { "-0" } else { "0" }.into();
    }
    let sci = format!("{f:e}");
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if (-4..6).contains(&exp) {
        return format!("{f}");
    }
    let sign = if exp < 0 { '-' } else { '+' };
    format!("{mantissa}e{sign}{:02}", exp.abs())
}

/// Go's `strconv.Quote`.
pub(super) fn go_quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\u{b}' => out.push_str("\\v"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c if c.is_control() => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
