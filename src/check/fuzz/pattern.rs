//! How costly a `pattern` is to generate strings from, read from its text before
//! anything is built: the longest string a draw can make (unbounded repetitions
//! stop at 32, as the generator stops them), the alternatives a draw leaves
//! behind, and how deep its groups nest.

/// Bytes of pattern text.
pub(super) const MAX_SOURCE: usize = 4_096;
/// Groups inside groups.
pub(super) const MAX_NESTING: usize = 16;
/// Characters of one generated string.
pub(super) const MAX_CHARS: u64 = 65_536;
/// Alternatives not taken in one generated string (each kept to shrink towards).
pub(super) const MAX_ALTERNATIVES: u64 = 4_096;

/// Why a pattern is refused.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub(crate) enum PatternError {
    #[error("is {0} bytes long (at most {MAX_SOURCE})")]
    Source(usize),
    #[error("nests groups more than {MAX_NESTING} deep")]
    Nesting,
    #[error("matches strings of up to {0} characters (at most {MAX_CHARS})")]
    Length(u64),
    #[error("leaves {0} alternatives in one string (at most {MAX_ALTERNATIVES})")]
    Alternatives(u64),
}

/// What one draw from a pattern can cost.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct Cost {
    /// Characters of the longest string.
    pub(super) chars: u64,
    /// Alternatives not taken, over the whole string.
    pub(super) alternatives: u64,
}

impl Cost {
    fn then(self, next: Cost) -> Cost {
        Cost {
            chars: self.chars.saturating_add(next.chars),
            alternatives: self.alternatives.saturating_add(next.alternatives),
        }
    }

    fn or(self, other: Cost) -> Cost {
        Cost {
            chars: self.chars.max(other.chars),
            alternatives: self.alternatives.max(other.alternatives),
        }
    }

    fn times(self, n: u64) -> Cost {
        Cost {
            chars: self.chars.saturating_mul(n),
            alternatives: self.alternatives.saturating_mul(n),
        }
    }
}

/// One group being read: the branches done so far, the current branch, and the
/// last item of it (which a quantifier applies to).
#[derive(Default)]
struct Group {
    branches: Option<Cost>,
    count: u64,
    branch: Cost,
    last: Cost,
}

impl Group {
    fn push(&mut self, item: Cost) {
        self.branch = self.branch.then(self.last);
        self.last = item;
    }

    fn close(mut self) -> Cost {
        self.push(Cost::default());
        let branch = self.branch;
        let count = self.count;
        let all = match self.branches {
            Some(done) => done.or(branch),
            None => branch,
        };
        Cost {
            alternatives: all.alternatives.saturating_add(count),
            ..all
        }
    }
}

/// The cost of a pattern, or why it is too costly. A conservative reading: what
/// the text does not make clear counts as the larger case.
pub(super) fn cost(pattern: &str) -> Result<Cost, PatternError> {
    if pattern.len() > MAX_SOURCE {
        return Err(PatternError::Source(pattern.len()));
    }
    let chars: Vec<char> = pattern.chars().collect();
    let mut stack = vec![Group::default()];
    let one = Cost {
        chars: 1,
        alternatives: 0,
    };
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        i += 1;
        let open = stack.len();
        let Some(group) = stack.last_mut() else {
            break;
        };
        match c {
            '\\' => {
                i = skip_escape(&chars, i);
                group.push(one);
            }
            '[' => {
                i = skip_class(&chars, i);
                group.push(one);
            }
            '(' => {
                // `(?flags)` sets flags and matches nothing; other `(?...` open a group.
                if chars.get(i) == Some(&'?') {
                    let close = chars[i..].iter().position(|c| matches!(c, ')' | ':' | '>'));
                    if let Some(offset) = close
                        && chars[i + offset] == ')'
                    {
                        i += offset + 1;
                        continue;
                    }
                    i += close.map_or(0, |offset| offset + 1);
                }
                if open > MAX_NESTING {
                    return Err(PatternError::Nesting);
                }
                stack.push(Group::default());
            }
            ')' if open > 1 => {
                if let Some(done) = stack.pop() {
                    let cost = done.close();
                    if let Some(outer) = stack.last_mut() {
                        outer.push(cost);
                    }
                }
            }
            '|' => {
                group.push(Cost::default());
                let branch = std::mem::take(&mut group.branch);
                group.branches = Some(match group.branches {
                    Some(done) => done.or(branch),
                    None => branch,
                });
                group.count += 1;
            }
            '*' | '+' => group.last = group.last.times(32),
            '?' => {}
            '{' => match repetition(&chars, i) {
                Some((most, next)) => {
                    group.last = group.last.times(most);
                    i = next;
                }
                None => group.push(one),
            },
            _ => group.push(one),
        }
    }
    let mut total = Cost::default();
    while let Some(group) = stack.pop() {
        let cost = group.close().then(total);
        total = cost;
    }
    if total.chars > MAX_CHARS {
        return Err(PatternError::Length(total.chars));
    }
    if total.alternatives > MAX_ALTERNATIVES {
        return Err(PatternError::Alternatives(total.alternatives));
    }
    Ok(total)
}

/// Past an escape whose backslash is before `i`: `\p{..}`, `\x{..}`, `\u{..}` to
/// their brace, `\xHH` and the like to their digits, else one character.
fn skip_escape(chars: &[char], i: usize) -> usize {
    let Some(&kind) = chars.get(i) else {
        return i;
    };
    if matches!(kind, 'p' | 'P' | 'x' | 'u' | 'U') && chars.get(i + 1) == Some(&'{') {
        return chars[i..]
            .iter()
            .position(|c| *c == '}')
            .map_or(chars.len(), |offset| i + offset + 1);
    }
    let digits = match kind {
        'x' => 2,
        'u' => 4,
        'U' => 8,
        'p' | 'P' => 1,
        _ => 0,
    };
    (i + 1 + digits).min(chars.len())
}

/// Past a class whose `[` is before `i`, nested classes and escapes included.
fn skip_class(chars: &[char], mut i: usize) -> usize {
    let mut depth = 1;
    // A `]` first (after an optional `^`) is a character of the class.
    if chars.get(i) == Some(&'^') {
        i += 1;
    }
    if chars.get(i) == Some(&']') {
        i += 1;
    }
    while i < chars.len() {
        match chars[i] {
            '\\' => i += 1,
            '[' => depth += 1,
            ']' => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    chars.len()
}

/// `{n}`, `{n,}`, `{n,m}` after the `{` before `i`: the most repetitions a draw
/// makes (`{n,}` makes up to twice `n`) and where the quantifier ends.
fn repetition(chars: &[char], i: usize) -> Option<(u64, usize)> {
    let end = i + chars[i..].iter().position(|c| *c == '}')?;
    let body: String = chars[i..end]
        .iter()
        .filter(|c| !c.is_whitespace())
        .collect();
    let number = |text: &str| text.parse::<u64>().ok();
    let most = match body.split_once(',') {
        None => number(&body)?,
        Some((least, "")) => match number(least)? {
            0 | 1 => 32,
            least => least.saturating_mul(2),
        },
        Some((least, most)) => {
            number(least)?;
            number(most)?
        }
    };
    Some((most, end + 1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chars(pattern: &str) -> u64 {
        cost(pattern).expect("within the limits").chars
    }

    #[test]
    fn the_longest_string_is_counted() {
        assert_eq!(chars("[A-Z]{3}-[0-9]{2}"), 6);
        assert_eq!(chars("a+"), 32);
        assert_eq!(chars("(ab|cde)?x"), 4);
        assert_eq!(chars(r"\p{Greek}{2,5}"), 5);
        assert_eq!(chars(r"[\]a]{4}"), 4);
        assert_eq!(chars("(?i)ab(?:c|d){10,}"), 22);
        assert_eq!(chars("((a+)+)+"), 32 * 32 * 32);
    }

    #[test]
    fn costly_patterns_are_refused() {
        assert_eq!(
            cost("(((a+)+)+)+"),
            Err(PatternError::Length(32 * 32 * 32 * 32))
        );
        assert_eq!(
            cost("a{1000000000}"),
            Err(PatternError::Length(1_000_000_000))
        );
        assert_eq!(cost(&"(".repeat(40)), Err(PatternError::Nesting));
        assert_eq!(cost(&"a".repeat(5000)), Err(PatternError::Source(5000)));
        assert_eq!(
            cost("(a|b|c|d|e){2000}"),
            Err(PatternError::Alternatives(8000))
        );
    }
}
