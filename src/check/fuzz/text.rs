//! Strings: plain ASCII half the time, else a mix of the scripts and code points that
//! break text handling (accents, CJK, emoji, right-to-left, combining marks, zero-width
//! and bidi controls, quotes, backslashes, control characters).

use proptest::char::{CharStrategy, range as chars};
use proptest::prelude::{BoxedStrategy, Strategy};
use proptest::sample::select;
use proptest::string::string_regex;
use serde_json::Value;

use super::budget::{At, Budget, Gen, PER_CHAR, string_size};
use super::choice::Choice;
use super::error::FuzzError;
use super::pattern::cost;
use super::seq::{Lengths, SeqStrategy};

/// Characters of the plain example string (`example`), which every string's floor
/// makes room for.
const EXAMPLE_CHARS: usize = 7;
/// What a draw's alternative not taken is counted as, in bytes of the budget: it
/// holds a runner to shrink towards, far larger than a character.
const ALTERNATIVE_COST: u64 = 128;

/// Printable ASCII.
fn ascii() -> CharStrategy<'static> {
    chars(' ', '~')
}

/// Characters from every corner that tends to break a tool.
fn unicode() -> BoxedStrategy<char> {
    let awkward = [
        '\u{200B}', // zero-width space
        '\u{200C}', // zero-width non-joiner
        '\u{200D}', // zero-width joiner
        '\u{FEFF}', // byte-order mark
        '\u{200F}', // right-to-left mark
        '\u{202E}', // right-to-left override
        '\'', '"', '\\', '\n', '\t', '\r', '\u{0}', '\u{7F}', '$', '`',
    ];
    let options = vec![
        (4, ascii().boxed()),
        (2, chars('\u{C0}', '\u{17F}').boxed()), // Latin accents
        (1, chars('\u{4E00}', '\u{9FFF}').boxed()), // CJK
        (1, chars('\u{1F300}', '\u{1F64F}').boxed()), // emoji
        (1, chars('\u{05D0}', '\u{05EA}').boxed()), // Hebrew
        (1, chars('\u{0621}', '\u{064A}').boxed()), // Arabic
        (1, chars('\u{0300}', '\u{036F}').boxed()), // combining marks
        (2, select(awkward.to_vec()).boxed()),
    ];
    match Choice::new(options) {
        Some(choice) => choice.boxed(),
        None => ascii().boxed(),
    }
}

/// Strings of `min..=max` characters (code points, as JSON Schema counts them).
pub(super) fn strings(min: usize, max: usize, budget: &Budget) -> Gen {
    let free = min.max(EXAMPLE_CHARS.min(max));
    let of = |element: BoxedStrategy<char>| {
        SeqStrategy {
            element,
            min,
            max,
            lengths: Lengths::Text,
            free,
            cost: PER_CHAR,
            budget: budget.clone(),
        }
        .prop_map(|text| Value::String(text.into_iter().collect()))
        .boxed()
    };
    let values = match Choice::new(vec![(1, of(ascii().boxed())), (1, of(unicode()))]) {
        Some(choice) => choice.boxed(),
        None => of(ascii().boxed()),
    };
    Gen {
        values,
        floor: string_size(free as u64),
    }
}

/// Strings for a `format`, where a pattern says it well enough.
pub(super) fn format_pattern(format: &str) -> Option<&'static str> {
    Some(match format {
        "date" => r"20[0-9]{2}-(0[1-9]|1[0-2])-(0[1-9]|1[0-9]|2[0-8])",
        "date-time" => {
            r"20[0-9]{2}-(0[1-9]|1[0-2])-(0[1-9]|1[0-9]|2[0-8])T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]Z"
        }
        "time" => r"([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]Z",
        "email" => r"[a-z][a-z0-9]{0,8}@[a-z]{1,8}\.(com|org|example)",
        "uri" | "url" | "iri" => r"https://[a-z]{1,10}\.example(/[a-z0-9]{0,8}){0,3}",
        "uuid" => r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}",
        "ipv4" => r"(1?[0-9]{1,2}|2[0-4][0-9])(\.(1?[0-9]{1,2}|2[0-4][0-9])){3}",
        "hostname" => r"[a-z]{1,10}(\.[a-z]{1,10}){0,2}",
        _ => return None,
    })
}

/// Strings matching `pattern`, when proptest can generate from it; `Ok(None)` when it
/// cannot, and an error when the pattern costs more than generation allows. proptest
/// makes whole matches and refuses anchors, so the `^...$` schemas usually wrap a
/// pattern in is dropped first: a whole match satisfies the anchored pattern too.
pub(super) fn matching(pattern: &str, at: &At) -> Result<Option<Gen>, FuzzError> {
    let body = pattern.strip_prefix('^').unwrap_or(pattern);
    let body = match body.strip_suffix('$') {
        // `\$` ends in an escaped `$`, a character to match.
        Some(rest) if rest.chars().rev().take_while(|c| *c == '\\').count() % 2 == 0 => rest,
        _ => body,
    };
    // `\d` is every Unicode digit to proptest, a class it cannot draw from; the ASCII
    // digits match it as well.
    let body = body.replace(r"\d", "[0-9]");
    let cost = cost(&body).map_err(|why| FuzzError::Pattern {
        why,
        at: at.clone(),
    })?;
    let Ok(strategy) = string_regex(&body) else {
        return Ok(None);
    };
    Ok(Some(Gen {
        values: strategy.prop_map(Value::String).boxed(),
        floor: string_size(cost.chars)
            .saturating_add(cost.alternatives.saturating_mul(ALTERNATIVE_COST)),
    }))
}
