//! Two lists paired by a key, for comparing what each side holds of the same thing.

/// An item of either list and its partner in the other, if any.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Paired<'a, T> {
    Both(&'a T, &'a T),
    OnlyLeft(&'a T),
    OnlyRight(&'a T),
}

/// Every item of `left` in its order, each with the first item of `right` of the
/// same key; then the items of `right` no left item has the key of. Keys repeated
/// within one side pair with the first of the other side.
pub fn pair<'a, T, K: PartialEq>(
    left: &'a [T],
    right: &'a [T],
    key: impl Fn(&T) -> K,
) -> Vec<Paired<'a, T>> {
    let mut out: Vec<Paired<'a, T>> = left
        .iter()
        .map(|l| {
            let k = key(l);
            match right.iter().find(|r| key(r) == k) {
                Some(r) => Paired::Both(l, r),
                None => Paired::OnlyLeft(l),
            }
        })
        .collect();
    out.extend(
        right
            .iter()
            .filter(|r| {
                let k = key(r);
                !left.iter().any(|l| key(l) == k)
            })
            .map(Paired::OnlyRight),
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_pair_by_key_left_order_first() {
        let left = [("a", 1), ("b", 2), ("c", 3)];
        let right = [("d", 4), ("b", 20), ("a", 1)];
        assert_eq!(
            pair(&left, &right, |item| item.0),
            [
                Paired::Both(&left[0], &right[2]),
                Paired::Both(&left[1], &right[1]),
                Paired::OnlyLeft(&left[2]),
                Paired::OnlyRight(&right[0]),
            ]
        );
        assert!(pair::<(u8, u8), u8>(&[], &[], |i| i.0).is_empty());
    }
}
