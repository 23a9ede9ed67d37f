//! A serverctl server's files through the real `rho` (docs/serverctl.md, the fixture program):
//! `kernel.place.list` with the cut and `kernel.place.copy` with its digest, the size refusal
//! before anything is sent and `maxCopies`, as on an ssh place; an unknown server and a
//! serverctl gone since the start say so.
use crate::support::env::Launch;
use crate::support::service::sha256_hex;
use crate::support::Env;
use serde_json::json;

fn fixture() -> String {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("kernels/tests/fixtures/serverctl")
        .display()
        .to_string()
}

#[test]
fn a_servers_files_are_listed_and_copied_through_serverctl_with_the_places_bounds() {
    let reg = tempfile::tempdir().unwrap();
    let home = reg.path().join("gpu1/home");
    std::fs::create_dir_all(home.join("data")).unwrap();
    std::fs::write(
        reg.path().join("servers.json"),
        r#"{"servers":[{"name":"gpu1","host":null,"state":"running","skills":[]}]}"#,
    )
    .unwrap();
    for i in 0..4 {
        std::fs::write(home.join(format!("data/f{i}.csv")), format!("a\n{i}\n")).unwrap();
    }
    std::fs::write(home.join("data/g.bin"), vec![1u8; 5000]).unwrap();
    let (program, registry) = (fixture(), reg.path().display().to_string());
    let e = Env::launch(Launch {
        args: &["--serverctl", &program],
        env: &[("SSM_REGISTRY", &registry)],
        limits: Some(
            json!({"kernel": {"remoteEntries": 3, "remoteCopyBytes": 1000, "maxCopies": 1}}),
        ),
        name: Some("server-files"),
        ..Launch::default()
    });
    for (name, server) in [("gpu", "gpu1"), ("gone", "nobody")] {
        e.ok(
            "kernel.place.set",
            json!({"place": name, "define": {"server": server}}),
        );
    }
    // The listing, relative to the server's login folder: the first entries, the rest counted.
    let l = e.ok("kernel.place.list", json!({"place": "gpu", "path": "data"}));
    let names: Vec<&str> = l["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["f0.csv", "f1.csv", "f2.csv"], "{l}");
    assert_eq!(
        (l["omitted"].as_u64(), l["cut"].as_bool()),
        (Some(2), Some(true))
    );
    assert!(
        l["path"].as_str().unwrap().ends_with("gpu1/home/data"),
        "{l}"
    );
    // A copy: the bytes, their digest, the source and who asked.
    let c = e.ok(
        "kernel.place.copy",
        json!({"place": "gpu", "path": "data/f1.csv", "changeId": "c1"}),
    );
    assert_eq!(std::fs::read(e.dir.join("f1.csv")).unwrap(), b"a\n1\n");
    assert_eq!(
        c["digest"],
        format!("sha256:{}", sha256_hex(b"a\n1\n")),
        "{c}"
    );
    assert_eq!(
        (c["place"].as_str(), c["source"].as_str()),
        (Some("gpu"), Some("data/f1.csv"))
    );
    // Over remoteCopyBytes: refused before anything is sent, nothing written.
    let (_, err) = e.err(
        "kernel.place.copy",
        json!({"place": "gpu", "path": "data/g.bin", "changeId": "c2"}),
    );
    assert_eq!(err["code"], "limit", "{err}");
    assert_eq!(err["details"]["limit"], "kernel.remoteCopyBytes", "{err}");
    assert!(!e.dir.join("g.bin").exists());
    // maxCopies 1: the next record pushes the first out.
    e.ok(
        "kernel.place.copy",
        json!({"place": "gpu", "path": "data/f2.csv", "changeId": "c3"}),
    );
    let (_, err) = e.err(
        "kernel.place.copy",
        json!({"place": "gpu", "path": "data/f1.csv", "changeId": "c1"}),
    );
    assert_eq!(err["code"], "not_found", "{err}");
    // A server serverctl does not know.
    let (_, err) = e.err("kernel.place.list", json!({"place": "gone", "path": "."}));
    assert_eq!(err["code"], "not_found", "{err}");
    assert!(err["message"].as_str().unwrap().contains("nobody"), "{err}");
}

#[test]
fn a_serverctl_gone_since_the_start_names_itself_when_a_servers_files_are_listed() {
    // The service checks --serverctl when it starts; the program goes away afterwards.
    let bin = tempfile::tempdir().unwrap();
    let program = bin.path().join("serverctl");
    std::fs::copy(fixture(), &program).unwrap();
    let path = program.display().to_string();
    let e = Env::launch(Launch {
        args: &["--serverctl", &path],
        name: Some("no-serverctl"),
        ..Launch::default()
    });
    e.ok(
        "kernel.place.set",
        json!({"place": "gpu", "define": {"server": "gpu1"}}),
    );
    std::fs::remove_file(&program).unwrap();
    let (_, err) = e.err("kernel.place.list", json!({"place": "gpu", "path": "."}));
    assert_eq!(err["code"], "unavailable", "{err}");
    let m = err["message"].as_str().unwrap();
    assert!(m.contains(&path) && m.contains("--serverctl"), "{m}");
}
