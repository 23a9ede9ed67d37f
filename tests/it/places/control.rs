//! ssh's control sockets with a state folder too long for a Unix socket's path (107 bytes):
//! the service uses a short private folder under `/tmp` named by a hash of it, and an ssh
//! place works through it.
use crate::support::env::Launch;
use crate::support::sshd::Sshd;
use crate::support::Env;
use serde_json::json;
use std::os::unix::fs::MetadataExt;

#[test]
fn a_long_state_folder_keeps_ssh_control_sockets_in_a_short_private_folder() {
    let sshd = Sshd::start();
    let e = Env::launch(Launch {
        name: Some("long-state"),
        state_len: Some(90),
        ..Launch::default()
    });
    assert!(e.state.path().as_os_str().len() > 90);
    e.ok(
        "kernel.place.set",
        json!({"place": "lab", "define": sshd.definition()}),
    );
    let c = e.ok("kernel.place.check", json!({"place": "lab"}));
    assert_eq!(c["ok"], true, "{c}");
    let data = tempfile::tempdir().unwrap();
    std::fs::write(data.path().join("a.txt"), "a").unwrap();
    let l = e.ok(
        "kernel.place.list",
        json!({"place": "lab", "path": data.path().display().to_string()}),
    );
    assert_eq!(l["entries"][0]["name"], "a.txt", "{l}");
    // The master's socket is in the short folder, private to this user; none below the state.
    let folder = rho_kernels::remote::ssh::control_folder(e.state.path());
    assert!(folder.starts_with("/tmp"), "{}", folder.display());
    let m = std::fs::metadata(&folder).unwrap();
    assert_eq!(m.mode() & 0o777, 0o700);
    let sockets: Vec<_> = std::fs::read_dir(&folder).unwrap().flatten().collect();
    assert_eq!(sockets.len(), 1, "one master: {sockets:?}");
    assert!(sockets[0].path().as_os_str().len() < 108);
    assert!(!e.state.path().join("ssh").exists());
    drop(e);
    let _ = std::fs::remove_dir_all(&folder);
}
