//! `include_generated!` makes the four generated modules from a directory,
//! and the modules see each other through `super::`.

/// The modules, from a path under `CARGO_MANIFEST_DIR`.
pub mod from_manifest_dir {
    mcpgen_runtime::include_generated!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/generated"
    ));
}

/// The modules, from a path relative to this file.
pub mod from_relative_literal {
    mcpgen_runtime::include_generated!("fixtures/generated");
}

#[test]
fn modules_are_included_and_refer_to_each_other() {
    use from_manifest_dir::{protocol::Ping, tools::EchoInput};
    let input = EchoInput {
        ping: Ping { id: 7 },
    };
    assert_eq!(input.ping.id, 7);
    let other = from_relative_literal::tools::EchoInput {
        ping: from_relative_literal::protocol::Ping { id: 7 },
    };
    assert_eq!(format!("{other:?}"), format!("{input:?}"));
}
