//! Owner Files over HTTP: register, list, read, capture, stale bytes, limits, and kill -9 durability.

use crate::support;
use crate::support::Env;
use crate::support::Service;
use base64::Engine;
use serde_json::{json, Value};

fn start_with(limits: Option<Value>) -> Env {
    Env::data(limits, None, "data")
}

fn b64(v: &Value) -> Vec<u8> {
    base64::engine::general_purpose::STANDARD
        .decode(v["data"].as_str().unwrap())
        .unwrap()
}

#[test]
fn resources_are_registered_versioned_listed_and_read_exactly() {
    let e = start_with(None);
    std::fs::create_dir(e.dir.join("out")).unwrap();
    std::fs::write(e.dir.join("out/a.txt"), b"hello bytes").unwrap();
    let reg = |change: &str| json!({"changeId": change, "path": "out/a.txt", "kind": "file", "format": "text"});
    let r1 = e.ok("resource.register", reg("c1"));
    assert_eq!(r1["version"], 1);
    assert_eq!(r1["bytes"], 11);
    assert_eq!(r1["captured"], false);
    assert_eq!(r1["partial"], false);
    assert_eq!(r1["provenance"]["principal"], "operator");
    assert!(r1["provenance"]["time"].as_str().unwrap().ends_with('Z'));
    // Same identity, same input: the original reply. Same identity, other input: conflict.
    assert_eq!(e.ok("resource.register", reg("c1")), r1);
    let mut other = reg("c1");
    other["format"] = json!("csv");
    assert_eq!(e.err("resource.register", other).1["code"], "conflict");
    // Same bytes under a new identity: the same {id, version}.
    let again = e.ok("resource.register", reg("c2"));
    assert_eq!(
        (&again["id"], &again["version"]),
        (&r1["id"], &r1["version"])
    );
    // Changed bytes: the same id at version 2.
    std::fs::write(e.dir.join("out/a.txt"), b"hello again").unwrap();
    let r2 = e.ok("resource.register", reg("c3"));
    assert_eq!((&r2["id"], r2["version"].as_u64()), (&r1["id"], Some(2)));

    let list = e.ok("resource.list", json!({}));
    assert_eq!(list["resources"].as_array().unwrap().len(), 1);
    assert_eq!(list["resources"][0]["versions"], 2);
    assert_eq!(list["resources"][0]["path"], "out/a.txt");

    let read = e.ok(
        "resource.read",
        json!({"resource": {"id": r2["id"], "version": 2}, "offset": 6, "length": 5}),
    );
    assert_eq!(b64(&read), b"again");
    assert_eq!(
        (
            read["offset"].as_u64(),
            read["length"].as_u64(),
            read["total"].as_u64()
        ),
        (Some(6), Some(5), Some(11))
    );
    // Version 1 was not captured and its file changed: stale with both digests.
    let (status, err) = e.err(
        "resource.read",
        json!({"resource": {"id": r1["id"], "version": 1}}),
    );
    assert_eq!((status, err["code"].as_str()), (409, Some("stale")));
    assert_eq!(err["details"]["sha256"], r1["sha256"]);
    assert_eq!(err["details"]["currentSha256"], r2["sha256"]);
    // Larger than maxReadBytes is refused, not clamped; guessed ids are not_found.
    let (status, err) = e.err(
        "resource.read",
        json!({"resource": {"id": r2["id"], "version": 2}, "length": 65537}),
    );
    assert_eq!(
        (status, err["details"]["limit"].as_str()),
        (429, Some("resources.maxReadBytes"))
    );
    for id in [uuid::Uuid::new_v4().to_string(), "nope".to_string()] {
        let (status, _) = e.err(
            "resource.read",
            json!({"resource": {"id": id, "version": 1}}),
        );
        assert_eq!(status, 404);
    }
    let (status, _) = e.err(
        "resource.read",
        json!({"resource": {"id": r2["id"], "version": 3}}),
    );
    assert_eq!(status, 404);
    for bad in ["../x", "/etc/passwd", ".rho/journal", ""] {
        let (status, err) = e.err(
            "resource.register",
            json!({"changeId": bad.to_string() + "x", "path": bad, "kind": "file", "format": "x"}),
        );
        assert_eq!(
            (status, err["code"].as_str()),
            (400, Some("invalid")),
            "{bad}"
        );
    }
    let (status, _) = e.err(
        "resource.register",
        json!({"changeId": "m", "path": "missing.txt", "kind": "file", "format": "x"}),
    );
    assert_eq!(status, 404);
    assert!(!e.rscript_was_called());
}

#[test]
fn a_captured_version_stays_readable_after_its_file_changes() {
    let e = start_with(None);
    std::fs::write(e.dir.join("fig.bin"), b"original").unwrap();
    let cap = e.ok(
        "resource.capture",
        json!({"changeId": "k1", "path": "fig.bin"}),
    );
    assert_eq!(
        (cap["version"].as_u64(), cap["captured"].as_bool()),
        (Some(1), Some(true))
    );
    std::fs::write(e.dir.join("fig.bin"), b"overwritten!").unwrap();
    let read = e.ok(
        "resource.read",
        json!({"resource": {"id": cap["id"], "version": 1}}),
    );
    assert_eq!(b64(&read), b"original");
    std::fs::remove_file(e.dir.join("fig.bin")).unwrap();
    let read = e.ok(
        "resource.read",
        json!({"resource": {"id": cap["id"], "version": 1}}),
    );
    assert_eq!(b64(&read), b"original");
    assert!(e
        .dir
        .join(".rho/store/sha256")
        .join(cap["sha256"].as_str().unwrap())
        .exists());
    assert!(!e.rscript_was_called());
}

#[test]
fn resource_limits_refuse_naming_the_key_and_keep_earlier_data() {
    let e = start_with(Some(
        json!({"resources": {"maxResources": 2, "maxFileBytes": 16, "maxArtifactBytes": 20}}),
    ));
    for name in ["a", "b", "c"] {
        std::fs::write(e.dir.join(name), b"0123456789").unwrap();
    }
    std::fs::write(e.dir.join("big"), vec![b'x'; 17]).unwrap();
    e.ok("resource.capture", json!({"changeId": "1", "path": "a"}));
    let (status, err) = e.err(
        "resource.register",
        json!({"changeId": "2", "path": "big", "kind": "file", "format": "x"}),
    );
    assert_eq!(
        (status, err["details"]["limit"].as_str()),
        (429, Some("resources.maxFileBytes"))
    );
    std::fs::write(e.dir.join("b"), b"abcdefghijk").unwrap();
    let (_, err) = e.err("resource.capture", json!({"changeId": "3", "path": "b"}));
    assert_eq!(err["details"]["limit"], "resources.maxArtifactBytes");
    e.ok(
        "resource.register",
        json!({"changeId": "4", "path": "b", "kind": "file", "format": "x"}),
    );
    let (_, err) = e.err(
        "resource.register",
        json!({"changeId": "5", "path": "c", "kind": "file", "format": "x"}),
    );
    assert_eq!(err["details"]["limit"], "resources.maxResources");
    assert_eq!(
        e.ok("resource.list", json!({}))["resources"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
}

#[test]
fn acknowledged_resources_survive_kill_9() {
    let e = start_with(None);
    let mut acked = Vec::new();
    for i in 0..20 {
        std::fs::write(e.dir.join(format!("f{i}.txt")), format!("bytes {i}")).unwrap();
        let body = json!({"changeId": format!("c{i}"), "path": format!("f{i}.txt"), "kind": "file", "format": "text"});
        let rec = if i % 2 == 0 {
            e.ok("resource.register", body)
        } else {
            e.ok(
                "resource.capture",
                json!({"changeId": format!("c{i}"), "path": format!("f{i}.txt")}),
            )
        };
        acked.push(rec);
    }
    let Env {
        root,
        state,
        work,
        service,
        project,
        dir,
    } = e;
    service.kill9();
    let script = support::rscript_spy(work.path());
    let marker = work.path().join("rscript-called");
    let args = [
        "--root",
        root.path().to_str().unwrap(),
        "--state-dir",
        state.path().to_str().unwrap(),
        "--rscript",
        script.to_str().unwrap(),
    ];
    let service = Service::spawn(&args, &[], root.path(), state.path());
    let e = Env {
        root,
        state,
        work,
        service,
        project,
        dir,
    };
    let list = e.ok("resource.list", json!({}));
    assert_eq!(list["resources"].as_array().unwrap().len(), 20);
    for rec in acked {
        let read = e.ok(
            "resource.read",
            json!({"resource": {"id": rec["id"], "version": rec["version"]}}),
        );
        assert_eq!(read["sha256"], rec["sha256"]);
        // A retry of the acknowledged identity answers the original record.
        let i: usize = rec["path"].as_str().unwrap()[1..]
            .trim_end_matches(".txt")
            .parse()
            .unwrap();
        if i % 2 == 1 {
            let again = e.ok(
                "resource.capture",
                json!({"changeId": format!("c{i}"), "path": format!("f{i}.txt")}),
            );
            assert_eq!(again, rec);
        }
    }
    assert!(!marker.exists());
}

fn register_table(e: &Env, change: &str, path: &str, table: Value) -> Value {
    e.ok(
        "resource.register",
        json!({"changeId": change, "path": path, "kind": "table", "format": "csv", "table": table}),
    )
}

fn rref(r: &Value) -> Value {
    json!({"id": r["id"], "version": r["version"]})
}

#[test]
fn csv_tables_are_typed_exactly_paged_sorted_and_filtered() {
    let e = start_with(None);
    let csv = "\u{feff}id,name,code,score,ok\r\n\
               a,\"Smith, J\",001,1.5,true\r\n\
               b,\"two\r\nlines\",NA,NA,false\r\n\
               c,\"say \"\"hi\"\"\",007,-2e1,true\r\n\
               d,plain,NA,3,false\r\n";
    std::fs::write(e.dir.join("t.csv"), csv).unwrap();
    let decl = json!({"format": "csv", "key": {"column": "id", "namespace": "gene"}, "columns": [
        {"name": "id", "type": "string"}, {"name": "name", "type": "string"},
        {"name": "code", "type": "string"}, {"name": "score", "type": "number", "missing": ["NA"]},
        {"name": "ok", "type": "boolean"}]});
    let r = register_table(&e, "t1", "t.csv", decl);
    let page = e.ok(
        "data.page",
        json!({"resource": rref(&r), "offset": 0, "limit": 10}),
    );
    assert_eq!(page["total"], 4);
    assert_eq!(page["namespace"], "gene");
    let rows = page["rows"].as_array().unwrap();
    assert_eq!(rows[0]["key"], "a");
    assert_eq!(
        rows[0]["cells"],
        json!({"id": "a", "name": "Smith, J", "code": "001", "score": 1.5, "ok": true})
    );
    assert_eq!(rows[1]["cells"]["name"], "two\r\nlines");
    // NA stays a string where the column does not declare it missing.
    assert_eq!(rows[1]["cells"]["code"], "NA");
    assert_eq!(rows[1]["cells"]["score"], Value::Null);
    assert_eq!(rows[2]["cells"]["name"], "say \"hi\"");
    assert_eq!(rows[2]["cells"]["score"], -20.0);
    // Sorted descending with missing last; the reply echoes its query.
    let q = json!({"resource": rref(&r), "offset": 0, "limit": 10, "sort": [{"column": "score", "descending": true}]});
    let sorted = e.ok("data.page", q.clone());
    let keys: Vec<&str> = sorted["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["key"].as_str().unwrap())
        .collect();
    assert_eq!(keys, ["d", "a", "c", "b"]);
    assert_eq!(sorted["query"]["sort"], q["sort"]);
    let filtered = e.ok(
        "data.page",
        json!({"resource": rref(&r), "offset": 1, "limit": 1,
        "filter": [{"column": "ok", "op": "eq", "value": true}]}),
    );
    assert_eq!(filtered["total"], 2);
    assert_eq!(filtered["rows"][0]["key"], "c");
    let missing = e.ok(
        "data.page",
        json!({"resource": rref(&r), "offset": 0, "limit": 5,
        "filter": [{"column": "score", "op": "missing"}]}),
    );
    assert_eq!(missing["rows"][0]["key"], "b");
    let (status, err) = e.err(
        "data.page",
        json!({"resource": rref(&r), "offset": 0, "limit": 1001}),
    );
    assert_eq!(
        (status, err["details"]["limit"].as_str()),
        (429, Some("resources.maxPageRows"))
    );

    // A wrong-type cell and a duplicate key are reported by row and column, never coerced.
    std::fs::write(e.dir.join("bad.csv"), "id,n\nx,1\ny,01\nx,3\n").unwrap();
    let bad = register_table(
        &e,
        "t2",
        "bad.csv",
        json!({"format": "csv", "key": {"column": "id", "namespace": "g"},
        "columns": [{"name": "id", "type": "string"}, {"name": "n", "type": "integer"}]}),
    );
    let (status, err) = e.err(
        "data.page",
        json!({"resource": rref(&bad), "offset": 0, "limit": 10}),
    );
    assert_eq!((status, err["code"].as_str()), (400, Some("invalid")));
    let problems = err["details"]["problems"].as_array().unwrap();
    assert_eq!(
        (problems[0]["row"].as_u64(), problems[0]["column"].as_str()),
        (Some(2), Some("n"))
    );
    assert_eq!(
        (problems[1]["row"].as_u64(), problems[1]["column"].as_str()),
        (Some(3), Some("id"))
    );
    assert!(problems[1]["reason"]
        .as_str()
        .unwrap()
        .contains("duplicate"));

    // JSON rows; an unselected Tables makes data.page unavailable (tested in its own run below).
    std::fs::write(
        e.dir.join("rows.json"),
        r#"[{"k":"p","v":9007199254740993,"w":null},{"k":"q","v":"12","w":2.5}]"#,
    )
    .unwrap();
    let j = e.ok(
        "resource.register",
        json!({"changeId": "t3", "path": "rows.json", "kind": "table", "format": "json",
        "table": {"format": "json-rows", "key": null, "columns": [{"name": "k", "type": "string"},
        {"name": "v", "type": "integer"}, {"name": "w", "type": "number", "missing": []}]}}),
    );
    let page = e.ok(
        "data.page",
        json!({"resource": rref(&j), "offset": 0, "limit": 10}),
    );
    assert_eq!(
        page["rows"][0]["cells"],
        json!({"k": "p", "v": "9007199254740993", "w": null})
    );
    assert_eq!(
        page["rows"][1]["cells"],
        json!({"k": "q", "v": 12, "w": 2.5})
    );
    assert!(page["rows"][0].get("key").is_none());
    assert!(!e.rscript_was_called());
}

#[test]
fn compare_joins_match_an_independent_computation() {
    let e = start_with(None);
    let decl = json!({"format": "csv", "key": {"column": "k", "namespace": "gene"}, "columns": [
        {"name": "k", "type": "string"}, {"name": "x", "type": "number", "missing": ["NA"]},
        {"name": "y", "type": "integer"}]});
    let left: Vec<(String, Option<f64>, i64)> = (0..40)
        .map(|i| (format!("g{i}"), (i % 7 != 0).then_some(i as f64 * 0.5), i))
        .collect();
    let right: Vec<(String, Option<f64>, i64)> = (20..70)
        .map(|i| (format!("g{i}"), Some(i as f64), 2 * i))
        .collect();
    let write = |name: &str, rows: &[(String, Option<f64>, i64)]| {
        let mut s = String::from("k,x,y\n");
        for (k, x, y) in rows {
            s.push_str(&format!(
                "{k},{},{y}\n",
                x.map_or("NA".to_string(), |v| v.to_string())
            ));
        }
        std::fs::write(e.dir.join(name), s).unwrap();
    };
    write("l.csv", &left);
    write("r.csv", &right);
    let l = register_table(&e, "l", "l.csv", decl.clone());
    let r = register_table(&e, "r", "r.csv", decl);
    let rmap: std::collections::HashMap<&str, &(String, Option<f64>, i64)> =
        right.iter().map(|t| (t.0.as_str(), t)).collect();
    let lkeys: std::collections::HashSet<&str> = left.iter().map(|t| t.0.as_str()).collect();
    let want_matched: Vec<Value> = left
        .iter()
        .filter_map(|(k, x, y)| {
            let (_, rx, ry) = rmap.get(k.as_str())?;
            let d = x.zip(*rx).map(|(a, b)| b - a);
            Some(json!({"key": k, "values": [
            {"field": "x", "left": x, "right": rx, "diff": d},
            {"field": "y", "left": *y as f64, "right": *ry as f64, "diff": (*ry - *y) as f64}]}))
        })
        .collect();
    let want_left: Vec<&str> = left
        .iter()
        .map(|t| t.0.as_str())
        .filter(|k| !rmap.contains_key(k))
        .collect();
    let want_right: Vec<&str> = right
        .iter()
        .map(|t| t.0.as_str())
        .filter(|k| !lkeys.contains(k))
        .collect();
    for join in ["left", "inner", "full"] {
        let got = e.ok("data.compare", json!({"left": rref(&l), "right": rref(&r), "mapping": "equal-string", "join": join,
            "fields": [{"leftField": "x", "rightField": "x"}, {"leftField": "y", "rightField": "y"}]}));
        assert_eq!(
            got["counts"],
            json!({"matched": 20, "leftOnly": 20, "rightOnly": 30}),
            "{join}"
        );
        assert_eq!(got["matched"], json!(want_matched), "{join}");
        let lo = if join == "inner" {
            vec![]
        } else {
            want_left.clone()
        };
        let ro = if join == "full" {
            want_right.clone()
        } else {
            vec![]
        };
        assert_eq!(
            (got["leftOnly"].clone(), got["rightOnly"].clone()),
            (json!(lo), json!(ro)),
            "{join}"
        );
    }
    // The old single-field form; both forms together are invalid; fields must be numeric.
    let old = e.ok("data.compare", json!({"left": rref(&l), "right": rref(&r), "mapping": "equal-string", "join": "inner", "leftField": "y", "rightField": "y"}));
    assert_eq!(old["matched"][0]["values"][0]["field"], "y");
    let (s1, _) = e.err("data.compare", json!({"left": rref(&l), "right": rref(&r), "mapping": "equal-string", "join": "inner", "leftField": "y", "rightField": "y", "fields": [{"leftField": "x", "rightField": "x"}]}));
    let (s2, _) = e.err("data.compare", json!({"left": rref(&l), "right": rref(&r), "mapping": "equal-string", "join": "inner", "leftField": "k", "rightField": "k"}));
    assert_eq!((s1, s2), (400, 400));
}

#[test]
fn selections_are_journaled_observed_and_survive_kill_9() {
    let e = start_with(None);
    let v1 = e.ok(
        "selection.set",
        json!({"changeId": "s1", "scope": "shared", "namespace": "gene", "keys": ["a", "b"]}),
    );
    assert_eq!(v1["version"], 1);
    assert_eq!(
        e.ok(
            "selection.set",
            json!({"changeId": "s1", "scope": "shared", "namespace": "gene", "keys": ["a", "b"]})
        ),
        v1
    );
    let v2 = e.ok(
        "selection.set",
        json!({"changeId": "s2", "scope": "shared", "namespace": "gene", "keys": ["c"]}),
    );
    assert_eq!(v2["version"], 2);
    e.ok("selection.set", json!({"changeId": "s3", "scope": "view", "viewId": "v1", "namespace": "gene", "keys": ["z"]}));
    let (status, _) = e.err(
        "selection.set",
        json!({"changeId": "s4", "scope": "view", "namespace": "gene", "keys": []}),
    );
    assert_eq!(status, 400);
    let too_many: Vec<String> = (0..10_001).map(|i| format!("k{i}")).collect();
    let (status, _) = e.err(
        "selection.set",
        json!({"changeId": "s5", "scope": "caller", "namespace": "gene", "keys": too_many}),
    );
    assert_eq!(status, 429);
    let Env {
        root,
        state,
        work,
        service,
        project,
        dir,
    } = e;
    service.kill9();
    let args = [
        "--root",
        root.path().to_str().unwrap(),
        "--state-dir",
        state.path().to_str().unwrap(),
    ];
    let service = Service::spawn(&args, &[], root.path(), state.path());
    let e = Env {
        root,
        state,
        work,
        service,
        project,
        dir,
    };
    let snap = e.ok("observation.snapshot", json!({}));
    let sels = snap["project"]["selections"].as_array().unwrap();
    assert_eq!(sels.len(), 2, "{sels:?}");
    let shared = sels.iter().find(|s| s["scope"] == "shared").unwrap();
    assert_eq!(
        (shared["keys"].clone(), shared["version"].as_u64()),
        (json!(["c"]), Some(2))
    );
    // An operator's replay of the journal shows the selections (keyed by scope and namespace).
    let out = support::run(&[
        "journal",
        "inspect",
        e.dir.to_str().unwrap(),
        "--replay",
        "--json",
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let replay: Value = serde_json::from_slice(&out.stdout).unwrap();
    let text = replay["state"].to_string();
    assert!(
        text.contains("\"gene\"") && text.contains("\"z\""),
        "{text}"
    );
}

#[test]
fn data_operations_are_unavailable_without_their_owner() {
    let root = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let args = [
        "--root",
        root.path().to_str().unwrap(),
        "--state-dir",
        state.path().to_str().unwrap(),
        "--plugins",
        "files",
    ];
    let s = Service::spawn(&args, &[], root.path(), state.path());
    let (_, p) = s.call("project.create", json!({"name": "p"}));
    let pid = p["value"]["id"].clone();
    std::fs::write(root.path().join("p/t.csv"), "a\n1\n").unwrap();
    let (_, r) = s.call(
        "resource.register",
        json!({"projectId": pid, "changeId": "c", "path": "t.csv", "kind": "table", "format": "csv",
        "table": {"format": "csv", "columns": [{"name": "a", "type": "integer"}]}}),
    );
    let (status, err) = s.call("data.page", json!({"projectId": pid, "resource": {"id": r["value"]["id"], "version": 1}, "offset": 0, "limit": 1}));
    assert_eq!(
        (status, err["error"]["details"]["missing"].clone()),
        (503, json!(["tables"]))
    );
    let (status, read) = s.call(
        "resource.read",
        json!({"projectId": pid, "resource": {"id": r["value"]["id"], "version": 1}}),
    );
    assert_eq!((status, read["value"]["total"].as_u64()), (200, Some(4)));
}

#[test]
fn a_table_read_straight_after_registration_is_stale_once_rewritten_with_its_old_times() {
    let e = start_with(None);
    let path = e.dir.join("t.csv");
    std::fs::write(&path, "id,n\na,1\nb,2\n").unwrap();
    // Older than a clock tick when registered: the registration's check is settled, so the
    // first page reads the file without hashing it again (decision 0181).
    std::thread::sleep(std::time::Duration::from_millis(50));
    let decl = json!({"format": "csv", "key": {"column": "id", "namespace": "row"}, "columns": [
        {"name": "id", "type": "string"}, {"name": "n", "type": "integer"}]});
    let r = register_table(&e, "t1", "t.csv", decl);
    let page = e.ok(
        "data.page",
        json!({"resource": rref(&r), "offset": 0, "limit": 10}),
    );
    assert_eq!(page["total"], 2);
    assert_eq!(page["rows"][0]["cells"], json!({"id": "a", "n": 1}));
    // The same length, the old modification time put back: the change time still moved, so
    // the cached table is not served and the bytes are hashed and found stale.
    let mtime = std::fs::metadata(&path).unwrap().modified().unwrap();
    std::fs::write(&path, "id,n\na,3\nb,2\n").unwrap();
    let f = std::fs::File::options().write(true).open(&path).unwrap();
    f.set_modified(mtime).unwrap();
    assert_eq!(std::fs::metadata(&path).unwrap().modified().unwrap(), mtime);
    let (status, err) = e.err(
        "data.page",
        json!({"resource": rref(&r), "offset": 0, "limit": 10}),
    );
    assert_eq!(
        (status, err["code"].as_str()),
        (409, Some("stale")),
        "{err}"
    );
}
