//! A check that a JUnit report is one CI systems accept (the JUnit XSD's rules), and
//! its testcases read back for assertions.

/// The JUnit elements a `<testcase>` may hold, as CI systems' JUnit XSD allows.
const CASE_CHILDREN: &[&str] = &[
    "failure",
    "error",
    "skipped",
    "system-out",
    "system-err",
    "properties",
];

/// The elements a `<testsuite>` may hold.
const SUITE_CHILDREN: &[&str] = &["testcase", "properties", "system-out", "system-err"];

fn elements<'a, 'i>(
    node: roxmltree::Node<'a, 'i>,
) -> impl Iterator<Item = roxmltree::Node<'a, 'i>> {
    node.children().filter(roxmltree::Node::is_element)
}

/// An attribute that must be there.
#[track_caller]
fn attribute<'a>(node: roxmltree::Node<'a, '_>, name: &str, xml: &str) -> &'a str {
    node.attribute(name)
        .unwrap_or_else(|| panic!("<{}> without `{name}`:\n{xml}", node.tag_name().name()))
}

/// A count attribute that must be there and be a whole number.
#[track_caller]
fn count(node: roxmltree::Node, name: &str, xml: &str) -> usize {
    let value = attribute(node, name, xml);
    value.parse().unwrap_or_else(|_| {
        panic!(
            "<{}> {name}=\"{value}\" is not a count:\n{xml}",
            node.tag_name().name()
        )
    })
}

/// `time`, when present, is a number of seconds.
#[track_caller]
fn check_time(node: roxmltree::Node, xml: &str) {
    if let Some(time) = node.attribute("time") {
        let seconds: f64 = time.parse().unwrap_or_else(|_| {
            panic!(
                "<{}> time=\"{time}\" is not a number:\n{xml}",
                node.tag_name().name()
            )
        });
        assert!(seconds >= 0.0, "negative time {time}:\n{xml}");
    }
}

/// How many of `cases` hold a `<tag>` child.
fn with_child(cases: &[roxmltree::Node], tag: &str) -> usize {
    cases
        .iter()
        .filter(|c| elements(**c).any(|e| e.has_tag_name(tag)))
        .count()
}

/// Checks `xml` against what CI systems' JUnit XSD requires: a `testsuites` root whose
/// `tests`, `failures` and `errors` agree with its testcases; suites with `name`,
/// `tests`, `failures`, `errors` (also agreeing) and a numeric `time` when present;
/// testcases with `name` and `classname`, holding only the allowed elements, at most
/// one outcome, and a `message` on each `failure` and `error`.
#[track_caller]
pub fn assert_valid_junit(xml: &str) {
    let doc = roxmltree::Document::parse(xml)
        .unwrap_or_else(|err| panic!("well-formed XML ({err}):\n{xml}"));
    let root = doc.root_element();
    assert!(
        root.has_tag_name("testsuites"),
        "the root is <{}>, not <testsuites>:\n{xml}",
        root.tag_name().name()
    );
    let mut all_cases = Vec::new();
    let suites: Vec<_> = elements(root).collect();
    assert!(!suites.is_empty(), "no <testsuite>:\n{xml}");
    for suite in suites {
        assert!(
            suite.has_tag_name("testsuite"),
            "<testsuites> holds <{}>:\n{xml}",
            suite.tag_name().name()
        );
        assert!(
            !attribute(suite, "name", xml).is_empty(),
            "a testsuite with an empty name:\n{xml}"
        );
        check_time(suite, xml);
        for child in elements(suite) {
            assert!(
                SUITE_CHILDREN.contains(&child.tag_name().name()),
                "<testsuite> holds <{}>:\n{xml}",
                child.tag_name().name()
            );
        }
        let cases: Vec<_> = elements(suite)
            .filter(|c| c.has_tag_name("testcase"))
            .collect();
        for case in &cases {
            assert!(
                !attribute(*case, "name", xml).is_empty(),
                "a testcase with an empty name:\n{xml}"
            );
            attribute(*case, "classname", xml);
            check_time(*case, xml);
            let children: Vec<_> = elements(*case).collect();
            for child in &children {
                let tag = child.tag_name().name();
                assert!(
                    CASE_CHILDREN.contains(&tag),
                    "<testcase> holds <{tag}>:\n{xml}"
                );
                if tag == "failure" || tag == "error" {
                    attribute(*child, "message", xml);
                }
            }
            let outcomes = children
                .iter()
                .filter(|c| ["failure", "error", "skipped"].contains(&c.tag_name().name()))
                .count();
            assert!(outcomes <= 1, "a testcase with {outcomes} outcomes:\n{xml}");
        }
        let name = suite.attribute("name").unwrap_or_default();
        assert_eq!(count(suite, "tests", xml), cases.len(), "{name}: tests");
        assert_eq!(
            count(suite, "failures", xml),
            with_child(&cases, "failure"),
            "{name}: failures\n{xml}"
        );
        assert_eq!(
            count(suite, "errors", xml),
            with_child(&cases, "error"),
            "{name}: errors\n{xml}"
        );
        if suite.attribute("skipped").is_some() {
            assert_eq!(
                count(suite, "skipped", xml),
                with_child(&cases, "skipped"),
                "{name}: skipped\n{xml}"
            );
        }
        all_cases.extend(cases);
    }
    assert_eq!(
        count(root, "tests", xml),
        all_cases.len(),
        "testsuites: tests\n{xml}"
    );
    assert_eq!(
        count(root, "failures", xml),
        with_child(&all_cases, "failure"),
        "testsuites: failures\n{xml}"
    );
    assert_eq!(
        count(root, "errors", xml),
        with_child(&all_cases, "error"),
        "testsuites: errors\n{xml}"
    );
}

/// One testcase of a valid report: where it is, and the tag and message of its
/// outcome element (`failure`, `error` or `skipped`), if any.
#[derive(Debug, PartialEq)]
pub struct Case {
    pub classname: String,
    pub name: String,
    pub outcome: Option<(String, String)>,
}

impl Case {
    /// The message of its outcome element when that is `tag`.
    pub fn message_of(&self, tag: &str) -> Option<&str> {
        self.outcome
            .as_ref()
            .filter(|(t, _)| t == tag)
            .map(|(_, message)| message.as_str())
    }
}

/// Every testcase of `xml`, which must be valid JUnit.
#[track_caller]
pub fn junit_cases(xml: &str) -> Vec<Case> {
    assert_valid_junit(xml);
    let doc = roxmltree::Document::parse(xml).unwrap_or_else(|err| panic!("{err}"));
    doc.descendants()
        .filter(|n| n.has_tag_name("testcase"))
        .map(|case| Case {
            classname: case.attribute("classname").unwrap_or_default().to_string(),
            name: case.attribute("name").unwrap_or_default().to_string(),
            outcome: elements(case)
                .find(|c| ["failure", "error", "skipped"].contains(&c.tag_name().name()))
                .map(|c| {
                    (
                        c.tag_name().name().to_string(),
                        c.attribute("message").unwrap_or_default().to_string(),
                    )
                }),
        })
        .collect()
}

#[track_caller]
pub fn junit_case<'c>(cases: &'c [Case], name: &str) -> &'c Case {
    cases
        .iter()
        .find(|c| c.name == name)
        .unwrap_or_else(|| panic!("a testcase `{name}` in {cases:#?}"))
}

#[test]
fn the_junit_check_rejects_reports_ci_systems_refuse() {
    let valid = r#"<testsuites tests="1" failures="1" errors="0">
        <testsuite name="s" tests="1" failures="1" errors="0" time="0.5">
          <testcase name="c" classname="k"><failure message="m"/></testcase>
        </testsuite></testsuites>"#;
    assert_valid_junit(valid);
    for (what, xml) in [
        ("not XML", "<testsuites"),
        (
            "another root",
            r#"<testsuite name="s" tests="0" failures="0" errors="0"/>"#,
        ),
        (
            "root counts that disagree",
            &valid.replace(r#"<testsuites tests="1""#, r#"<testsuites tests="2""#),
        ),
        (
            "suite counts that disagree",
            &valid.replace(
                r#"failures="1" errors="0" time"#,
                r#"failures="0" errors="0" time"#,
            ),
        ),
        ("a suite without a name", &valid.replace(r#"name="s" "#, "")),
        ("a time that is not a number", &valid.replace("0.5", "soon")),
        (
            "a case without a classname",
            &valid.replace(r#" classname="k""#, ""),
        ),
        (
            "a failure without a message",
            &valid.replace(r#"<failure message="m"/>"#, "<failure/>"),
        ),
        (
            "an unknown child of a case",
            &valid.replace(
                r#"<failure message="m"/>"#,
                r#"<failure message="m"/><note/>"#,
            ),
        ),
    ] {
        let xml = xml.to_string();
        let caught = std::panic::catch_unwind(|| assert_valid_junit(&xml));
        assert!(caught.is_err(), "{what} passed the check:\n{xml}");
    }
}
