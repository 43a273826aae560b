//! A built-in check's params: known names and their aliases, typed reads, and clear
//! errors for anything else.

use serde_json::{Map, Value as Json};

use super::ParamError;

/// The params of one check. Each accepted param is a list of names: the canonical
/// one first, then aliases users of PromptKit packs write.
pub(crate) struct Params<'a> {
    check: &'a str,
    map: Map<String, Json>,
}

impl<'a> Params<'a> {
    /// Rejects params the check does not take (with a suggestion) and a param given
    /// twice under two of its names.
    pub(crate) fn new(
        check: &'a str,
        params: &Json,
        accepted: &[&[&str]],
    ) -> Result<Self, ParamError> {
        let map = match params {
            Json::Object(map) => map.clone(),
            Json::Null => Map::new(),
            other => return Err(ParamError::NotAnObject(other.clone())),
        };
        let known: Vec<&str> = accepted
            .iter()
            .flat_map(|names| names.iter().copied())
            .collect();
        for key in map.keys() {
            if !known.contains(&key.as_str()) {
                let takes = if known.is_empty() {
                    "none".to_string()
                } else {
                    known.join(", ")
                };
                return Err(ParamError::Unknown {
                    check: check.into(),
                    key: key.clone(),
                    suggestion: crate::doc::suggest(key, known.iter().copied()),
                    takes,
                });
            }
        }
        for names in accepted {
            let given: Vec<String> = names
                .iter()
                .filter(|n| map.contains_key(**n))
                .map(|n| n.to_string())
                .collect();
            if given.len() > 1 {
                return Err(ParamError::GivenTwice {
                    check: check.into(),
                    given,
                });
            }
        }
        Ok(Self { check, map })
    }

    fn get<'n>(&self, names: &[&'n str]) -> Option<(&'n str, &Json)> {
        names
            .iter()
            .find_map(|n| self.map.get(*n).map(|v| (*n, v)))
            .filter(|(_, v)| !v.is_null())
    }

    fn wrong(&self, name: &str, expected: &'static str, found: &Json) -> ParamError {
        ParamError::WrongType {
            check: self.check.into(),
            name: name.into(),
            expected,
            found: Box::new(found.clone()),
        }
    }

    /// The error for a required param that is missing: `names[0]` must be `what`.
    pub(crate) fn missing(&self, names: &[&str], what: &'static str) -> ParamError {
        ParamError::Missing {
            check: self.check.into(),
            name: names[0].into(),
            what,
        }
    }

    /// A list of strings (a single string counts as a list of one).
    pub(crate) fn strings(&self, names: &[&str]) -> Result<Option<Vec<String>>, ParamError> {
        let Some((name, value)) = self.get(names) else {
            return Ok(None);
        };
        match value {
            Json::String(one) => Ok(Some(vec![one.clone()])),
            Json::Array(items) => items
                .iter()
                .map(|i| i.as_str().map(str::to_string))
                .collect::<Option<Vec<_>>>()
                .map(Some)
                .ok_or_else(|| self.wrong(name, "a list of strings", value)),
            other => Err(self.wrong(name, "a list of strings", other)),
        }
    }

    /// A required, non-empty list of strings.
    pub(crate) fn required_strings(&self, names: &[&str]) -> Result<Vec<String>, ParamError> {
        match self.strings(names)? {
            Some(list) if !list.is_empty() => Ok(list),
            _ => Err(self.missing(names, "a non-empty list of strings")),
        }
    }

    pub(crate) fn string(&self, names: &[&str]) -> Result<Option<String>, ParamError> {
        match self.get(names) {
            None => Ok(None),
            Some((_, Json::String(s))) => Ok(Some(s.clone())),
            Some((name, other)) => Err(self.wrong(name, "a string", other)),
        }
    }

    pub(crate) fn required_string(&self, names: &[&str]) -> Result<String, ParamError> {
        self.string(names)?
            .filter(|s| !s.is_empty())
            .ok_or_else(|| self.missing(names, "a string"))
    }

    pub(crate) fn boolean(&self, names: &[&str]) -> Result<Option<bool>, ParamError> {
        match self.get(names) {
            None => Ok(None),
            Some((_, Json::Bool(b))) => Ok(Some(*b)),
            Some((name, other)) => Err(self.wrong(name, "true or false", other)),
        }
    }

    pub(crate) fn number(&self, names: &[&str]) -> Result<Option<f64>, ParamError> {
        match self.get(names) {
            None => Ok(None),
            Some((_, Json::Number(n))) => Ok(n.as_f64()),
            Some((name, other)) => Err(self.wrong(name, "a number", other)),
        }
    }

    /// A whole number, zero or more.
    pub(crate) fn count(&self, names: &[&str]) -> Result<Option<u64>, ParamError> {
        match self.get(names) {
            None => Ok(None),
            Some((_, Json::Number(n))) if n.as_u64().is_some() => Ok(n.as_u64()),
            Some((name, other)) => Err(self.wrong(name, "a whole number, 0 or more", other)),
        }
    }

    pub(crate) fn object(&self, names: &[&str]) -> Result<Option<Map<String, Json>>, ParamError> {
        match self.get(names) {
            None => Ok(None),
            Some((_, Json::Object(map))) => Ok(Some(map.clone())),
            Some((name, other)) => Err(self.wrong(name, "an object", other)),
        }
    }

    /// Any JSON value.
    pub(crate) fn value(&self, names: &[&str]) -> Option<Json> {
        self.get(names).map(|(_, v)| v.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn unknown_params_are_refused_with_a_suggestion() {
        let err = Params::new(
            "regex",
            &json!({"patern": "x"}),
            &[&["pattern"], &["expect_match"]],
        )
        .err()
        .expect("refused")
        .to_string();
        assert!(err.contains("did you mean `pattern`?"), "{err}");
    }

    #[test]
    fn aliases_read_the_same_param_but_not_twice() {
        let p = Params::new("x", &json!({"words": ["a"]}), &[&["patterns", "words"]]).expect("ok");
        assert_eq!(
            p.strings(&["patterns", "words"]).expect("read"),
            Some(vec!["a".into()])
        );
        assert!(
            Params::new(
                "x",
                &json!({"words": [], "patterns": []}),
                &[&["patterns", "words"]]
            )
            .is_err()
        );
        let p = Params::new("x", &json!({"patterns": [1]}), &[&["patterns"]]).expect("ok");
        assert!(p.strings(&["patterns"]).is_err());
    }
}
