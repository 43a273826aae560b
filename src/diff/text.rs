//! Differences between two texts: where they first part, an excerpt around a place,
//! and a line diff.

/// How many characters two texts share at their start: the character index where
/// they first differ (the shorter one's length when one begins the other).
pub fn first_difference(left: &str, right: &str) -> usize {
    left.chars()
        .zip(right.chars())
        .take_while(|(a, b)| a == b)
        .count()
}

/// A piece of a text and whether anything was cut before or after it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Excerpt {
    pub text: String,
    pub cut_before: bool,
    pub cut_after: bool,
}

impl Excerpt {
    /// The whole text.
    pub fn whole(text: &str) -> Self {
        Self {
            text: text.to_string(),
            cut_before: false,
            cut_after: false,
        }
    }

    /// Up to `before` characters before character `at` and `from` characters from it.
    pub fn around(text: &str, at: usize, before: usize, from: usize) -> Self {
        let total = text.chars().count();
        let start = at.saturating_sub(before);
        let end = at.saturating_add(from).min(total);
        Self {
            text: text
                .chars()
                .skip(start)
                .take(end.saturating_sub(start))
                .collect(),
            cut_before: start > 0,
            cut_after: end < total,
        }
    }
}

/// One line of a line diff.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Line<'a> {
    /// In both texts.
    Same(&'a str),
    /// Only in the left (older) text.
    Removed(&'a str),
    /// Only in the right (newer) text.
    Added(&'a str),
}

/// The lines of `left` and `right` as one sequence of kept, removed and added lines:
/// a longest common subsequence of the lines is kept, and at each place the removed
/// lines come before the added ones. Quadratic in the lines that differ, after the
/// lines both texts start and end with are set aside.
pub fn lines<'a>(left: &'a str, right: &'a str) -> Vec<Line<'a>> {
    let (l, r): (Vec<&str>, Vec<&str>) = (left.lines().collect(), right.lines().collect());
    let head = l.iter().zip(&r).take_while(|(a, b)| a == b).count();
    let tail = l[head..]
        .iter()
        .rev()
        .zip(r[head..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    let (lm, rm) = (&l[head..l.len() - tail], &r[head..r.len() - tail]);
    // kept[i][j]: the longest common subsequence of lm[i..] and rm[j..].
    let mut kept = vec![vec![0usize; rm.len() + 1]; lm.len() + 1];
    for i in (0..lm.len()).rev() {
        for j in (0..rm.len()).rev() {
            kept[i][j] = if lm[i] == rm[j] {
                kept[i + 1][j + 1] + 1
            } else {
                kept[i + 1][j].max(kept[i][j + 1])
            };
        }
    }
    let mut out: Vec<Line<'a>> = l[..head].iter().map(|s| Line::Same(s)).collect();
    let (mut i, mut j) = (0, 0);
    while i < lm.len() || j < rm.len() {
        if i < lm.len() && j < rm.len() && lm[i] == rm[j] {
            out.push(Line::Same(lm[i]));
            (i, j) = (i + 1, j + 1);
        } else if j == rm.len() || (i < lm.len() && kept[i + 1][j] >= kept[i][j + 1]) {
            out.push(Line::Removed(lm[i]));
            i += 1;
        } else {
            out.push(Line::Added(rm[j]));
            j += 1;
        }
    }
    out.extend(l[l.len() - tail..].iter().map(|s| Line::Same(s)));
    out
}

/// A line diff as text: `-` before a removed line, `+` before an added one, two
/// spaces before a kept one; empty when the texts have the same lines.
pub fn unified(left: &str, right: &str) -> String {
    let diff = lines(left, right);
    if diff.iter().all(|line| matches!(line, Line::Same(_))) {
        return String::new();
    }
    diff.iter()
        .map(|line| match line {
            Line::Same(text) => format!("  {text}\n"),
            Line::Removed(text) => format!("- {text}\n"),
            Line::Added(text) => format!("+ {text}\n"),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn the_first_difference_counts_characters_not_bytes() {
        assert_eq!(first_difference("größe 1", "größe 2"), 6);
        assert_eq!(first_difference("abc", "abc"), 3);
        assert_eq!(first_difference("ab", "abc"), 2);
    }

    #[test]
    fn an_excerpt_says_where_it_was_cut() {
        let text = "0123456789";
        assert_eq!(
            Excerpt::around(text, 5, 2, 3),
            Excerpt {
                text: "34567".into(),
                cut_before: true,
                cut_after: true
            }
        );
        assert_eq!(Excerpt::around(text, 1, 5, 20), Excerpt::whole(text));
    }

    #[test]
    fn a_changed_line_is_removed_then_added() {
        assert_eq!(
            unified("a\nb\nc\nd\n", "a\nB\nc\nd\ne\n"),
            "  a\n- b\n+ B\n  c\n  d\n+ e\n"
        );
        assert_eq!(unified("same\n", "same"), "");
    }

    fn text() -> impl Strategy<Value = String> {
        prop::collection::vec("[ab]{0,2}", 0..8).prop_map(|lines| lines.join("\n"))
    }

    proptest! {
        #[test]
        fn a_text_has_no_line_changes_from_itself(a in text()) {
            prop_assert!(unified(&a, &a).is_empty());
        }

        #[test]
        fn each_side_is_rebuilt_from_the_line_diff(a in text(), b in text()) {
            let diff = lines(&a, &b);
            let left: Vec<&str> = diff.iter().filter_map(|l| match l {
                Line::Same(t) | Line::Removed(t) => Some(*t),
                Line::Added(_) => None,
            }).collect();
            let right: Vec<&str> = diff.iter().filter_map(|l| match l {
                Line::Same(t) | Line::Added(t) => Some(*t),
                Line::Removed(_) => None,
            }).collect();
            prop_assert_eq!(left, a.lines().collect::<Vec<_>>());
            prop_assert_eq!(right, b.lines().collect::<Vec<_>>());
        }
    }
}
