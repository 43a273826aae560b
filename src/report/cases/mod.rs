//! What a run of case files came to ([`TestRecord`]) and its renderings: a line per
//! case and a summary for people, the record itself as JSON, and JUnit XML.

mod human;
mod junit;
mod record;
#[cfg(test)]
mod test_support;

pub(crate) use human::{case_text, test_summary};
pub(crate) use junit::test_junit;
pub(crate) use record::{CaseKind, CaseRecord, CaseStatus, FileRecord, TestRecord};
