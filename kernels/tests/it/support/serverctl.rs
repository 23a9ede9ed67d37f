//! A serverctl fixture that plays the boundary of docs/serverctl.md (never a stand-in inside
//! Rho): a POSIX sh program reading a registry folder named by `SSM_REGISTRY`, whose servers
//! are this machine (`exec` runs the command here under `timeout --max-seconds`).

use std::path::{Path, PathBuf};

/// The fixture program (kept in the repository, used by the service tests too).
pub fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/serverctl")
}

/// A fixture program and its registry: servers `gpu1` (skills `pytorch`, `big`) and `cpu2`.
pub struct Fixture {
    pub dir: tempfile::TempDir,
}

impl Fixture {
    pub fn new() -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let reg = d.join("registry");
        std::fs::create_dir_all(reg.join("gpu1")).unwrap();
        std::fs::create_dir_all(reg.join("cpu2")).unwrap();
        std::fs::write(
            reg.join("servers.json"),
            r#"{"servers":[{"name":"gpu1","host":"gpu1.lab","state":"running","skills":["pytorch","big"]},{"name":"cpu2","host":null,"state":"stopped","skills":[]}]}"#,
        )
        .unwrap();
        std::fs::write(
            reg.join("gpu1/pytorch.md"),
            "# PyTorch on gpu1\nUse CUDA 12.\n",
        )
        .unwrap();
        std::fs::write(reg.join("gpu1/big.md"), "x".repeat(10_000)).unwrap();
        Fixture { dir }
    }

    pub fn program(&self) -> PathBuf {
        fixture()
    }

    pub fn registry(&self) -> PathBuf {
        self.dir.path().join("registry")
    }

    /// The registry folder of one server (where its skills are).
    pub fn server(&self, name: &str) -> PathBuf {
        self.registry().join(name)
    }
}

/// `SSM_REGISTRY` for a child of this test (the service's environment in the service tests).
pub fn env(registry: &Path) -> (String, String) {
    ("SSM_REGISTRY".into(), registry.display().to_string())
}
