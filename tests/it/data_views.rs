//! Owners Charts, Media and R over HTTP: data.plot sampling and dropping, media.describe of byte-exact files, object.read selections, UI entries, plugin selection; none starts R.

use crate::support::Env;
use serde_json::{json, Value};

fn start(limits: Option<Value>, plugins: Option<&str>) -> Env {
    Env::data(limits, plugins, "views")
}

fn png(w: u32, h: u32) -> Vec<u8> {
    let mut b = vec![0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13];
    b.extend_from_slice(b"IHDR");
    b.extend_from_slice(&w.to_be_bytes());
    b.extend_from_slice(&h.to_be_bytes());
    b.extend_from_slice(&[8, 2, 0, 0, 0, 0x12, 0x34, 0x56, 0x78]);
    b
}

fn jpeg(w: u16, h: u16) -> Vec<u8> {
    let mut b = vec![0xFF, 0xD8, 0xFF, 0xE1, 0x00, 0x08];
    b.extend_from_slice(b"Exif\0\0");
    b.extend_from_slice(&[0xFF, 0xC0, 0x00, 0x11, 0x08]);
    b.extend_from_slice(&h.to_be_bytes());
    b.extend_from_slice(&w.to_be_bytes());
    b.extend_from_slice(&[3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1, 0xFF, 0xD9]);
    b
}

const PDF: &str = "%PDF-1.3\n1 0 obj\n<</Type/Catalog/Pages 2 0 R>>\nendobj\n\
2 0 obj\n<</Type/Pages/Count 2/Kids[3 0 R 4 0 R]/MediaBox[0 0 595 842]>>\nendobj\n\
3 0 obj\n<</Type/Page/Parent 2 0 R>>\nendobj\n\
4 0 obj\n<</Type/Page/Parent 2 0 R/MediaBox[0 0 792 612]>>\nendobj\n\
trailer\n<</Root 1 0 R/Size 5>>\n%%EOF\n";

#[test]
fn media_describe_reads_sizes_from_exact_bytes() {
    let e = start(None, None);
    let d = |r: Value| e.ok("media.describe", json!({"resource": r}));
    let p = d(e.put("a.png", &png(640, 480), json!({"media": {"format": "png"}})));
    assert_eq!(
        (
            &p["format"],
            p["width"].as_f64(),
            p["height"].as_f64(),
            &p["units"]
        ),
        (&json!("png"), Some(640.0), Some(480.0), &json!("px"))
    );
    assert!(p.get("pages").is_none());
    let j = d(e.put("b.jpg", &jpeg(1024, 768), json!({})));
    assert_eq!(
        (&j["format"], j["width"].as_f64(), j["height"].as_f64()),
        (&json!("jpeg"), Some(1024.0), Some(768.0))
    );
    let s = d(e.put(
        "c.svg",
        br#"<svg xmlns="http://www.w3.org/2000/svg" width="3in" height="150px"/>"#,
        json!({}),
    ));
    assert_eq!(
        (s["width"].as_f64(), s["height"].as_f64()),
        (Some(288.0), Some(150.0))
    );
    let v = d(e.put("d.svg", br#"<svg viewBox="0 0 40 30"></svg>"#, json!({})));
    assert_eq!((&v["width"], &v["height"]), (&Value::Null, &Value::Null));
    assert_eq!(v["viewBox"], json!([0.0, 0.0, 40.0, 30.0]));
    let f = d(e.put("e.pdf", PDF.as_bytes(), json!({})));
    assert_eq!((&f["format"], &f["units"]), (&json!("pdf"), &json!("pt")));
    assert_eq!(
        f["pages"],
        json!([{"width": 595.0, "height": 842.0}, {"width": 792.0, "height": 612.0}])
    );

    // Unsupported bytes, a declaration the bytes contradict, and a broken PDF are invalid.
    let gif = e.put("f.gif", b"GIF89a\x01\x00\x01\x00", json!({}));
    let (status, err) = e.err("media.describe", json!({"resource": gif}));
    assert_eq!((status, err["code"].as_str()), (400, Some("invalid")));
    assert!(
        err["message"].as_str().unwrap().contains("unsupported"),
        "{err}"
    );
    let lie = e.put("g.png", &jpeg(2, 2), json!({"media": {"format": "png"}}));
    assert_eq!(
        e.err("media.describe", json!({"resource": lie})).1["code"],
        "invalid"
    );
    let broken = e.put(
        "h.pdf",
        b"%PDF-1.7\n1 0 obj <</Type /ObjStm>> endobj",
        json!({}),
    );
    assert_eq!(
        e.err("media.describe", json!({"resource": broken})).1["code"],
        "invalid"
    );

    // A changed, uncaptured file is stale through Files' read path.
    let old = e.put("a2.png", &png(1, 1), json!({}));
    std::fs::write(e.dir.join("a2.png"), png(2, 2)).unwrap();
    let (status, err) = e.err("media.describe", json!({"resource": old}));
    assert_eq!((status, err["code"].as_str()), (409, Some("stale")));
    // A captured version is described from the store whatever happens to the file.
    std::fs::write(e.dir.join("cap.png"), png(5, 6)).unwrap();
    let cap = e.ok(
        "resource.capture",
        json!({"changeId": "cap", "path": "cap.png"}),
    );
    std::fs::write(e.dir.join("cap.png"), b"gone").unwrap();
    let c = d(json!({"id": cap["id"], "version": cap["version"]}));
    assert_eq!(
        (c["width"].as_f64(), c["height"].as_f64()),
        (Some(5.0), Some(6.0))
    );
    assert!(!e.rscript_was_called());
}

fn table_decl(key: bool) -> Value {
    json!({"format": "csv", "columns": [
        {"name": "id", "type": "string"},
        {"name": "x", "type": "integer", "missing": ["NA"]},
        {"name": "y", "type": "number", "missing": ["NA", ""]},
        {"name": "label", "type": "string"}],
        "key": if key { json!({"column": "id", "namespace": "sample"}) } else { Value::Null }})
}

#[test]
fn data_plot_drops_missing_rows_and_strides_above_the_limit() {
    let e = start(Some(json!({"resources": {"maxChartPoints": 4}})), None);
    // Rows 1..=12; x missing in row 3, y missing in rows 5 and 8: 9 plottable rows.
    let mut csv = String::from("id,x,y,label\n");
    for i in 1..=12 {
        let x = if i == 3 {
            "NA".to_string()
        } else {
            i.to_string()
        };
        let y = match i {
            5 => "NA".to_string(),
            8 => String::new(),
            _ => format!("{}.5", i * 10),
        };
        csv.push_str(&format!("s{i},{x},{y},L{i}\n"));
    }
    let t = e.put(
        "t.csv",
        csv.as_bytes(),
        json!({"kind": "table", "format": "csv", "table": table_decl(true)}),
    );
    let p = e.ok("data.plot", json!({"resource": t, "x": "x", "y": "y"}));
    assert_eq!(p["dropped"], 3);
    // ceil(9 / 4) = 3: the 1st, 4th and 7th plottable rows in file order (s1, s6, s10).
    assert_eq!(
        p["sampling"],
        json!({"sampled": true, "total": 9, "returned": 3, "method": "stride", "step": 3})
    );
    let keys: Vec<&str> = p["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|pt| pt["key"].as_str().unwrap())
        .collect();
    assert_eq!(keys, ["s1", "s6", "s10"]);
    assert_eq!(
        (p["points"][1]["x"].as_f64(), p["points"][1]["y"].as_f64()),
        (Some(6.0), Some(60.5))
    );
    assert_eq!(p["namespace"], "sample");

    // Under the limit nothing is sampled; an unkeyed table gives points without keys.
    let small = e.put(
        "u.csv",
        b"id,x,y,label\na,1,2,p\nb,3,,q\n",
        json!({"kind": "table", "format": "csv", "table": table_decl(false)}),
    );
    let p = e.ok("data.plot", json!({"resource": small, "x": "y", "y": "x"}));
    assert_eq!(
        (
            p["dropped"].as_u64(),
            p["sampling"]["sampled"].as_bool(),
            p["sampling"]["step"].as_u64()
        ),
        (Some(1), Some(false), Some(1))
    );
    assert_eq!(p["points"], json!([{"x": 2.0, "y": 1.0}]));

    // Non-numeric or unknown columns are invalid naming the field; a file without a table declaration too.
    for (x, y, field) in [("label", "y", "x"), ("x", "id", "y"), ("x", "nope", "y")] {
        let (status, err) = e.err("data.plot", json!({"resource": t, "x": x, "y": y}));
        assert_eq!(
            (status, err["code"].as_str()),
            (400, Some("invalid")),
            "{err}"
        );
        assert_eq!(err["details"]["field"], field, "{err}");
    }
    let raw = e.put("raw.csv", b"x,y\n1,2\n", json!({}));
    assert_eq!(
        e.err("data.plot", json!({"resource": raw, "x": "x", "y": "y"}))
            .1["code"],
        "invalid"
    );
    assert!(!e.rscript_was_called());
}

#[test]
fn object_read_selects_by_pointer_and_refuses_bad_snapshots_and_large_selections() {
    let e = start(None, None);
    let snap = json!({"schemaVersion": 1, "classes": ["summary.lm", "list"],
        "provenance": {"rVersion": "4.4.1", "expression": "summary(fit)"},
        "value": {"coefficients": [[1.25, 0.5], [3.0, 0.25]], "r.squared": 0.82, "a/b": {"~": "t"},
            "big": "x".repeat(70 * 1024)}});
    let r = e.put(
        "fit.json",
        snap.to_string().as_bytes(),
        json!({"kind": "object", "format": "json"}),
    );
    let read = |ptr: Option<&str>| {
        let mut body = json!({"resource": r});
        if let Some(p) = ptr {
            body["pointer"] = json!(p);
        }
        e.call("object.read", body)
    };
    let (status, v) = read(Some("/coefficients/1/0"));
    assert_eq!(status, 200, "{v}");
    let v = &v["value"];
    assert_eq!(
        (v["value"].clone(), v["pointer"].clone()),
        (json!(3.0), json!("/coefficients/1/0"))
    );
    assert_eq!(v["classes"], json!(["summary.lm", "list"]));
    assert_eq!(v["provenance"]["rVersion"], "4.4.1");
    assert_eq!(read(Some("/r.squared")).1["value"]["value"], json!(0.82));
    assert_eq!(read(Some("/a~1b/~0")).1["value"]["value"], json!("t"));

    // Nothing selected is not_found; a malformed pointer is invalid.
    let (status, err) = read(Some("/coefficients/9"));
    assert_eq!(
        (status, err["error"]["code"].as_str()),
        (404, Some("not_found"))
    );
    let (status, err) = read(Some("coefficients"));
    assert_eq!(
        (status, err["error"]["details"]["field"].as_str()),
        (400, Some("pointer"))
    );
    // The whole value (with the 70 KiB string) and the string itself are above maxReadBytes.
    for ptr in [None, Some("/big")] {
        let (status, err) = read(ptr);
        assert_eq!(
            (
                status,
                err["error"]["code"].as_str(),
                err["error"]["details"]["limit"].as_str()
            ),
            (429, Some("limit"), Some("resources.maxReadBytes")),
            "{ptr:?}"
        );
    }
    // Not a snapshot: wrong schemaVersion, missing value, not JSON.
    for (i, bad) in [
        json!({"schemaVersion": 2, "classes": [], "provenance": {}, "value": 1}).to_string(),
        json!({"schemaVersion": 1, "classes": ["x"], "provenance": {}}).to_string(),
        "not json".to_string(),
    ]
    .iter()
    .enumerate()
    {
        let b = e.put(&format!("bad{i}.json"), bad.as_bytes(), json!({}));
        let (status, err) = e.err("object.read", json!({"resource": b}));
        assert_eq!(
            (status, err["code"].as_str()),
            (400, Some("invalid")),
            "{bad}"
        );
    }
    assert!(!e.rscript_was_called());
}

fn entry_names(caps: &Value) -> Vec<String> {
    caps["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn ui_entries_are_listed_for_available_owners_only() {
    let e = start(None, None);
    let caps = e.caps();
    assert_eq!(
        entry_names(&caps),
        [
            "rho.editor",
            "rho.media",
            "rho.object",
            "rho.scatter",
            "rho.table"
        ]
    );
    for entry in caps["entries"].as_array().unwrap() {
        assert_eq!(entry["version"], "0.2.0", "{entry}");
        assert!(entry["props"].is_object(), "{entry}");
        // The browser app renders every entry (editor, media, object, scatter, table).
        assert_eq!(entry["browserRenderer"], json!(true), "{entry}");
    }
    let find = |name: &str| {
        caps["entries"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["name"] == name)
            .unwrap()
            .clone()
    };
    assert_eq!(
        (
            find("rho.scatter")["owner"].clone(),
            find("rho.object")["owner"].clone()
        ),
        (json!("charts"), json!("r"))
    );
    assert_eq!(find("rho.editor")["owner"], "documents");
    assert!(find("rho.object")["summary"]
        .as_str()
        .unwrap()
        .contains("JSON tree"));
    // The browser app draws each of them (media through the work panels).
    let drawn: Vec<(String, bool)> = ["rho.media", "rho.object", "rho.scatter", "rho.table"]
        .iter()
        .map(|n| (n.to_string(), find(n)["browserRenderer"] == json!(true)))
        .collect();
    assert_eq!(
        drawn,
        [
            ("rho.media".to_string(), true),
            ("rho.object".to_string(), true),
            ("rho.scatter".to_string(), true),
            ("rho.table".to_string(), true)
        ]
    );
    let scatter_props = find("rho.scatter")["props"].to_string();
    assert!(
        scatter_props.contains("\"key\"") && scatter_props.contains("\"x\""),
        "{scatter_props}"
    );

    let only = start(None, Some("files,tables"));
    assert_eq!(entry_names(&only.caps()), ["rho.table"]);
}

#[test]
fn data_views_are_unavailable_naming_the_missing_owner() {
    let e = start(None, Some("files"));
    let t = e.put(
        "t.csv",
        b"id,x,y,label\na,1,2,l\n",
        json!({"kind": "table", "format": "csv", "table": table_decl(true)}),
    );
    let img = e.put("a.png", &png(2, 2), json!({}));
    let (status, err) = e.err("data.plot", json!({"resource": t, "x": "x", "y": "y"}));
    assert_eq!(
        (status, err["details"]["missing"].clone()),
        (503, json!(["charts"]))
    );
    let (status, err) = e.err("media.describe", json!({"resource": img}));
    assert_eq!(
        (status, err["details"]["missing"].clone()),
        (503, json!(["media"]))
    );
    let (status, err) = e.err("object.read", json!({"resource": img}));
    assert_eq!(
        (status, err["details"]["missing"].clone()),
        (503, json!(["r"]))
    );
    let caps = e.caps();
    assert!(entry_names(&caps).is_empty());
    let unavailable = caps["unavailableOperations"].to_string();
    assert!(unavailable.contains("data.plot") && unavailable.contains("media.describe"));

    // Charts selected without Tables: unavailable naming tables.
    let c = start(None, Some("files,charts"));
    let t = c.put(
        "t.csv",
        b"id,x,y,label\na,1,2,l\n",
        json!({"kind": "table", "format": "csv", "table": table_decl(true)}),
    );
    let (status, err) = c.err("data.plot", json!({"resource": t, "x": "x", "y": "y"}));
    assert_eq!(
        (status, err["details"]["missing"].clone()),
        (503, json!(["tables"]))
    );
    assert!(!e.rscript_was_called() && !c.rscript_was_called());
}
