//! Checks on the assistant's text.

use regex::{Regex, RegexBuilder};
use serde_json::{Value as Json, json};

use super::Scored;
use super::{Judge, ParamError, Params, verdict};
use crate::conversation::EvalInput;

/// The assistant's messages, the judged content among them.
fn assistant_texts(input: &EvalInput) -> Vec<String> {
    let mut texts: Vec<String> = input
        .messages
        .iter()
        .filter(|m| m["role"] == "assistant")
        .filter_map(|m| m["content"].as_str().map(str::to_string))
        .collect();
    if !texts.contains(&input.content) {
        texts.push(input.content.clone());
    }
    texts
}

/// `contains`: every pattern appears in the content (case-insensitive); the score
/// is the share that does.
pub(super) fn contains(check: &str, params: &Json) -> Result<Judge, ParamError> {
    let p = Params::new(check, params, &[&["patterns"]])?;
    let patterns = p.required_strings(&["patterns"])?;
    Ok(Box::new(move |input| {
        let text = input.content.to_lowercase();
        let missing: Vec<&String> = patterns
            .iter()
            .filter(|p| !text.contains(&p.to_lowercase()))
            .collect();
        let found = patterns.len() - missing.len();
        Ok(Scored {
            score: found as f64 / patterns.len() as f64,
            detail: if missing.is_empty() {
                "every pattern appears".into()
            } else {
                format!(
                    "{found} of {} patterns appear; missing: {}",
                    patterns.len(),
                    join(&missing)
                )
            },
            data: json!({ "missing": missing }),
        })
    }))
}

/// `contains_any`: at least one pattern appears in some assistant message.
pub(super) fn contains_any(check: &str, params: &Json) -> Result<Judge, ParamError> {
    let p = Params::new(check, params, &[&["patterns"]])?;
    let patterns = p.required_strings(&["patterns"])?;
    Ok(Box::new(move |input| {
        let texts: Vec<String> = assistant_texts(input)
            .iter()
            .map(|t| t.to_lowercase())
            .collect();
        let found: Vec<&String> = patterns
            .iter()
            .filter(|p| texts.iter().any(|t| t.contains(&p.to_lowercase())))
            .collect();
        Ok(verdict(
            !found.is_empty(),
            format!("found: {}", join(&found)),
            format!(
                "none of {} appears",
                join(&patterns.iter().collect::<Vec<_>>())
            ),
            json!({ "found": found }),
        ))
    }))
}

/// `content_excludes` / `banned_words`: no pattern appears in any assistant
/// message, as a whole word (case-insensitive) unless `match_mode: substring`.
pub(super) fn excludes(check: &str, params: &Json) -> Result<Judge, ParamError> {
    let p = Params::new(check, params, &[&["patterns", "words"], &["match_mode"]])?;
    let patterns = p.required_strings(&["patterns", "words"])?;
    let whole_words = match p.string(&["match_mode"])?.as_deref() {
        None | Some("word_boundary") => true,
        Some("substring") => false,
        Some(other) => {
            return Err(ParamError::MatchMode {
                check: check.into(),
                found: other.into(),
            });
        }
    };
    let matchers: Vec<(String, Regex)> = patterns
        .into_iter()
        .map(|word| {
            let escaped = regex::escape(&word);
            let source = if whole_words {
                standalone(&word, &escaped)
            } else {
                escaped
            };
            let re = RegexBuilder::new(&source)
                .case_insensitive(true)
                .build()
                .map_err(|error| ParamError::Word {
                    check: check.into(),
                    word: word.clone(),
                    error,
                })?;
            Ok((word, re))
        })
        .collect::<Result<_, ParamError>>()?;
    Ok(Box::new(move |input| {
        let texts = assistant_texts(input);
        let found: Vec<&String> = matchers
            .iter()
            .filter(|(_, re)| texts.iter().any(|t| re.is_match(t)))
            .map(|(word, _)| word)
            .collect();
        Ok(verdict(
            found.is_empty(),
            "no excluded word appears".into(),
            format!("excluded: {}", join(&found)),
            json!({ "found": found }),
        ))
    }))
}

/// `regex`: the pattern matches somewhere in the content (or, with
/// `expect_match: false`, nowhere). Case-sensitive unless the pattern says `(?i)`.
pub(super) fn regex(check: &str, params: &Json) -> Result<Judge, ParamError> {
    let p = Params::new(check, params, &[&["pattern"], &["expect_match"]])?;
    let source = p.required_string(&["pattern"])?;
    let expect = p.boolean(&["expect_match"])?.unwrap_or(true);
    let re = Regex::new(&source).map_err(|error| ParamError::Pattern {
        check: check.into(),
        error,
    })?;
    Ok(Box::new(move |input| {
        let matched = re.is_match(&input.content);
        let says = |m: bool| if m { "matches" } else { "does not match" };
        Ok(verdict(
            matched == expect,
            format!("the content {} /{source}/ as expected", says(matched)),
            format!("the content {} /{source}/", says(matched)),
            json!({ "matched": matched }),
        ))
    }))
}

/// `min_length`: at least `min` characters; the score is the share reached.
pub(super) fn min_length(check: &str, params: &Json) -> Result<Judge, ParamError> {
    let p = Params::new(check, params, &[&["min", "min_characters", "min_chars"]])?;
    let min = p
        .count(&["min", "min_characters", "min_chars"])?
        .filter(|m| *m > 0)
        .ok_or_else(|| p.missing(&["min"], "a number of characters above 0"))?;
    Ok(Box::new(move |input| {
        let chars = input.content.chars().count() as u64;
        Ok(Scored {
            score: (chars as f64 / min as f64).min(1.0),
            detail: format!("{chars} characters (at least {min})"),
            data: json!({ "characters": chars }),
        })
    }))
}

/// `max_length`: at most `max` characters (and `max_tokens` estimated tokens, four
/// characters each); past it the score falls as `max / length`.
pub(super) fn max_length(check: &str, params: &Json) -> Result<Judge, ParamError> {
    let names = ["max", "max_characters", "max_chars"];
    let p = Params::new(check, params, &[&names, &["max_tokens"]])?;
    let max = p.count(&names)?;
    let max_tokens = p.count(&["max_tokens"])?;
    if max.is_none() && max_tokens.is_none() {
        return Err(ParamError::NoLengthLimit {
            check: check.into(),
        });
    }
    Ok(Box::new(move |input| {
        let chars = input.content.chars().count() as u64;
        let tokens = chars.div_ceil(4);
        let share = |limit: u64, actual: u64| {
            if actual == 0 {
                1.0
            } else {
                (limit as f64 / actual as f64).min(1.0)
            }
        };
        let score = max
            .map_or(1.0, |m| share(m, chars))
            .min(max_tokens.map_or(1.0, |m| share(m, tokens)));
        Ok(Scored {
            score,
            detail: format!(
                "{chars} characters, about {tokens} tokens (at most {}{})",
                max.map_or_else(|| "any".to_string(), |m| m.to_string()),
                max_tokens
                    .map(|t| format!(", {t} tokens"))
                    .unwrap_or_default()
            ),
            data: json!({ "characters": chars, "tokens": tokens }),
        })
    }))
}

/// `sentence_count`: between `min` and `max` sentences (a sentence ends at `.`,
/// `!` or `?` followed by a space or the end, or at the end of the text).
pub(super) fn sentence_count(check: &str, params: &Json) -> Result<Judge, ParamError> {
    // PromptKit reads `max_sentences` as `max` (its param aliases).
    const MAX: &[&str] = &["max", "max_sentences"];
    let p = Params::new(check, params, &[&["min"], MAX])?;
    let (min, max) = (p.count(&["min"])?, p.count(MAX)?);
    if min.is_none() && max.is_none() {
        return Err(ParamError::NoCountRange {
            check: check.into(),
        });
    }
    Ok(Box::new(move |input| {
        let n = sentences(&input.content);
        let ok = min.is_none_or(|m| n >= m) && max.is_none_or(|m| n <= m);
        let range = match (min, max) {
            (Some(a), Some(b)) => format!("{a} to {b}"),
            (Some(a), None) => format!("at least {a}"),
            (None, Some(b)) => format!("at most {b}"),
            (None, None) => unreachable!("a bound is checked above"),
        };
        Ok(verdict(
            ok,
            format!("{n} sentence(s) ({range})"),
            format!("{n} sentence(s), expected {range}"),
            json!({ "sentences": n }),
        ))
    }))
}

fn sentences(text: &str) -> u64 {
    let mut count = 0;
    let mut open = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if matches!(c, '.' | '!' | '?') {
            let ends = chars.peek().is_none_or(|next| next.is_whitespace());
            if open && ends {
                count += 1;
                open = false;
            }
        } else if !c.is_whitespace() {
            open = true;
        }
    }
    count + u64::from(open)
}

/// A pattern for `word` standing on its own: `\b` where the word starts or ends with
/// a letter or digit, else a non-word character or the end of the text (`\b` never
/// matches between a space and a symbol, so `c++` or `$free` would never be found).
fn standalone(word: &str, escaped: &str) -> String {
    let wordy = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    let before = if wordy(word.chars().next()) {
        r"\b"
    } else {
        r"(?:^|\W)"
    };
    let after = if wordy(word.chars().last()) {
        r"\b"
    } else {
        r"(?:\W|$)"
    };
    format!("{before}{escaped}{after}")
}

fn join(items: &[&String]) -> String {
    items
        .iter()
        .map(|s| s.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}
