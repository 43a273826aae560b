//! Rendering a prompt's system template with checked variable values.

use std::collections::HashMap;
use std::time::SystemTime;

use indexmap::IndexMap;
use serde_json::Value as Json;

use crate::doc::{Checker, Diagnostic, Diagnostics, Pos, suggest};
use crate::template::time_value;

use super::check::{FRAGMENT_PREFIX, walk_placeholders};
use super::{Pack, Prompt, TemplateText, VarType, Variable};

/// Values given for variables, later sources already merged over earlier ones.
pub type VarInputs = IndexMap<String, Json>;

/// [`render_prompt_at`] with the time variables read from the clock.
pub fn render_prompt(
    pack: &Pack,
    prompt: &Prompt,
    inputs: &VarInputs,
) -> Result<String, Diagnostics> {
    render_prompt_at(pack, prompt, inputs, SystemTime::now())
}

/// Renders `prompt` with `inputs`, then time variables at `now`, then declared
/// defaults. Every problem is reported: unknown inputs, missing required values, values
/// that fail a variable's type or validation, and undeclared placeholders left without
/// a value, each pointing at the first use in the template.
pub fn render_prompt_at(
    pack: &Pack,
    prompt: &Prompt,
    inputs: &VarInputs,
    now: SystemTime,
) -> Result<String, Diagnostics> {
    let mut problems = Diagnostics::default();
    let first_use = first_uses(pack, prompt);
    for name in inputs.keys() {
        if prompt.variable(name).is_none() && !first_use.contains_key(name) {
            let hint = suggest(name, prompt.variables.iter().map(|v| v.name.as_str()));
            problems.push(Diagnostic::plain(format!(
                "variable `{name}` is not declared by prompt `{}`{hint}",
                prompt.id
            )));
        }
    }
    let mut values: HashMap<String, String> = HashMap::new();
    for var in &prompt.variables {
        let site = first_use.get(&var.name).copied().unwrap_or(var.pos);
        let from_clock =
            || time_value(&var.name, now).filter(|_| first_use.contains_key(&var.name));
        // As PromptKit's time provider does, the clock overrides a declared default;
        // a value given on the command line overrides both.
        let value = match (inputs.get(&var.name), &var.default) {
            (Some(given), _) => coerce(var.var_type, given),
            (None, _) if let Some(time) = from_clock() => coerce(var.var_type, &Json::String(time)),
            (None, Some(default)) => default.clone(),
            (None, None) if var.required => {
                problems.push(Diagnostic::error(
                    &pack.path,
                    site,
                    format!(
                        "prompt `{}` needs variable `{}`, which has no value and no default",
                        prompt.id, var.name
                    ),
                ));
                continue;
            }
            (None, None) => Json::String(String::new()),
        };
        match check_value(var, &value) {
            Ok(text) => {
                values.insert(var.name.clone(), text);
            }
            Err(problem) => problems.push(Diagnostic::error(
                &pack.path,
                site,
                format!("variable `{}`: {problem}", var.name),
            )),
        }
    }
    fill_undeclared(
        pack,
        prompt,
        inputs,
        now,
        &first_use,
        &mut values,
        &mut problems,
    );
    if problems.has_errors() {
        return Err(problems);
    }
    Ok(fill(pack, &prompt.system_template, &values))
}

/// Placeholders no variable declares take a given value as plain text, or the clock's
/// for a time variable; any other is an error at its first use.
fn fill_undeclared(
    pack: &Pack,
    prompt: &Prompt,
    inputs: &VarInputs,
    now: SystemTime,
    first_use: &IndexMap<String, Pos>,
    values: &mut HashMap<String, String>,
    problems: &mut Diagnostics,
) {
    for (name, pos) in first_use {
        if prompt.variable(name).is_some() {
            continue;
        }
        let value = match inputs.get(name) {
            Some(Json::String(text)) => Some(text.clone()),
            Some(other) => Some(other.to_string()),
            None => time_value(name, now),
        };
        match value {
            Some(text) => {
                values.insert(name.clone(), text);
            }
            None => problems.push(Diagnostic::error(
                &pack.path,
                *pos,
                format!(
                    "placeholder `{{{{{name}}}}}` has no value: prompt `{}` does not declare it; give one with --var {name}=VALUE",
                    prompt.id
                ),
            )),
        }
    }
}

/// Inserts fragments (as template text) and values (as plain text).
fn fill(pack: &Pack, template: &TemplateText, values: &HashMap<String, String>) -> String {
    let mut all = values.clone();
    for p in template.template.placeholders() {
        if let Some(name) = p.name.strip_prefix(FRAGMENT_PREFIX)
            && !all.contains_key(&p.name)
            && let Some(fragment) = pack.fragments.get(name)
        {
            all.insert(p.name.clone(), fill(pack, fragment, values));
        }
    }
    // A loaded pack has no fragment cycles, and every placeholder was given a value or
    // reported before filling, so every name has a value by now.
    template.template.render(&all).unwrap_or_default()
}

/// Where each placeholder name is first used, in the pack file, in template order.
fn first_uses(pack: &Pack, prompt: &Prompt) -> IndexMap<String, Pos> {
    let mut uses = IndexMap::new();
    let mut scratch = Checker::new(&pack.path, &pack.text);
    walk_placeholders(
        pack,
        &prompt.system_template,
        &mut scratch,
        &mut Vec::new(),
        &mut |p, pos, _| {
            uses.entry(p.name.clone()).or_insert(pos);
        },
    );
    uses
}

/// Values from the command line arrive as text; a typed variable reads them as JSON.
fn coerce(var_type: VarType, given: &Json) -> Json {
    match (var_type, given) {
        (VarType::String, _)
        | (_, Json::Null | Json::Bool(_) | Json::Number(_) | Json::Array(_) | Json::Object(_)) => {
            given.clone()
        }
        (_, Json::String(text)) => {
            serde_json::from_str(text.trim()).unwrap_or_else(|_| given.clone())
        }
    }
}

/// Why a value does not suit a variable; each message starts from the value.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub(super) enum ValueError {
    #[error("expected {}, got {value}", expected.as_str())]
    WrongType { expected: VarType, value: Json },
    #[error("{value} is not one of {}", allowed.iter().map(Json::to_string).collect::<Vec<_>>().join(", "))]
    NotAllowed { value: Json, allowed: Vec<Json> },
    #[error("{value} does not match the pattern `{pattern}`")]
    NoMatch { value: Json, pattern: String },
    #[error("{value} is {len} characters long, shorter than the minimum of {min}")]
    TooShort { value: Json, len: u64, min: u64 },
    #[error("{value} is {len} characters long, longer than the maximum of {max}")]
    TooLong { value: Json, len: u64, max: u64 },
    #[error("{value} is less than the minimum of {min}")]
    BelowMinimum { value: Json, min: f64 },
    #[error("{value} is greater than the maximum of {max}")]
    AboveMaximum { value: Json, max: f64 },
}

/// Checks a value against the variable's type and validation; returns its text.
pub(super) fn check_value(var: &Variable, value: &Json) -> Result<String, ValueError> {
    let type_ok = match var.var_type {
        VarType::String => value.is_string(),
        VarType::Number => value.is_number(),
        VarType::Integer => value.is_i64() || value.is_u64(),
        VarType::Boolean => value.is_boolean(),
        VarType::Object => value.is_object(),
        VarType::Array => value.is_array(),
    };
    let given = || value.clone();
    if !type_ok {
        return Err(ValueError::WrongType {
            expected: var.var_type,
            value: given(),
        });
    }
    let text = match value {
        Json::String(s) => s.clone(),
        other => other.to_string(),
    };
    let rules = &var.validation;
    if let Some(allowed) = &rules.allowed
        && !allowed.contains(value)
    {
        return Err(ValueError::NotAllowed {
            value: given(),
            allowed: allowed.clone(),
        });
    }
    if let Some(re) = &rules.pattern
        && !re.is_match(&text)
    {
        return Err(ValueError::NoMatch {
            value: given(),
            pattern: re.as_str().to_string(),
        });
    }
    let len = text.chars().count() as u64;
    if let Some(min) = rules.min_length
        && len < min
    {
        return Err(ValueError::TooShort {
            value: given(),
            len,
            min,
        });
    }
    if let Some(max) = rules.max_length
        && len > max
    {
        return Err(ValueError::TooLong {
            value: given(),
            len,
            max,
        });
    }
    if let Some(n) = value.as_f64() {
        if let Some(min) = rules.minimum
            && n < min
        {
            return Err(ValueError::BelowMinimum {
                value: given(),
                min,
            });
        }
        if let Some(max) = rules.maximum
            && n > max
        {
            return Err(ValueError::AboveMaximum {
                value: given(),
                max,
            });
        }
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pack::Validation;
    use serde_json::json;

    fn var(var_type: VarType, validation: Validation) -> Variable {
        Variable {
            name: "v".into(),
            var_type,
            required: false,
            default: None,
            description: None,
            validation,
            pos: Pos::START,
        }
    }

    fn refusal(var: &Variable, value: Json) -> String {
        check_value(var, &value).expect_err("refused").to_string()
    }

    #[test]
    fn a_suitable_value_gives_its_text() {
        let any = Validation::default();
        assert_eq!(
            check_value(&var(VarType::String, any.clone()), &json!("hi")),
            Ok("hi".to_string())
        );
        assert_eq!(
            check_value(&var(VarType::Integer, any), &json!(7)),
            Ok("7".to_string())
        );
    }

    #[test]
    fn each_refusal_starts_from_the_value() {
        let any = Validation::default();
        assert_eq!(
            refusal(&var(VarType::Integer, any), json!(1.5)),
            "expected integer, got 1.5"
        );
        let rules = Validation {
            allowed: Some(vec![json!("a"), json!("b")]),
            ..Validation::default()
        };
        assert_eq!(
            refusal(&var(VarType::String, rules), json!("c")),
            r#""c" is not one of "a", "b""#
        );
        let rules = Validation {
            pattern: regex::Regex::new("^[a-z]+$").ok(),
            min_length: Some(3),
            max_length: Some(4),
            ..Validation::default()
        };
        let word = var(VarType::String, rules);
        assert_eq!(
            refusal(&word, json!("A1")),
            r#""A1" does not match the pattern `^[a-z]+$`"#
        );
        assert_eq!(
            refusal(&word, json!("ab")),
            r#""ab" is 2 characters long, shorter than the minimum of 3"#
        );
        assert_eq!(
            refusal(&word, json!("abcde")),
            r#""abcde" is 5 characters long, longer than the maximum of 4"#
        );
        let rules = Validation {
            minimum: Some(1.0),
            maximum: Some(9.5),
            ..Validation::default()
        };
        let number = var(VarType::Number, rules);
        assert_eq!(
            refusal(&number, json!(0)),
            "0 is less than the minimum of 1"
        );
        assert_eq!(
            refusal(&number, json!(10)),
            "10 is greater than the maximum of 9.5"
        );
    }
}
