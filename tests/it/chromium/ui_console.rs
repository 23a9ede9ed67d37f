//! The Console panel in Chromium (issue 16): coloured output on both streams, the cut past 1 MiB, Up, a stop read back
//! as its signal by the service, a paired tab's command line and Stop disabled with the reason, axe at 1600 and 390.

use crate::support::{browser, Env};
use serde_json::json;

#[test]
fn the_console_panel_runs_colours_cuts_and_stops_commands() {
    let env = Env::start(&[], None, "p");
    let link = browser::pair_link(&env);
    let artifacts = browser::artifacts("console");
    let facts = browser::run_e2e(
        "e2e-console.mjs",
        &env,
        "",
        &artifacts,
        &[("RHO_PAIR_LINK", &link)],
    );
    for size in ["1600", "390"] {
        assert_eq!(facts["facts"][format!("axe_console_{size}")], 0, "{size}");
    }
    assert!(artifacts.join("console-390x844.png").exists());

    // What the panel showed is the service's record.
    let list = env.ok("console.list", json!({}));
    let commands = list["commands"].as_array().unwrap();
    let find = |c: &str| commands.iter().find(|x| x["command"] == c).unwrap();
    let sleep = find("sleep 30");
    assert_eq!(sleep["state"], "exited", "{sleep}");
    assert_eq!(sleep["signal"], 15, "{sleep}");
    assert_eq!(sleep["stoppedBy"], "local", "{sleep}");
    let big = find("yes line | head -c 1200000");
    assert_eq!(big["omittedBytes"], 1_200_000 - 1_048_576 - 65_536, "{big}");
    let held = find("sleep 20");
    assert_eq!(held["signal"], 15, "{held}");
    let live = find("yes live | head -c 1200000; echo STILL-RUNNING; sleep 9");
    assert_eq!(live["signal"], 15, "{live}");
    assert_eq!(
        live["omittedBytes"],
        1_200_014 - 1_048_576 - 65_536,
        "{live}"
    );
    assert_eq!(commands.len(), 6, "{list}");
}
