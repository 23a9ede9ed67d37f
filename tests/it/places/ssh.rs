//! Places through the real `rho` (issue 19, `places::ssh`) against a private sshd on loopback: defining,
//! checking and choosing places with `maxPlaces`; listing with the cut; copying with its
//! identity, digest, refusals and `maxCopies`; R and Python sessions on the place recording
//! where they and their cells ran; kill -9 of Rho leaving nothing on the server; the masters
//! ending with the service.

use crate::support::env::Launch;
use crate::support::poll::until;
use crate::support::sshd::{free_port, processes_with, Sshd};
use crate::support::Env;
use serde_json::{json, Value};
use std::time::Duration;

fn env(limits: Option<Value>) -> Env {
    Env::launch(Launch {
        limits,
        name: Some("places"),
        ..Launch::default()
    })
}

fn define(e: &Env, name: &str, definition: Value) -> Value {
    e.ok(
        "kernel.place.set",
        json!({"place": name, "define": definition}),
    )
}

/// The interpreter of `language` by its real path (the server's PATH differs from ours).
fn program(language: &str) -> String {
    let (bin, code) = match language {
        "r" => ("Rscript", "cat(file.path(R.home('bin'), 'Rscript'))"),
        _ => ("python3", "import sys; print(sys.executable, end='')"),
    };
    let flag = if language == "r" { "-e" } else { "-c" };
    let out = std::process::Command::new(bin)
        .args([flag, code])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

fn lab(sshd: &Sshd) -> Value {
    let mut d = sshd.definition();
    d["rscript"] = json!(program("r"));
    d["python"] = json!(program("python"));
    d
}

fn names(places: &Value) -> Vec<String> {
    places["places"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn places_are_defined_checked_and_bounded_and_bad_input_changes_nothing() {
    let sshd = Sshd::start();
    let e = env(Some(json!({"kernel": {"maxPlaces": 2}})));
    let p = e.ok("kernel.places", json!({}));
    assert_eq!(names(&p), ["local"], "{p}");
    assert_eq!(p["places"][0]["languages"], json!(["r", "python"]));
    assert_eq!(p["maxPlaces"], 2);
    let p = define(&e, "lab", lab(&sshd));
    assert_eq!(names(&p), ["local", "lab"], "{p}");
    assert_eq!(p["places"][1]["kind"], "ssh");
    assert_eq!(p["places"][1]["definedBy"], "operator");
    // The check reports what the server has and is kept as the place's last check.
    let c = e.ok("kernel.place.check", json!({"place": "lab"}));
    assert_eq!(c["ok"], true, "{c}");
    assert!(
        c["r"]["version"].as_str().unwrap().contains("version"),
        "{c}"
    );
    assert_eq!(c["jsonlite"], true, "{c}");
    assert!(
        c["python"]["version"]
            .as_str()
            .unwrap()
            .starts_with("Python 3"),
        "{c}"
    );
    assert!(c["freeBytes"].as_u64().unwrap() > 0, "{c}");
    let p = e.ok("kernel.places", json!({}));
    assert_eq!(p["places"][1]["lastCheck"], c, "{p}");
    // A place nobody answers at: the check says why, and that is kept too.
    let mut closed = sshd.definition();
    closed["ssh"]["args"][3] = json!(free_port().to_string());
    define(&e, "gone", closed);
    let c = e.ok("kernel.place.check", json!({"place": "gone"}));
    assert_eq!(
        (c["ok"].as_bool(), c["errorKind"].as_str()),
        (Some(false), Some("connect")),
        "{c}"
    );
    assert!(c["error"].as_str().unwrap().contains("refused"), "{c}");
    // maxPlaces: a third place is refused, named; redefining one is not a new place.
    let (_, err) = e.err(
        "kernel.place.set",
        json!({"place": "more", "define": lab(&sshd)}),
    );
    assert_eq!(err["code"], "limit", "{err}");
    assert_eq!(err["details"]["limit"], "kernel.maxPlaces", "{err}");
    define(&e, "gone", lab(&sshd));
    // Bad input is refused and changes nothing.
    for (body, field) in [
        (json!({"place": "Bad Name", "define": lab(&sshd)}), "place"),
        (
            json!({"place": "lab", "define": {"ssh": {"destination": "a"}, "server": "s"}}),
            "define",
        ),
        (json!({"place": "local", "define": lab(&sshd)}), "place"),
        (json!({"place": "lab"}), "place"),
        (
            json!({"place": "lab", "define": {"ssh": {"destination": "-oProxyCommand=x"}}}),
            "define.ssh.destination",
        ),
    ] {
        let (_, err) = e.err("kernel.place.set", body.clone());
        assert_eq!(err["code"], "invalid", "{body}: {err}");
        assert_eq!(err["details"]["field"], field, "{body}: {err}");
    }
    let (_, err) = e.err(
        "kernel.place.set",
        json!({"place": "nowhere", "language": "r"}),
    );
    assert_eq!(err["code"], "not_found", "{err}");
    let (_, err) = e.err("kernel.place.check", json!({"place": "nowhere"}));
    assert_eq!(err["code"], "not_found", "{err}");
    assert_eq!(
        names(&e.ok("kernel.places", json!({}))),
        ["local", "gone", "lab"]
    );
    // A place a language uses cannot go; once the language is back here, it can.
    e.ok(
        "kernel.place.set",
        json!({"place": "lab", "language": "python"}),
    );
    let (_, err) = e.err("kernel.place.set", json!({"place": "lab", "remove": true}));
    assert_eq!(err["code"], "conflict", "{err}");
    e.ok(
        "kernel.place.set",
        json!({"place": "local", "language": "python"}),
    );
    let p = e.ok("kernel.place.set", json!({"place": "lab", "remove": true}));
    assert_eq!(names(&p), ["local", "gone"]);
}

#[test]
fn a_listing_is_cut_and_a_copy_is_recorded_once_per_identity_within_its_limits() {
    let sshd = Sshd::start();
    let e = env(Some(
        json!({"kernel": {"remoteEntries": 3, "remoteCopyBytes": 1000, "maxCopies": 2}}),
    ));
    define(&e, "lab", lab(&sshd));
    let data = tempfile::tempdir().unwrap();
    for i in 0..5 {
        std::fs::write(
            data.path().join(format!("f{i}.csv")),
            format!("a,b\n{i},{i}\n"),
        )
        .unwrap();
    }
    std::fs::write(data.path().join("big.bin"), vec![7u8; 5000]).unwrap();
    let folder = data.path().display().to_string();
    let l = e.ok("kernel.place.list", json!({"place": "lab", "path": folder}));
    assert_eq!(l["entries"].as_array().unwrap().len(), 3, "{l}");
    assert_eq!(
        (l["omitted"].as_u64(), l["cut"].as_bool()),
        (Some(3), Some(true)),
        "{l}"
    );
    assert_eq!(l["entries"][0]["name"], "big.bin", "{l}");
    let (_, err) = e.err(
        "kernel.place.list",
        json!({"place": "lab", "path": format!("{folder}/none")}),
    );
    assert_eq!(err["code"], "not_found", "{err}");
    // A copy: the bytes, their digest, the source and who asked; the same identity is the same record.
    let body = json!({"place": "lab", "path": format!("{folder}/f1.csv"), "changeId": "c1"});
    let c = e.ok("kernel.place.copy", body.clone());
    assert_eq!(
        std::fs::read_to_string(e.dir.join("f1.csv")).unwrap(),
        "a,b\n1,1\n"
    );
    assert_eq!(c["bytes"], 8);
    assert_eq!(
        c["digest"],
        format!(
            "sha256:{}",
            crate::support::service::sha256_hex(b"a,b\n1,1\n")
        )
    );
    assert_eq!(
        (c["by"].as_str(), c["place"].as_str()),
        (Some("operator"), Some("lab"))
    );
    assert_eq!(c["source"], format!("{folder}/f1.csv"));
    assert_eq!(e.ok("kernel.place.copy", body), c);
    let (_, err) = e.err(
        "kernel.place.copy",
        json!({"place": "lab", "path": format!("{folder}/f2.csv"), "changeId": "c1"}),
    );
    assert_eq!(err["code"], "conflict", "{err}");
    // Never over an existing file; never a file over remoteCopyBytes (nothing written).
    let (_, err) = e.err(
        "kernel.place.copy",
        json!({"place": "lab", "path": format!("{folder}/f1.csv"), "changeId": "c2"}),
    );
    assert_eq!(err["code"], "conflict", "{err}");
    let (_, err) = e.err(
        "kernel.place.copy",
        json!({"place": "lab", "path": format!("{folder}/big.bin"), "changeId": "c3"}),
    );
    assert_eq!(
        (err["code"].as_str(), err["details"]["limit"].as_str()),
        (Some("limit"), Some("kernel.remoteCopyBytes")),
        "{err}"
    );
    assert!(!e.dir.join("big.bin").exists());
    let leftovers: Vec<_> = std::fs::read_dir(&e.dir)
        .unwrap()
        .flatten()
        .filter(|f| f.file_name().to_string_lossy().contains(".part"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    // maxCopies: two records kept, the oldest goes; its identity still never copies again.
    e.ok("kernel.place.copy", json!({"place": "lab", "path": format!("{folder}/f2.csv"), "changeId": "c4", "to": "in/two.csv"}));
    e.ok("kernel.place.copy", json!({"place": "lab", "path": format!("{folder}/f3.csv"), "changeId": "c5", "to": "in/three.csv"}));
    assert_eq!(
        std::fs::read_to_string(e.dir.join("in/three.csv")).unwrap(),
        "a,b\n3,3\n"
    );
    let (_, err) = e.err(
        "kernel.place.copy",
        json!({"place": "lab", "path": format!("{folder}/f1.csv"), "changeId": "c1"}),
    );
    assert_eq!(err["code"], "not_found", "{err}");
    let (_, err) = e.err("kernel.place.copy", json!({"place": "lab", "path": format!("{folder}/f4.csv"), "changeId": "c6", "to": "../out.csv"}));
    assert_eq!(err["code"], "invalid", "{err}");
}

fn run(e: &Env, language: &str, change: &str, code: &str, wait_ms: u64) -> Value {
    e.ok(
        "kernel.run",
        json!({"language": language, "code": code, "changeId": change, "waitMs": wait_ms}),
    )
}

fn text(cell: &Value) -> String {
    cell["output"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["text"].as_str().unwrap())
        .collect()
}

fn session(e: &Env, id: &Value) -> Value {
    e.ok("kernel.read", json!({}))["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| &s["sessionId"] == id)
        .cloned()
        .unwrap()
}

/// `kernel.stop` is the local browser's.
fn stop(e: &Env, session: &Value) {
    let (status, v) = e.local("kernel.stop", json!({"sessionId": session}));
    assert_eq!(status, 200, "{v}");
}

#[test]
fn sessions_on_the_ssh_place_run_r_and_python_and_records_say_where() {
    let sshd = Sshd::start();
    let e = env(None);
    define(&e, "lab", lab(&sshd));
    let p = e.ok("kernel.place.set", json!({"place": "lab", "language": "r"}));
    assert_eq!(p["places"][1]["languages"], json!(["r"]), "{p}");
    assert_eq!(p["stays"], json!([]));
    let a = run(&e, "r", "a", "x <- 42\nx", 60_000);
    assert_eq!(a["end"]["outcome"], "done", "{a}");
    assert_eq!(text(&a), "[1] 42\n");
    assert_eq!(a["place"], "lab", "{a}");
    let s = session(&e, &a["sessionId"]);
    assert_eq!(s["place"], "lab", "{s}");
    assert!(s["version"].as_str().unwrap().starts_with("R "), "{s}");
    // A plot's bytes came back and are kept by digest.
    let p = run(&e, "r", "p", "plot(1:3)", 60_000);
    assert_eq!(p["plots"].as_array().unwrap().len(), 1, "{p}");
    let png = e.ok("kernel.plot", json!({"cellId": p["cellId"], "index": 0}));
    assert!(png["png"].as_str().unwrap().starts_with("iVBOR"), "{png}");
    // Interrupt over the connection; the values stay.
    let long = run(&e, "r", "long", "cat('sleeping\\n'); Sys.sleep(30)", 0);
    until("the cell prints", Duration::from_secs(20), || {
        text(&e.ok("kernel.read", json!({"cellId": long["cellId"]}))["cells"][0])
            .contains("sleeping")
    });
    e.ok("kernel.interrupt", json!({"cellId": long["cellId"]}));
    until("the cell ends", Duration::from_secs(10), || {
        e.ok("kernel.read", json!({"cellId": long["cellId"]}))["cells"][0]["end"]["outcome"]
            == "interrupted"
    });
    assert_eq!(text(&run(&e, "r", "b", "x", 60_000)), "[1] 42\n");
    // Python here at the same time: this machine (no place).
    let py = run(&e, "python", "py", "print(6 * 7)", 60_000);
    assert_eq!(
        (text(&py).as_str(), &py["place"]),
        ("42\n", &Value::Null),
        "{py}"
    );
    // Choosing this machine for R again does not move the live session: it is named, and
    // cells keep joining it until it ends.
    let p = e.ok(
        "kernel.place.set",
        json!({"place": "local", "language": "r"}),
    );
    assert_eq!(p["stays"][0]["sessionId"], a["sessionId"], "{p}");
    assert_eq!(p["stays"][0]["place"], "lab", "{p}");
    let c = run(&e, "r", "c", "x + 1", 60_000);
    assert_eq!(
        (c["place"].as_str(), &c["sessionId"]),
        (Some("lab"), &a["sessionId"])
    );
    let remote_pgid = s["pid"].as_u64().unwrap();
    stop(&e, &a["sessionId"]);
    until("the session ends", Duration::from_secs(15), || {
        session(&e, &a["sessionId"])["state"] == "ended"
    });
    until(
        "nothing is left on the server",
        Duration::from_secs(10),
        || !std::path::Path::new(&format!("/proc/{remote_pgid}")).exists(),
    );
    let d = run(&e, "r", "d", "exists('x')", 60_000);
    assert_eq!(
        (text(&d).as_str(), &d["place"]),
        ("[1] FALSE\n", &Value::Null),
        "{d}"
    );
    // Python sessions run there too.
    e.ok(
        "kernel.place.set",
        json!({"place": "lab", "language": "python"}),
    );
    stop(&e, &py["sessionId"]);
    until("python ends", Duration::from_secs(15), || {
        session(&e, &py["sessionId"])["state"] == "ended"
    });
    let q = run(
        &e,
        "python",
        "q",
        "import os\nprint(len(os.getcwd()) > 0)",
        60_000,
    );
    assert_eq!(
        (text(&q).as_str(), q["place"].as_str()),
        ("True\n", Some("lab")),
        "{q}"
    );
}

#[test]
fn killing_rho_leaves_no_process_on_the_server_and_the_masters_end_with_a_stop() {
    let sshd = Sshd::start();
    let mut e = env(None);
    define(&e, "lab", lab(&sshd));
    e.ok("kernel.place.set", json!({"place": "lab", "language": "r"}));
    let a = run(&e, "r", "a", "system('sleep 3003 &')", 60_000);
    assert_eq!(a["end"]["outcome"], "done", "{a}");
    let long = run(&e, "r", "long", "Sys.sleep(120)", 0);
    let pgid = session(&e, &a["sessionId"])["pid"].as_u64().unwrap();
    assert!(std::path::Path::new(&format!("/proc/{pgid}")).exists());
    assert_eq!(processes_with("sleep 3003").len(), 1);
    e.service.child.kill().unwrap(); // SIGKILL
    let _ = e.service.child.wait();
    until("the server side ends", Duration::from_secs(15), || {
        processes_with("sleep 3003").is_empty()
            && !std::path::Path::new(&format!("/proc/{pgid}")).exists()
    });
    // The next start records what was cut short; nothing runs again.
    e.restart(&[]);
    let cell = &e.ok("kernel.read", json!({"cellId": long["cellId"]}))["cells"][0];
    assert_eq!(cell["end"]["outcome"], "unknown", "{cell}");
    assert_eq!(session(&e, &a["sessionId"])["end"]["reason"], "rho-closed");
    // A stop ends the place's multiplexing master with the service.
    let b = run(&e, "r", "b", "1", 60_000);
    assert_eq!(b["place"], "lab", "{b}");
    let control = e.state.path().join("ssh").display().to_string();
    assert!(!processes_with(&control).is_empty(), "a master runs");
    let term = std::process::Command::new("kill")
        .args(["-TERM", &e.service.child.id().to_string()])
        .status()
        .unwrap();
    assert!(term.success());
    let _ = e.service.child.wait();
    until("the master ends", Duration::from_secs(10), || {
        processes_with(&control).is_empty()
    });
}

#[test]
fn servers_and_skills_come_from_serverctl_and_a_session_runs_on_a_server_through_it() {
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("kernels/tests/fixtures/serverctl")
        .display()
        .to_string();
    let reg = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(reg.path().join("gpu1")).unwrap();
    std::fs::write(
        reg.path().join("servers.json"),
        r#"{"servers":[{"name":"gpu1","host":"gpu1.lab","state":"running","skills":["pytorch","big"]}]}"#,
    )
    .unwrap();
    std::fs::write(reg.path().join("gpu1/pytorch.md"), "Use CUDA 12.\n").unwrap();
    std::fs::write(reg.path().join("gpu1/big.md"), "x".repeat(5000)).unwrap();
    let registry = reg.path().display().to_string();
    let e = Env::launch(Launch {
        args: &["--serverctl", &fixture],
        env: &[("SSM_REGISTRY", &registry)],
        limits: Some(json!({"kernel": {"serverSkillBytes": 1000}})),
        name: Some("servers"),
        ..Launch::default()
    });
    let s = e.ok("kernel.servers", json!({}));
    assert_eq!(s["program"], fixture.as_str());
    assert_eq!(s["servers"][0]["name"], "gpu1", "{s}");
    assert_eq!(s["servers"][0]["skills"], json!(["pytorch", "big"]));
    let k = e.ok(
        "kernel.server.skill",
        json!({"server": "gpu1", "skill": "pytorch"}),
    );
    assert_eq!(k["text"], "Use CUDA 12.\n", "{k}");
    let (_, err) = e.err(
        "kernel.server.skill",
        json!({"server": "gpu1", "skill": "big"}),
    );
    assert_eq!(err["code"], "limit", "{err}");
    assert_eq!(err["details"]["limit"], "kernel.serverSkillBytes", "{err}");
    assert!(
        err["details"]["path"]
            .as_str()
            .unwrap()
            .ends_with("gpu1/big.md"),
        "{err}"
    );
    let (_, err) = e.err(
        "kernel.server.skill",
        json!({"server": "nope", "skill": "pytorch"}),
    );
    assert_eq!(err["code"], "not_found", "{err}");
    // A server as a place: checked and used for R's sessions through `serverctl exec`.
    define(
        &e,
        "gpu",
        json!({"server": "gpu1", "rscript": program("r")}),
    );
    let c = e.ok("kernel.place.check", json!({"place": "gpu"}));
    assert_eq!(c["ok"], true, "{c}");
    assert_eq!(c["jsonlite"], true, "{c}");
    e.ok("kernel.place.set", json!({"place": "gpu", "language": "r"}));
    let a = run(&e, "r", "a", "6 * 7", 60_000);
    assert_eq!(
        (text(&a).as_str(), a["place"].as_str()),
        ("[1] 42\n", Some("gpu")),
        "{a}"
    );
}
