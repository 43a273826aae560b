//! The functions Go's `text/template` predefines, and `printf`'s verbs.

use std::cmp::Ordering;

use std::borrow::Cow;

use serde_json::Value as Json;

use super::value::{V, go_float, go_quote};

/// A runtime error of a predefined function, worded as Go's `text/template` words
/// it (free text: it names the function, the values and their types).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub(super) struct FuncError(String);

/// Calls `name` (not `and` / `or`, which are lazy) with its evaluated arguments.
pub(super) fn call<'a>(name: &str, args: Vec<V<'a>>) -> Result<V<'a>, FuncError> {
    let want = |n: usize| -> Result<(), FuncError> {
        if args.len() == n {
            Ok(())
        } else {
            Err(FuncError(format!(
                "wrong number of args for {name}: want {n} got {}",
                args.len()
            )))
        }
    };
    match name {
        "not" => {
            want(1)?;
            Ok(V::Bool(!args[0].truth()))
        }
        "len" => {
            want(1)?;
            len(&args[0])
        }
        "index" => {
            let Some((item, indices)) = args.split_first() else {
                return Err(FuncError(
                    "wrong number of args for index: want at least 1 got 0".into(),
                ));
            };
            indices
                .iter()
                .try_fold(item.clone(), |item, i| index(&item, i))
        }
        "printf" => {
            let Some((V::Str(format), rest)) = args.split_first() else {
                let found = args.first().map_or("nothing", V::type_name);
                return Err(FuncError(format!(
                    "wrong type for value; expected string; got {found}"
                )));
            };
            Ok(V::Str(printf(format, rest).into()))
        }
        "print" => Ok(V::Str(sprint(&args).into())),
        "println" => {
            let parts: Vec<String> = args.iter().map(V::plain).collect();
            Ok(V::Str(format!("{}\n", parts.join(" ")).into()))
        }
        "eq" => eq(&args).map(V::Bool),
        "ne" => {
            want(2)?;
            eq(&args).map(|b| V::Bool(!b))
        }
        "lt" | "le" | "gt" | "ge" => {
            want(2)?;
            let order = compare(&args[0], &args[1])?;
            Ok(V::Bool(match name {
                "lt" => order == Ordering::Less,
                "le" => order != Ordering::Greater,
                "gt" => order == Ordering::Greater,
                _ => order != Ordering::Less,
            }))
        }
        other => Err(FuncError(format!("function {other:?} not defined"))),
    }
}

fn len<'a>(v: &V<'a>) -> Result<V<'a>, FuncError> {
    let n = match v {
        V::Str(s) => s.len(),
        V::List(items) => items.len(),
        V::Map(map) => map.len(),
        V::NoValue | V::Nil => return Err(FuncError("len of nil pointer".into())),
        other => return Err(FuncError(format!("len of type {}", other.type_name()))),
    };
    Ok(V::Int(n as i64))
}

fn index<'a>(item: &V<'a>, i: &V<'a>) -> Result<V<'a>, FuncError> {
    match (item, i) {
        (V::List(items), V::Int(n)) => usize::try_from(*n)
            .ok()
            .and_then(|n| items.get(n))
            .map(V::from_json)
            .ok_or_else(|| FuncError(format!("index out of range: {n}"))),
        (V::Str(s), V::Int(n)) => usize::try_from(*n)
            .ok()
            .and_then(|n| s.as_bytes().get(n))
            .map(|b| V::Int(i64::from(*b)))
            .ok_or_else(|| FuncError(format!("index out of range: {n}"))),
        (V::List(_) | V::Str(_), other) => Err(FuncError(format!(
            "cannot index slice/array with type {}",
            other.type_name()
        ))),
        (V::Map(map), V::Str(key)) => Ok(map.get(key.as_ref()).map_or(V::Nil, V::from_json)),
        (V::Map(_), other) => Err(FuncError(format!(
            "value has type {}; should be string",
            other.type_name()
        ))),
        (V::NoValue | V::Nil, _) => Err(FuncError("index of untyped nil".into())),
        (other, _) => Err(FuncError(format!(
            "can't index item of type {}",
            other.type_name()
        ))),
    }
}

#[derive(PartialEq, Clone, Copy)]
enum Kind {
    Invalid,
    Bool,
    Int,
    Float,
    Str,
    Other,
}

fn kind(v: &V) -> Kind {
    match v {
        V::NoValue | V::Nil => Kind::Invalid,
        V::Bool(_) => Kind::Bool,
        V::Int(_) => Kind::Int,
        V::Float(_) => Kind::Float,
        V::Str(_) => Kind::Str,
        V::List(_) | V::Map(_) => Kind::Other,
    }
}

/// `eq a b c…`: whether `a` equals any of the others, by Go's rules (no mixing of
/// kinds, so a JSON number never equals an integer literal).
fn eq(args: &[V]) -> Result<bool, FuncError> {
    let Some((first, others)) = args.split_first() else {
        return Err(FuncError(
            "wrong number of args for eq: want at least 1 got 0".into(),
        ));
    };
    if others.is_empty() {
        return Err(FuncError("missing argument for comparison".into()));
    }
    let k1 = kind(first);
    for other in others {
        let k2 = kind(other);
        let same = if k1 != k2 {
            if k1 != Kind::Invalid && k2 != Kind::Invalid {
                return Err(FuncError("incompatible types for comparison".into()));
            }
            false
        } else {
            match (first, other) {
                (V::Bool(a), V::Bool(b)) => a == b,
                (V::Int(a), V::Int(b)) => a == b,
                (V::Float(a), V::Float(b)) => a == b,
                (V::Str(a), V::Str(b)) => a == b,
                _ if k1 == Kind::Invalid => true,
                _ => {
                    return Err(FuncError(format!(
                        "non-comparable type {}",
                        first.type_name()
                    )));
                }
            }
        };
        if same {
            return Ok(true);
        }
    }
    Ok(false)
}

fn compare(a: &V, b: &V) -> Result<Ordering, FuncError> {
    let order = match (a, b) {
        (V::Int(x), V::Int(y)) => Some(x.cmp(y)),
        (V::Float(x), V::Float(y)) => x.partial_cmp(y),
        (V::Str(x), V::Str(y)) => Some(x.as_bytes().cmp(y.as_bytes())),
        _ if matches!(kind(a), Kind::Bool | Kind::Other | Kind::Invalid)
            || matches!(kind(b), Kind::Bool | Kind::Other | Kind::Invalid) =>
        {
            return Err(FuncError("invalid type for comparison".into()));
        }
        _ => return Err(FuncError("incompatible types for comparison".into())),
    };
    // NaN compares as neither less nor greater.
    Ok(order.unwrap_or(Ordering::Equal))
}

/// `fmt.Sprint`: spaces between operands when neither is a string.
fn sprint(args: &[V]) -> String {
    let mut out = String::new();
    for (n, arg) in args.iter().enumerate() {
        if n > 0 && !matches!(arg, V::Str(_)) && !matches!(args[n - 1], V::Str(_)) {
            out.push(' ');
        }
        out.push_str(&arg.plain());
    }
    out
}

/// `fmt.Sprintf` for the verbs `v s d q f g t x` and `%%`, with the flags `+ - 0`,
/// a width and a precision (`%06.2f`); anything else prints as Go prints a bad
/// verb.
pub(super) fn printf(format: &str, args: &[V]) -> String {
    let mut out = String::new();
    let mut next = 0;
    let mut chars = format.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let mut flags = String::new();
        while let Some(f) = chars.next_if(|f| "+-# 0".contains(*f)) {
            flags.push(f);
        }
        let mut width = String::new();
        while let Some(d) = chars.next_if(char::is_ascii_digit) {
            width.push(d);
        }
        let mut precision = None;
        if chars.next_if_eq(&'.').is_some() {
            let mut digits = String::new();
            while let Some(d) = chars.next_if(char::is_ascii_digit) {
                digits.push(d);
            }
            precision = Some(digits.parse::<usize>().unwrap_or(0));
        }
        let Some(verb) = chars.next() else {
            out.push_str("%!(NOVERB)");
            break;
        };
        if verb == '%' {
            out.push('%');
            continue;
        }
        let Some(arg) = args.get(next) else {
            out.push_str(&format!("%!{verb}(MISSING)"));
            continue;
        };
        next += 1;
        let mut text = verb_text(verb, precision, arg);
        let numeric = matches!(arg, V::Int(_) | V::Float(_)) && "dfgx".contains(verb);
        if flags.contains('+') && numeric && !text.starts_with('-') {
            text.insert(0, '+');
        }
        out.push_str(&padded(text, &flags, width.parse().unwrap_or(0), numeric));
    }
    if next < args.len() {
        let extra: Vec<String> = args[next..]
            .iter()
            .map(|a| match a {
                V::NoValue | V::Nil => "<nil>".to_string(),
                a => format!("{}={}", a.type_name(), a.plain()),
            })
            .collect();
        out.push_str(&format!("%!(EXTRA {})", extra.join(", ")));
    }
    out
}

/// `text` widened to `width` characters: spaces before it, after it with `-`, or
/// zeros after the sign with `0` for a number.
fn padded(text: String, flags: &str, width: usize, numeric: bool) -> String {
    let len = text.chars().count();
    if len >= width {
        return text;
    }
    let fill = width - len;
    if flags.contains('-') {
        format!("{text}{}", " ".repeat(fill))
    } else if flags.contains('0') && numeric {
        let (sign, digits) = match text.strip_prefix(['-', '+']) {
            Some(rest) => (&text[..1], rest),
            None => ("", text.as_str()),
        };
        format!("{sign}{}{digits}", "0".repeat(fill))
    } else {
        format!("{}{text}", " ".repeat(fill))
    }
}

fn verb_text(verb: char, precision: Option<usize>, arg: &V) -> String {
    let text = match (verb, arg) {
        ('v', a) => Some(a.plain()),
        ('s', V::Str(s)) => Some(s.to_string()),
        ('q', V::Str(s)) => Some(go_quote(s)),
        ('d', V::Int(n)) => Some(n.to_string()),
        ('x', V::Int(n)) => Some(format!("{n:x}")),
        ('x', V::Str(s)) => Some(s.bytes().map(|b| format!("{b:02x}")).collect()),
        ('t', V::Bool(b)) => Some(b.to_string()),
        ('f', V::Float(f)) => Some(format!("{f:.*}", precision.unwrap_or(6))),
        ('g', V::Float(f)) => Some(go_float(*f)),
        ('s' | 'q' | 'd' | 'f' | 'x' | 't' | 'g', V::List(items)) => {
            let parts: Vec<String> = items
                .iter()
                .map(|i| verb_text(verb, precision, &V::from_json(i)))
                .collect();
            Some(format!("[{}]", parts.join(" ")))
        }
        _ => None,
    };
    text.unwrap_or_else(|| match arg {
        V::NoValue | V::Nil => format!("%!{verb}(<nil>)"),
        a => format!("%!{verb}({}={})", a.type_name(), a.plain()),
    })
}

/// A value for `range`: its keys (or indices) and elements, keys in Go's order.
pub(super) fn range_items<'a>(v: &V<'a>) -> Result<Vec<(V<'a>, V<'a>)>, FuncError> {
    Ok(match v {
        V::NoValue | V::Nil => Vec::new(),
        V::List(items) => items
            .iter()
            .enumerate()
            .map(|(i, item)| (V::Int(i as i64), V::from_json(item)))
            .collect(),
        V::Map(map) => {
            let mut entries: Vec<(&String, &Json)> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            entries
                .into_iter()
                .map(|(k, v)| (V::Str(Cow::Borrowed(k.as_str())), V::from_json(v)))
                .collect()
        }
        V::Int(n) => (0..*n).map(|i| (V::Int(i), V::Int(i))).collect(),
        other => {
            return Err(FuncError(format!(
                "range can't iterate over {}",
                other.plain()
            )));
        }
    })
}

/// A value read as a field of `v`.
pub(super) fn field<'a>(v: &V<'a>, name: &str, zero: bool) -> Result<V<'a>, FuncError> {
    match v {
        V::Map(map) => Ok(match map.get(name) {
            Some(found) => V::from_json(found),
            None if zero => V::Nil,
            None => V::NoValue,
        }),
        V::NoValue => Ok(V::NoValue),
        V::Nil => Err(FuncError(format!(
            "nil pointer evaluating interface {{}}.{name}"
        ))),
        other => Err(FuncError(format!(
            "can't evaluate field {name} in type {}",
            other.type_name()
        ))),
    }
}
