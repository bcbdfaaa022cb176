//! docs/passes.md is generated from passes/Passes.td; this test fails when the
//! committed file is stale. `POLYRS_BLESS=1 cargo test --test docs` rewrites it.

use std::path::PathBuf;

#[test]
fn passes_md_is_up_to_date() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("docs/passes.md");
    let expected = polyrs::passes::PASSES_MD;
    if std::env::var_os("POLYRS_BLESS").is_some() {
        std::fs::write(&path, expected).expect("write docs/passes.md");
        return;
    }
    let actual = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        actual == expected,
        "docs/passes.md is stale: run `POLYRS_BLESS=1 cargo test --test docs`"
    );
}

#[test]
fn every_pass_is_documented_with_its_options() {
    for pass in polyrs::passes::PASSES {
        assert!(polyrs::passes::PASSES_MD.contains(&format!("## {}", pass.argument)));
        for opt in pass.options {
            assert!(polyrs::passes::PASSES_MD.contains(&format!("`{}`", opt.argument)));
        }
    }
}
