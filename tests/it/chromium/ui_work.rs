//! The work panels in Chromium (issue 14): a run from the editor's buffer with its live log and an export, a
//! second run cancelled and retried (nothing runs again), the requirements check; a PDF rectangle drawn and
//! PNG, JPEG and SVG rectangles typed, each read back with `context.read`; a grant shown then revoked; axe at
//! 1600 and 390.

use crate::support::{browser, Env};
use serde_json::json;

/// Prints numbered lines with pauses, so the log grows while the panel follows it.
const SCRIPT: &str = "for (i in 1:6) {\n  cat(\"line\", i, \"\\n\")\n  flush(stdout())\n  Sys.sleep(0.5)\n}\nmessage(\"to stderr\")\n";

/// A two-page PDF (612 x 792 pt, then 792 x 612 pt) with a filled box on each page, xref exact.
pub(crate) fn pdf() -> Vec<u8> {
    let box1 = "0.8 0.2 0.2 rg 100 500 200 150 re f\n";
    let box2 = "0.2 0.4 0.8 rg 300 200 250 120 re f\n";
    let objects = [
        "<</Type/Catalog/Pages 2 0 R>>".to_string(),
        "<</Type/Pages/Count 2/Kids[3 0 R 5 0 R]>>".to_string(),
        "<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]/Contents 4 0 R>>".to_string(),
        format!("<</Length {}>>\nstream\n{box1}endstream", box1.len()),
        "<</Type/Page/Parent 2 0 R/MediaBox[0 0 792 612]/Contents 6 0 R>>".to_string(),
        format!("<</Length {}>>\nstream\n{box2}endstream", box2.len()),
    ];
    let mut out = b"%PDF-1.4\n".to_vec();
    let mut offsets = Vec::new();
    for (i, o) in objects.iter().enumerate() {
        offsets.push(out.len());
        out.extend(format!("{} 0 obj\n{o}\nendobj\n", i + 1).as_bytes());
    }
    let xref = out.len();
    out.extend(format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).as_bytes());
    for o in offsets {
        out.extend(format!("{o:010} 00000 n \n").as_bytes());
    }
    out.extend(
        format!(
            "trailer\n<</Size {}/Root 1 0 R>>\nstartxref\n{xref}\n%%EOF\n",
            objects.len() + 1
        )
        .as_bytes(),
    );
    out
}

#[test]
fn the_work_panels_run_a_buffer_draw_a_pdf_rectangle_and_revoke_a_grant() {
    let env = Env::start(&[], None, "p");
    std::fs::write(env.dir.join("analysis.R"), SCRIPT).unwrap();
    std::fs::write(env.dir.join("report.pdf"), pdf()).unwrap();
    let (code, _, stderr) = env.grant_cli(&["--project-id", &env.project]);
    assert_eq!(code, 0, "{stderr}");
    let token = env.token("claude-code");
    let artifacts = browser::artifacts("work");
    let operator = env.service.token();
    let facts = browser::run_e2e(
        "e2e-work.mjs",
        &env,
        &token,
        &artifacts,
        &[("RHO_OPERATOR_TOKEN", &operator)],
    );
    assert!(
        facts["facts"]["expiry_note"]
            .as_str()
            .is_some_and(|n| n.contains("has expired")),
        "{}",
        facts["facts"]
    );
    for size in ["1600", "390"] {
        for panel in ["runs", "agent", "media"] {
            assert_eq!(
                facts["facts"][format!("axe_{panel}_{size}")],
                0,
                "{panel} at {size}"
            );
        }
    }
    assert!(artifacts.join("runs-390x844.png").exists());
    for name in [
        "axe_media_png_1600",
        "axe_media_jpeg_1600",
        "axe_media_svg_1600",
        "axe_runs_cancelled_1600",
    ] {
        assert_eq!(facts["facts"][name], 0, "{name}");
    }
    // The second run was cancelled by the person at this machine; the retry ran nothing again.
    assert_eq!(
        facts["facts"]["cancelled"]["stop"]["requestedBy"], "local",
        "{}",
        facts["facts"]
    );
    assert_eq!(
        env.ok("action.list", json!({}))["runs"]
            .as_array()
            .unwrap()
            .len(),
        2
    );

    // The rectangle the person drew is a context anyone with the project reads back, in PDF points.
    let id = facts["facts"]["contextId"].as_str().unwrap();
    let read = env.ok("context.read", json!({"contextId": id}));
    assert_eq!(read["media"]["units"], "pt", "{read}");
    assert_eq!(read["media"]["page"], 2, "{read}");
    for k in ["x", "y", "width", "height"] {
        let (got, drawn) = (
            read["media"]["rect"][k].as_f64(),
            facts["facts"]["rect"][k].as_f64(),
        );
        assert!(
            got.is_some() && got == drawn,
            "{k}: {read} vs {}",
            facts["facts"]["rect"]
        );
    }

    // The run used the editor's unsaved buffer, and the export took it by the person's choice.
    let op = facts["facts"]["operationId"].as_str().unwrap();
    let run = env.ok("action.observe", json!({"operationId": op}));
    assert_eq!(run["plan"]["script"]["kind"], "buffer", "{run}");
    assert_eq!(run["exit"]["exitCode"], 0, "{run}");
    let folder = facts["facts"]["exportFolder"].as_str().unwrap();
    let exported = std::fs::read_dir(env.dir.join(folder)).unwrap().count();
    assert!(exported > 0, "the export folder {folder} has files");

    // The revoked grant no longer works.
    let (status, v) = env.agent_call(&token, "project.entries", json!({}));
    assert_eq!(status, 401, "{v}");
}
