//! Notebook readings through the real `rho` with real R and Python (issue 15): the `ended`
//! answer, a cell asked for during a reading waits for it (also for a reading given up on and
//! answered late), `kernel.read` paging, the inspect bounds (inspectColumns, inspectChildren,
//! inspectTextBytes), Python's maxOutputBytes and maxVariables, and Python models.

use crate::support::poll::until;
use crate::support::Env;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::time::Duration;

fn run(e: &Env, language: &str, change: &str, code: &str, wait_ms: u64) -> Value {
    e.ok(
        "kernel.run",
        json!({"language": language, "code": code, "changeId": change, "waitMs": wait_ms}),
    )
}

fn done(e: &Env, language: &str, change: &str, code: &str) -> Value {
    let c = run(e, language, change, code, 60_000);
    assert_eq!(c["end"]["outcome"], "done", "{c}");
    c
}

fn cell(e: &Env, id: &Value) -> Value {
    e.ok("kernel.read", json!({"cellId": id}))["cells"][0].clone()
}

fn inspect(e: &Env, language: &str, path: &str, extra: Value) -> Value {
    let mut body = json!({"language": language, "path": path});
    if let Some(m) = extra.as_object() {
        for (k, v) in m {
            body[k] = v.clone();
        }
    }
    e.ok("kernel.inspect", body)
}

/// The Python with pandas, numpy and matplotlib that kernels/tests/setup.sh makes (or
/// `RHO_TEST_PYTHON`); these tests fail, never skip, without it.
fn venv_python() -> PathBuf {
    if let Some(p) = std::env::var_os("RHO_TEST_PYTHON") {
        return p.into();
    }
    let venv = PathBuf::from(std::env::var("HOME").unwrap_or_default())
        .join(".cache/rho-test/notebook-venv/bin/python");
    assert!(
        venv.exists(),
        "{} is missing: run kernels/tests/setup.sh",
        venv.display()
    );
    venv
}

fn with_pandas(limits: Option<Value>, name: &str) -> Env {
    let python = venv_python();
    Env::start(&["--python", python.to_str().unwrap()], limits, name)
}

/// Waits until the session's reading has begun: the value's reader touches `marker`.
fn wait_for(marker: &Path) {
    until("the reading began", Duration::from_secs(20), || {
        marker.exists()
    });
}

/// A Python value whose reading touches `reading-began`, ignores SIGINT and takes `secs`.
fn slow_value(secs: f64) -> String {
    format!(
        "import signal, time\nclass Slow:\n    def __repr__(self):\n        open('reading-began', 'w').close()\n        old = signal.signal(signal.SIGINT, signal.SIG_IGN)\n        time.sleep({secs})\n        signal.signal(signal.SIGINT, old)\n        return 'slow'\nslow = Slow()"
    )
}

#[test]
fn a_cell_asked_for_during_a_reading_waits_for_it_then_runs() {
    let e = Env::start(&[], None, "notebook-reading");
    done(&e, "python", "setup", &slow_value(2.0));
    std::thread::scope(|s| {
        let reading = s.spawn(|| inspect(&e, "python", "slow", json!({})));
        wait_for(&e.dir.join("reading-began"));
        let c = run(&e, "python", "during", "open('ran', 'w').close()\n'ran'", 0);
        assert_eq!(c["state"], "waiting", "{c}");
        assert!(
            !e.dir.join("ran").exists(),
            "the cell ran during the reading"
        );
        let r = reading.join().unwrap();
        assert_eq!(r["answer"], "value", "{r}");
        assert_eq!(r["value"]["text"], "slow", "{r}");
        until(
            "the cell ran after the reading",
            Duration::from_secs(20),
            || cell(&e, &c["cellId"])["end"]["outcome"] == "done",
        );
    });
}

#[test]
fn a_cell_queued_during_a_reading_given_up_on_runs_when_the_late_answer_comes() {
    let e = Env::start(
        &[],
        Some(json!({"kernel": {"inspectTimeoutMs": 300, "inspectGiveUpMs": 300}})),
        "notebook-late",
    );
    done(&e, "python", "setup", &slow_value(3.0));
    let r = inspect(&e, "python", "slow", json!({}));
    assert_eq!(r["answer"], "timeout", "{r}");
    // The runner still reads (it ignored the SIGINT): a cell waits, and runs once it answers,
    // with no other request to wake it.
    let c = run(&e, "python", "after", "'ran'", 0);
    assert_eq!(c["state"], "waiting", "{c}");
    until("the queued cell ran", Duration::from_secs(20), || {
        cell(&e, &c["cellId"])["end"]["outcome"] == "done"
    });
    // The session and its values stayed.
    let again = inspect(&e, "python", "slow", json!({}));
    assert_eq!(again["answer"], "timeout", "{again}");
}

#[test]
fn a_session_that_ends_during_a_reading_answers_ended() {
    let e = Env::start(&[], None, "notebook-ended");
    done(
        &e,
        "python",
        "setup",
        "import os\nclass Quit:\n    def __repr__(self):\n        os._exit(4)\nquit_on_read = Quit()",
    );
    let r = inspect(&e, "python", "quit_on_read", json!({}));
    assert_eq!(r["answer"], "ended", "{r}");
    until("the session ended", Duration::from_secs(20), || {
        e.ok("kernel.read", json!({}))["sessions"][0]["state"] == "ended"
    });
    // Without a live session the answer is none; it never starts one.
    let r = inspect(&e, "python", "quit_on_read", json!({}));
    assert_eq!(r["answer"], "none", "{r}");
}

#[test]
fn kernel_read_pages_cells_in_arrival_order() {
    let e = Env::start(&[], None, "notebook-pages");
    let ids: Vec<Value> = (0..5)
        .map(|i| done(&e, "python", &format!("c{i}"), &format!("{i}"))["cellId"].clone())
        .collect();
    let mut seen = Vec::new();
    let mut body = json!({"limit": 2});
    let mut pages = 0;
    loop {
        let page = e.ok("kernel.read", body.clone());
        pages += 1;
        let cells = page["cells"].as_array().unwrap();
        assert!(cells.len() <= 2, "{page}");
        seen.extend(cells.iter().map(|c| c["cellId"].clone()));
        match page["next"].as_u64() {
            Some(next) => {
                assert_eq!(Some(next), cells.last().and_then(|c| c["no"].as_u64()));
                body = json!({"limit": 2, "after": next});
            }
            None => break,
        }
    }
    assert_eq!((pages, seen), (3, ids));
    let (_, err) = e.err("kernel.read", json!({"limit": 101}));
    assert_eq!(err["details"]["field"], "limit", "{err}");
}

#[test]
fn r_readings_page_columns_and_parts_and_cut_long_text_at_their_limits() {
    let e = Env::start(
        &[],
        Some(
            json!({"kernel": {"inspectColumns": 3, "inspectChildren": 4, "inspectTextBytes": 100}}),
        ),
        "notebook-bounds-r",
    );
    done(
        &e,
        "r",
        "setup",
        "wide <- as.data.frame(matrix(1:50, nrow = 2))\nl <- as.list(1:10)\nlong <- strrep('a', 300)",
    );
    let t = inspect(&e, "r", "wide", json!({}));
    assert_eq!(t["value"]["columns"].as_array().unwrap().len(), 3, "{t}");
    assert_eq!(t["value"]["columnsTotal"], 25, "{t}");
    assert_eq!(
        t["value"]["page"]["rows"][0]["values"]
            .as_array()
            .unwrap()
            .len(),
        3
    );
    let l = inspect(&e, "r", "l", json!({}));
    assert_eq!(
        l["value"]["page"]["parts"].as_array().unwrap().len(),
        4,
        "{l}"
    );
    assert_eq!(l["value"]["total"], 10, "{l}");
    let rest = inspect(&e, "r", "l", json!({"offset": 8}));
    let parts = rest["value"]["page"]["parts"].as_array().unwrap();
    assert_eq!(
        parts
            .iter()
            .map(|p| p["position"].clone())
            .collect::<Vec<_>>(),
        [json!(9), json!(10)]
    );
    let v = inspect(&e, "r", "long", json!({}));
    assert_eq!(v["value"]["cut"], true, "{v}");
    let text = v["value"]["value"].as_str().unwrap();
    assert!(
        text.len() <= 100 && text.len() >= 90,
        "{} bytes",
        text.len()
    );
}

#[test]
fn python_readings_page_columns_and_parts_and_cut_long_text_at_their_limits() {
    let e = with_pandas(
        Some(
            json!({"kernel": {"inspectColumns": 3, "inspectChildren": 4, "inspectTextBytes": 100}}),
        ),
        "notebook-bounds-py",
    );
    done(
        &e,
        "python",
        "setup",
        "import pandas as pd\nwide = pd.DataFrame({f'c{i}': [i, i + 1] for i in range(25)})\nl = list(range(10))\nd = {f'k{i}': i for i in range(6)}\nlong = 'a' * 300",
    );
    let t = inspect(&e, "python", "wide", json!({}));
    assert_eq!(t["value"]["columns"].as_array().unwrap().len(), 3, "{t}");
    assert_eq!(t["value"]["columnsTotal"], 25, "{t}");
    let l = inspect(&e, "python", "l", json!({}));
    assert_eq!(
        l["value"]["page"]["parts"].as_array().unwrap().len(),
        4,
        "{l}"
    );
    assert_eq!(l["value"]["total"], 10, "{l}");
    let rest = inspect(&e, "python", "d", json!({"offset": 4}));
    let names: Vec<&str> = rest["value"]["page"]["parts"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| p["name"].as_str())
        .collect();
    assert_eq!(names, ["k4", "k5"], "{rest}");
    let v = inspect(&e, "python", "long", json!({}));
    assert_eq!(v["value"]["cut"], true, "{v}");
    assert_eq!(v["value"]["value"].as_str().unwrap().len(), 100, "{v}");
}

#[test]
fn python_output_past_max_output_bytes_is_counted_and_variables_past_max_variables_too() {
    let e = Env::start(
        &[],
        Some(json!({"kernel": {"maxOutputBytes": 1000, "maxVariables": 5}})),
        "notebook-py-limits",
    );
    let loud = done(&e, "python", "loud", "print('x' * 4999)");
    let kept: usize = loud["output"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["text"].as_str().unwrap().len())
        .sum();
    assert_eq!((kept, loud["cut"].as_bool()), (1000, Some(true)), "{loud}");
    assert_eq!(loud["omittedBytes"], 4000, "{loud}");
    let many = done(
        &e,
        "python",
        "many",
        "a1, a2, a3, a4, a5, a6, a7, a8 = range(8)",
    );
    let read = e.ok("kernel.read", json!({}));
    let session = &read["sessions"][0];
    let names: Vec<&str> = session["variables"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|v| v["name"].as_str())
        .collect();
    assert_eq!(names, ["a1", "a2", "a3", "a4", "a5"], "{session}");
    assert_eq!(session["variablesOmitted"], 3, "{session}");
    // A cut listing names no removed values.
    assert!(many["removed"].is_null(), "{many}");
    assert_eq!(many["defined"].as_array().map(Vec::len), Some(8), "{many}");
}

#[test]
fn python_models_give_their_fit_and_coefficients() {
    let e = with_pandas(None, "notebook-py-models");
    done(
        &e,
        "python",
        "fit",
        concat!(
            "import numpy as np\n",
            "x = np.arange(10.0)\ny = 3 + 2 * x\n",
            "poly = np.polynomial.Polynomial.fit(x, y, 1)\n",
            "class Estimator:\n",
            "    def __init__(self):\n",
            "        self.coef_ = np.array([2.0, -1.0])\n",
            "        self.intercept_ = 0.5\n",
            "        self.feature_names_in_ = np.array(['a', 'b'])\n",
            "    def get_params(self, deep=True):\n",
            "        return {}\n",
            "est = Estimator()\n",
            "class Results:\n",
            "    model = 'ols'\n",
            "    params = [1.0, 2.0]\n",
            "    bse = [0.1, 0.2]\n",
            "    nobs = 10\n",
            "    rsquared = 0.9\n",
            "ols = Results()\n",
        ),
    );
    let p = inspect(&e, "python", "poly", json!({}));
    let v = &p["value"];
    assert_eq!(v["kind"], "model", "{p}");
    assert_eq!(v["fit"]["degree"], 1, "{p}");
    let coef: Vec<(String, f64)> = v["coefficients"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["term"].as_str().unwrap().to_string(),
                c["estimate"].as_f64().unwrap(),
            )
        })
        .collect();
    assert_eq!(coef.len(), 2, "{p}");
    assert_eq!((coef[0].0.as_str(), coef[1].0.as_str()), ("x^0", "x^1"));
    assert!(
        (coef[0].1 - 3.0).abs() < 1e-9 && (coef[1].1 - 2.0).abs() < 1e-9,
        "{p}"
    );
    let s = inspect(&e, "python", "est", json!({}));
    assert_eq!(s["value"]["kind"], "model", "{s}");
    assert_eq!(
        s["value"]["coefficients"],
        json!([
            {"term": "intercept", "estimate": 0.5},
            {"term": "a", "estimate": 2.0},
            {"term": "b", "estimate": -1.0}
        ]),
        "{s}"
    );
    let o = inspect(&e, "python", "ols", json!({}));
    assert_eq!(o["value"]["kind"], "model", "{o}");
    assert_eq!(
        o["value"]["fit"],
        json!({"nobs": 10.0, "rSquared": 0.9}),
        "{o}"
    );
    assert_eq!(o["value"]["coefficients"][1]["stdError"], 0.2, "{o}");
    // numpy.polyfit's plain array is a vector, not a model.
    done(&e, "python", "plain", "plain = np.polyfit(x, y, 1)");
    assert_eq!(
        inspect(&e, "python", "plain", json!({}))["value"]["kind"],
        "vector"
    );
}
