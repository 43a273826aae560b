//! `--shard K/N`: which slice of a suite one machine plays, as plans and reports
//! carry it.

use std::fmt;
use std::str::FromStr;

/// The K-th of N slices (from 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Shard {
    pub index: usize,
    pub count: usize,
}

/// Text that is not `K/N` with `1 <= K <= N`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not K/N with 1 <= K <= N (for example 2/3)")]
pub(crate) struct BadShard(String);

impl FromStr for Shard {
    type Err = BadShard;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let expected = || BadShard(text.to_string());
        let (k, n) = text.split_once('/').ok_or_else(expected)?;
        let (index, count) = (
            k.trim().parse::<usize>().map_err(|_| expected())?,
            n.trim().parse::<usize>().map_err(|_| expected())?,
        );
        if index == 0 || index > count {
            return Err(expected());
        }
        Ok(Shard { index, count })
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shard_is_k_of_n() {
        assert_eq!("2/3".parse(), Ok(Shard { index: 2, count: 3 }));
        for bad in ["0/3", "4/3", "3", "a/b", "1/0", ""] {
            let err = bad.parse::<Shard>().expect_err(bad);
            assert!(err.to_string().contains("K/N"), "{err}");
        }
    }
}
