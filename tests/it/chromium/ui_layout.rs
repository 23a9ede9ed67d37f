//! The layout by keyboard in Chromium (issue 14): F6 and Shift+F6 reach every region in order and wrap (docked
//! and in the strip), a panel moves to a new group and a group takes a typed size without a drag, and the
//! docked layout is remembered per project across a reload and a narrow window, a stale memory falling back.

use crate::support::{browser, Env};

#[test]
fn the_layout_is_driven_by_keyboard_and_remembered_per_project() {
    let env = Env::start(&[], None, "p");
    std::fs::write(
        env.dir.join("analysis.R"),
        "d <- read.csv(\"data.csv\")\nprint(summary(d))\n",
    )
    .unwrap();
    std::fs::write(env.dir.join("data.csv"), "dose,response\n0,1.2\n5,2.4\n").unwrap();
    let artifacts = browser::artifacts("layout");
    let facts = browser::run_e2e("e2e-layout.mjs", &env, "", &artifacts, &[]);
    let f = &facts["facts"];
    for name in ["axe_arrange_1600", "axe_arranged_1600", "axe_strip_390"] {
        assert_eq!(f[name], 0, "{name}: {f}");
    }
    let editors = format!("group:{}", f["editors"].as_str().unwrap());
    assert_eq!(
        f["f6_1600"],
        serde_json::json!(["header", "group:Projects", editors, "header"]),
        "{f}"
    );
    assert_eq!(
        f["f6_390"],
        serde_json::json!(["header", "tabs", "panel", "header"])
    );
    assert_eq!(f["after_reload"]["groups"], f["arranged"]["groups"], "{f}");
    assert!(artifacts.join("arranged-1600x900.png").exists());
}
