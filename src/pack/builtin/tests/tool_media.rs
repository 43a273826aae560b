//! The checks on the media parts a tool returned beside its result.

use serde_json::{Value as Json, json};

use super::{calls, case, fail, judge_all, ok, pass, refused_row};

/// A call to `name` that returned a text part and an image part of `mime`.
fn with_image(name: &str, mime: &str) -> Json {
    let mut call = ok(name, json!({}), "{}");
    call["parts"] = json!([
        {"type": "text", "text": "a chart"},
        {"type": "image", "media": {"mime_type": mime, "data": "AAAA"}},
    ]);
    call
}

/// A call to `name` that returned only a text part.
fn text_only(name: &str) -> Json {
    let mut call = ok(name, json!({}), "{}");
    call["parts"] = json!([{"type": "text", "text": "image/png"}]);
    call
}

#[test]
fn has_media_passes_on_a_part_of_the_type() {
    let image = json!({"tool": "chart", "media_type": "image"});
    judge_all(vec![
        (
            "the named tool returned an image",
            case("tool_result_has_media", "x", image.clone())
                .with(calls(vec![with_image("chart", "image/png")])),
            pass("tool `chart` returned a part of type `image`"),
        ),
        (
            "the type is compared without regard to case",
            case(
                "tool_result_has_media",
                "x",
                json!({"tool_name": "chart", "media_type": "IMAGE"}),
            )
            .with(calls(vec![with_image("chart", "image/png")])),
            pass("returned a part of type `IMAGE`"),
        ),
        (
            "no tool named: any call counts",
            case("tool_result_has_media", "x", json!({"media_type": "image"})).with(calls(vec![
                ok("other", json!({}), ""),
                with_image("scan", "image/jpeg"),
            ])),
            pass("tool `scan` returned"),
        ),
        (
            "another tool's image does not count",
            case("tool_result_has_media", "x", image.clone())
                .with(calls(vec![with_image("scan", "image/png")])),
            fail(0.0, "no tool result has a part of type `image`"),
        ),
        (
            "a text part is not an image",
            case("tool_result_has_media", "x", image.clone()).with(calls(vec![text_only("chart")])),
            fail(0.0, "no tool result has a part of type `image`"),
        ),
        (
            "a call without parts has no media",
            case("tool_result_has_media", "x", image.clone()).with(calls(vec![ok(
                "chart",
                json!({}),
                "{\"type\": \"image\"}",
            )])),
            fail(0.0, "part of type `image`"),
        ),
        (
            "no calls",
            case("tool_result_has_media", "x", image).with(calls(vec![])),
            fail(0.0, "part of type `image`"),
        ),
    ]);
}

#[test]
fn media_type_passes_on_media_of_the_mime_type() {
    let png = json!({"tool": "chart", "mime_type": "image/png"});
    judge_all(vec![
        (
            "the named tool returned a png",
            case("tool_result_media_type", "x", png.clone())
                .with(calls(vec![with_image("chart", "image/png")])),
            pass("tool `chart` returned media of MIME type `image/png`"),
        ),
        (
            "the MIME type is compared without regard to case",
            case("tool_result_media_type", "x", png.clone())
                .with(calls(vec![with_image("chart", "Image/PNG")])),
            pass("MIME type `image/png`"),
        ),
        (
            "another MIME type",
            case("tool_result_media_type", "x", png.clone())
                .with(calls(vec![with_image("chart", "image/jpeg")])),
            fail(0.0, "no tool result has media of MIME type `image/png`"),
        ),
        (
            "another tool's png does not count",
            case("tool_result_media_type", "x", png.clone())
                .with(calls(vec![with_image("scan", "image/png")])),
            fail(0.0, "MIME type `image/png`"),
        ),
        (
            "no tool named: any call counts",
            case(
                "tool_result_media_type",
                "x",
                json!({"mime_type": "image/jpeg"}),
            )
            .with(calls(vec![
                with_image("chart", "image/png"),
                with_image("scan", "image/jpeg"),
            ])),
            pass("tool `scan` returned"),
        ),
    ]);
    // A text part's media is not looked at.
    let mut call = ok("chart", json!({}), "{}");
    call["parts"] = json!([{"type": "text", "text": "t", "media": {"mime_type": "image/png"}}]);
    judge_all(vec![(
        "a text part is not media",
        case("tool_result_media_type", "x", png).with(calls(vec![call])),
        fail(0.0, "MIME type `image/png`"),
    )]);
}

#[test]
fn the_type_to_look_for_is_required() {
    for row in [
        (
            "has_media without media_type",
            "tool_result_has_media",
            json!({"tool": "chart"}),
            "media_type",
        ),
        (
            "media_type without mime_type",
            "tool_result_media_type",
            json!({"tool": "chart"}),
            "mime_type",
        ),
        (
            "has_media takes no mime_type",
            "tool_result_has_media",
            json!({"media_type": "image", "mime_type": "image/png"}),
            "mime_type",
        ),
    ] {
        refused_row(row);
    }
}
